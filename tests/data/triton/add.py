# Vector add in Triton: one program adds BLOCK_SIZE consecutive elements.
#
# The CUDA twin (lessons/01-threads-and-warps/threads.cu) gives every thread one element. Here a
# program (one CUDA block of 32 * num_warps threads) owns a whole block of values: tl.arange makes
# the BLOCK_SIZE offsets, and Triton decides how they are spread over the threads (with
# BLOCK_SIZE = 1024 and 4 warps, each thread holds 8 values: two groups of four consecutive
# floats, which it loads with ld.global.v4 when the pointers are 16-byte aligned).
# The mask turns off the lanes past the end when n is not a multiple of BLOCK_SIZE.
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)
