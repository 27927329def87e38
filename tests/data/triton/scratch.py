# tests/522: the kernel "compiled" by scratch_bridge.py (its PTX is scratch_kernel.ptx); this file
# only names it, as an experiment's `triton = "kernel.py"` must.
def scratch_kernel(out_ptr, n):
    pass
