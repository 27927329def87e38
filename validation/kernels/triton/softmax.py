# Fused softmax in Triton: one program per row, the whole row in registers.
#
# A program loads a row of n_cols values (BLOCK_SIZE, the next power of two, with the tail
# masked to -inf so it adds nothing), subtracts the row's maximum (for exp's range), exponentiates,
# and divides by the sum: one read and one write of the matrix. tl.max and tl.sum reduce across
# the program's threads: within a warp with shuffles, across warps through shared memory (the
# bar.sync and st.shared/ld.shared in the PTX). The CUDA twins are in lessons/07-reductions and
# lessons/15-fusion-further.
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)
