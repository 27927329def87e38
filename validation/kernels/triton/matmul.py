# Matrix multiply C = A @ B in Triton (FP32), tiles visited in GROUP_M order.
#
# Each program computes one BLOCK_M x BLOCK_N tile of C, walking K in BLOCK_K steps. Programs are
# numbered so that GROUP_M consecutive ones take a column of tiles of C before moving right:
# while a group runs, the rows of A it reads stay in the L2 (lessons/12-tile-order-l2 shows the
# same reordering in CUDA). The product is full FP32 either way: USE_DOT = True uses tl.dot with
# input_precision="ieee" (no TF32), which Triton lowers to FMA loops fed from shared memory with
# ldmatrix (sm_80; matmul_fp16.py is the tensor-core version); USE_DOT = False writes the same sum as a broadcast product reduced over k (tl.sum), which runs
# everywhere but needs small tiles (the product holds BLOCK_M * BLOCK_K * BLOCK_N values).
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, USE_DOT: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    # GROUP_M tile order: pid -> (pid_m, pid_n), a column of GROUP_M tiles at a time.
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        if USE_DOT:  # FMA loops in full FP32, staged through shared memory (ldmatrix)
            acc = tl.dot(a, b, acc, input_precision="ieee")
        else:  # the same sum of products as a broadcast and a reduction over k
            acc += tl.sum(a[:, :, None] * b[None, :, :], axis=1)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
