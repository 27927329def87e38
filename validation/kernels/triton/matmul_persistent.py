# Persistent matrix multiply in Triton (FP32): NUM_PROGRAMS programs (one or a few per SM) each
# loop over the tiles of C, tile = start, start + NUM_PROGRAMS, ..., instead of one program per
# tile. The launch pays for NUM_PROGRAMS blocks only, and there is no tail wave of blocks
# (lessons/13-persistent-kernels shows the CUDA version). Tiles are visited in GROUP_M order, as
# in matmul.py; the product is full FP32 (USE_DOT: tl.dot with input_precision="ieee", else a
# broadcast product reduced with tl.sum, as in matmul.py).
import triton
import triton.language as tl


@triton.jit
def matmul_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                      stride_cm, stride_cn, NUM_PROGRAMS: tl.constexpr, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                      USE_DOT: tl.constexpr):
    start = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_M * num_pid_n
    for tile in range(start, num_tiles, NUM_PROGRAMS):
        group_id = tile // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + ((tile % num_pid_in_group) % group_size_m)
        pid_n = (tile % num_pid_in_group) // group_size_m
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            ks = k * BLOCK_K + offs_k
            a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :] * stride_ak,
                        mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
            b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                        mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0.0)
            if USE_DOT:  # FMA loops in full FP32, staged through shared memory (ldmatrix)
                acc = tl.dot(a, b, acc, input_precision="ieee")
            else:  # the same sum of products as a broadcast and a reduction over k
                acc += tl.sum(a[:, :, None] * b[None, :, :], axis=1)
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
        tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
