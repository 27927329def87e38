#!/usr/bin/env python3
"""The static instruction mix of PTX kernels side by side (issue 24: a Triton kernel and its CUDA
twin). Counts the instructions in each kernel's body by opcode family (the opcode up to its first
type suffix: ld.global, st.global, fma, mul, ex2, shfl.sync, bar.sync, ...), as written in the
PTX: static counts, not executed ones (warplab run reports those).

  build/warplab ptx lessons/06-operator-fusion/gelu.cu > cuda.ptx
  build/warplab ptx validation/kernels/triton/gelu.py:gelu_kernel --constexpr BLOCK_SIZE=1024 > triton.ptx
  python3 scripts/ptx_mix.py cuda.ptx:gelu_fused triton.ptx:gelu_kernel
"""
import collections
import re
import sys

TYPES = {"f16", "f32", "f64", "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16",
         "s32", "s64", "pred", "v2", "v4"}


def family(op):
    """ld.global.v4.b32 -> ld.global.v4; fma.rn.f32 -> fma.f32; setp.lt.s32 -> setp.s32."""
    parts = op.split(".")
    if parts[0] in ("ld", "st", "atom", "red", "cp"):
        keep = [p for p in parts[:3] if p not in TYPES or p in ("v2", "v4")]
        return ".".join(keep)
    typ = next((p for p in reversed(parts) if p in TYPES), "")
    return parts[0] + ("." + typ if typ.startswith("f") else "")


def mix(path, entry):
    text = open(path).read()
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\(", text)
    if not m:
        sys.exit("%s: no .entry %s" % (path, entry))
    body = text[text.index("{", text.index(")", m.end())) + 1:]
    depth, out = 1, collections.Counter()
    for line in body.split("\n"):
        s = line.split("//")[0].strip()
        if not s:
            continue
        depth += s.count("{") - s.count("}")
        if depth <= 0:
            break
        s = s.strip("{} \t")
        if not s or s.startswith(".") or s.endswith(":") or s.startswith("$"):
            continue
        s = re.sub(r"^@!?%\w+\s+", "", s)
        op = s.split()[0].rstrip(";")
        if re.match(r"^[a-z]", op):
            out[family(op)] += 1
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cols = []
    for arg in sys.argv[1:]:
        path, _, entry = arg.rpartition(":")
        cols.append((entry, mix(path, entry)))
    names = sorted({k for _, c in cols for k in c}, key=lambda k: (-sum(c[k] for _, c in cols), k))
    print("%-20s" % "instruction" + "".join("%16s" % e[:15] for e, _ in cols))
    for k in names:
        print("%-20s" % k + "".join("%16d" % c[k] for _, c in cols))
    print("%-20s" % "total" + "".join("%16d" % sum(c.values()) for _, c in cols))


if __name__ == "__main__":
    main()
