# C = A @ B through tensor descriptors the kernel builds on the device (tl.make_tensor_descriptor):
# on sm_90 Triton writes three TMA tensor maps into the program's global scratch memory
# (tensormap.replace, tensormap.cp_fenceproxy), loads the A and B tiles with TMA tensor copies
# (cp.async.bulk.tensor, mbarrier completion, 128-byte swizzle), multiplies them with
# wgmma.mma_async, and stores the C tile with a TMA store. Shapes that are not multiples of the
# tiles rely on the TMA's out-of-bounds handling: zeros read past the edges, nothing written there.
import triton
import triton.language as tl


@triton.jit
def matmul_descriptor(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc)
