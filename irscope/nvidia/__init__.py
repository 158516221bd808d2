"""NVIDIA's tools that every CUDA frontend shares: ptxas's report (ptxas.py), nvdisasm's SASS (sass.py), a
cubin's launch through the driver (launch.py), and which GPUs this machine has (device.py, through NVML). A cubin's ELF and DWARF line table are read in ir/elf.py."""
