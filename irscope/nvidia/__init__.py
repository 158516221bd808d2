"""NVIDIA's tools that every CUDA frontend shares: ptxas's report, nvdisasm's SASS, the cubin's ELF and DWARF."""
