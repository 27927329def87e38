# A Triton kernel with an error on line 11 (the name is never defined), for tests/520_triton.cpp.
import triton
import triton.language as tl


@triton.jit
def bad_kernel(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x * undefined_scale, mask=offs < n)
