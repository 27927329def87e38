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


# ---- The Triton twins in lessons 6, 7 and 15: their inputs are the CUDA steps' own `uniform`
# inits, made by WarpLab's SplitMix64 (lessons/FORMAT.md, "[[buffers]]"), which these lines
# recompute; each twin checks its first rows (or elements) against the float64 results here.
def uniform_f32(lo, hi, seed, count):
    """WarpLab's { uniform = [lo, hi], seed = seed } for an f32 buffer, element by element."""
    with np.errstate(over="ignore"):
        state = np.uint64(seed) + np.arange(1, count + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        z = state
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    u = (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    v = (lo + (hi - lo) * u).astype(np.float32)
    v[v >= hi] = np.nextafter(np.float32(hi), np.float32(-np.inf))  # half-open, as WarpLab keeps it
    return v


# Lesson 6's GELU twin: x = uniform [-4, 4), seed 1; the first 16384 elements of y.
x = uniform_f32(-4.0, 4.0, 1, 16384).astype(np.float64)
save("twin_gelu_ref.npy", 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3))))

# Lesson 7's softmax twin: x = uniform [-4, 4), seed 1, rows of 1024; the first 16 rows of y.
x = uniform_f32(-4.0, 4.0, 1, 16 * 1024).astype(np.float64).reshape(16, 1024)
e = np.exp(x - x.max(axis=1, keepdims=True))
save("twin_softmax_ref.npy", e / e.sum(axis=1, keepdims=True))

# Lesson 15's epilogue twin: C = relu(A @ B), A 512 x 64 (seed 51) and B 64 x 512 (seed 52) in
# [-1, 1); the first 32 rows of C.
A = uniform_f32(-1.0, 1.0, 51, 512 * 64).astype(np.float64).reshape(512, 64)
B = uniform_f32(-1.0, 1.0, 52, 64 * 512).astype(np.float64).reshape(64, 512)
save("twin_relu_ref.npy", np.maximum(A[:32] @ B, 0.0))
