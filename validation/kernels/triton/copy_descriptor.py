# y = x + 1 over a 2-D array, tile by tile, through tensor descriptors that the kernel builds on
# the device (tl.make_tensor_descriptor). For sm_90 Triton writes each descriptor (a 128-byte TMA
# tensor map) into the program's slice of global scratch memory with tensormap.replace, then
# copies tiles with the Tensor Memory Accelerator (cp.async.bulk.tensor): the compiled kernel's
# metadata asks for global_scratch_size bytes per program, which WarpLab allocates as Triton's
# launcher does (lab/runner.cpp). For sm_80 there is no TMA: plain loads and stores, no scratch.
# (validation/experiments/triton-tensor-descriptor.toml says what WarpLab does not parse yet.)
import triton
import triton.language as tl


@triton.jit
def copy_descriptor(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    tile = x_desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
    y_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], tile + 1.0)
