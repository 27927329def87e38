#!/usr/bin/env python3
"""Inputs and references of the fp16 Triton matmul on sm_90 (validation/experiments/
triton-matmul-fp16-sm90.toml): A (M x K) and B (K x N) in float16, C = A @ B computed in float64
from the float16 values and rounded to float32 once, independently of WarpLab and of Triton.
Run from anywhere: python3 make_refs.py (writes next to this file)."""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(90)

M, N, K = 200, 136, 96
a = rng.uniform(-1.0, 1.0, size=(M, K)).astype(np.float16)
b = rng.uniform(-1.0, 1.0, size=(K, N)).astype(np.float16)
np.save(os.path.join(HERE, "mm16_a.npy"), a)
np.save(os.path.join(HERE, "mm16_b.npy"), b)
c = a.astype(np.float64) @ b.astype(np.float64)
np.save(os.path.join(HERE, "mm16_c_ref.npy"), c.astype(np.float32))
