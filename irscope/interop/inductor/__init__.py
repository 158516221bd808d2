"""Inspect the Triton kernels that torch.compile's Inductor generated (from its output code)."""
