"""Writes expected_double_math.npy for warp_kernels.toml: the double_math kernel's formula computed
on the CPU with Python's math module (fma exactly, through fractions). No NumPy needed."""
import math
import struct
from fractions import Fraction

N = 4096


def value(i):
    a = float(i - N // 2) * 0.37
    fma = float(Fraction(a) * Fraction(a) - Fraction(a))  # one rounding, like fma(a, a, -a)
    return math.sqrt(abs(a)) * math.exp(-abs(a) / 100.0) + math.sin(a) / (1.0 + a * a) + fma / 3.0


header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }" % N
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open("expected_double_math.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
    f.write(struct.pack("<%dd" % N, *(value(i) for i in range(N))))
