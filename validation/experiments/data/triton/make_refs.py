#!/usr/bin/env python3
"""Inputs and numpy references of the Triton validation experiments (validation/experiments/
triton-*.toml). Computed in float64 and rounded to float32 once, independently of WarpLab and of
Triton. Run from anywhere: python3 make_refs.py (writes next to this file)."""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, a):
    np.save(os.path.join(HERE, name), np.ascontiguousarray(a, dtype=np.float32))


rng = np.random.default_rng(2024)

# GELU (tanh form) of x = -8 + i * 16 / N (the experiment's iota init), N = 65536.
N = 65536
x = -8.0 + np.arange(N, dtype=np.float64) * (16.0 / N)
x = x.astype(np.float32).astype(np.float64)
save("gelu_ref.npy", 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3))))

# Softmax over each row of a 64 x 781 matrix.
rows, cols = 64, 781
a = rng.uniform(-6.0, 6.0, size=(rows, cols)).astype(np.float32)
save("softmax_in.npy", a)
e = np.exp(a.astype(np.float64) - a.max(axis=1, keepdims=True))
save("softmax_ref.npy", e / e.sum(axis=1, keepdims=True))

# Layer norm forward over each row of a 64 x 781 matrix, eps = 1e-5.
x = rng.normal(1.5, 2.0, size=(rows, cols)).astype(np.float32)
w = rng.uniform(0.5, 1.5, size=cols).astype(np.float32)
b = rng.uniform(-0.5, 0.5, size=cols).astype(np.float32)
save("ln_x.npy", x)
save("ln_w.npy", w)
save("ln_b.npy", b)
xd = x.astype(np.float64)
mean = xd.mean(axis=1, keepdims=True)
rstd = 1.0 / np.sqrt(((xd - mean) ** 2).mean(axis=1, keepdims=True) + 1e-5)
save("ln_y_ref.npy", (xd - mean) * rstd * w.astype(np.float64) + b.astype(np.float64))
save("ln_mean_ref.npy", mean.ravel())
save("ln_rstd_ref.npy", rstd.ravel())

# Matmul C = A @ B, M = 200, N = 136, K = 96 (no size a multiple of the tiles: the masks work).
M, Nn, K = 200, 136, 96
A = rng.uniform(-1.0, 1.0, size=(M, K)).astype(np.float32)
B = rng.uniform(-1.0, 1.0, size=(K, Nn)).astype(np.float32)
save("mm_a.npy", A)
save("mm_b.npy", B)
save("mm_c_ref.npy", A.astype(np.float64) @ B.astype(np.float64))

# fp16 matmul with tl.dot (triton-matmul-fp16-sm80.toml): 512 x 512 fp16 A and B whose entries
# are multiples of 1/64 in [-1, 1). Every product is then a multiple of 2^-12 and every partial
# sum of up to 512 of them is below 2^9 in magnitude: 21 significant bits, exact in fp32 whatever
# the order of the sums and however the tensor cores align them. The float64 product below is
# therefore the exact answer, and the experiment checks it with zero tolerance.
S = 512
rng16 = np.random.default_rng(1616)
A16 = (rng16.integers(-64, 64, size=(S, S)) / 64.0).astype(np.float16)
B16 = (rng16.integers(-64, 64, size=(S, S)) / 64.0).astype(np.float16)
np.save(os.path.join(HERE, "mm16_a.npy"), A16)
np.save(os.path.join(HERE, "mm16_b.npy"), B16)
save("mm16_c_ref.npy", A16.astype(np.float64) @ B16.astype(np.float64))
