# C = relu(A @ B) in Triton, FP32, with the ReLU fused into the matmul's epilogue: the CUDA twin
# of lessons/15-fusion-further/epilogue.cu's matmul_relu.
#
# Each program computes one BLOCK_M x BLOCK_N tile of C, walking K in BLOCK_K steps; the ReLU is
# applied to the accumulator in registers, before the one store of the tile. tl.dot with
# input_precision="ieee" keeps every product and sum in FP32 (no TF32), as the CUDA kernel's
# FFMAs do: Triton stages the blocks through shared memory and multiplies with FMA loops. A, B
# and C are row-major with unit strides along k and n written into the code (Triton's launcher
# makes an argument equal to 1 a constant; WarpLab passes arguments as given).
import triton
import triton.language as tl


@triton.jit
def matmul_relu(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(axis=1)
    pid_n = tl.program_id(axis=0)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * N + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N
    acc = tl.maximum(acc, 0.0)  # the epilogue: ReLU on values still in registers
    c_ptrs = c_ptr + offs_m[:, None] * N + offs_n[None, :]
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
