#!/bin/bash
# What ptxas does with NVVM's peeled copies of a tile-copy loop (PTXAS-COPY-2026-11-27.md).
# Needs nvcc/ptxas (CUDA 13.0) and cuobjdump (CUOBJDUMP=...). Prints, per kernel and register
# budget, ptxas's registers and the SASS's LDG (L) / STS (S) / branch order up to the first BAR.
set -e
CUOBJDUMP=${CUOBJDUMP:-cuobjdump}
D=$(mktemp -d); cd "$(dirname "$0")"
pattern() {  # cubin kernel
  $CUOBJDUMP -sass -fun $2 $1 | grep -oE '(LDG[^ ]*|STS[^ ]*|@!?P[0-9] BRA|BAR[^ ]*|BSYNC)' |
    sed 's/LDG.*/L/; s/STS.*/S/; s/.*BRA/BRA/' | awk '/BAR/{exit} {printf "%s ", $0}'
}
maxnreg() {  # ptx kernel regs out
  python3 - "$@" <<'PY'
import sys
s = open(sys.argv[1]).read(); i = s.index('.entry %s(' % sys.argv[2]); j = s.index(')', i)
open(sys.argv[4], 'w').write(s[:j + 1] + '\n.maxnreg %s\n' % sys.argv[3] + s[j + 1:])
PY
}
build() {  # ptx kernel budget label
  local p=$1 out=$D/x.ptx
  if [ "$3" = ptxas ]; then cp $p $out; else maxnreg $p $2 $3 $out; fi
  local r=$(ptxas -arch=sm_90a -v $out -o $D/x.cubin 2>&1 | grep -A3 "entry function '$2'" | grep -oE 'Used [0-9]+' | grep -oE '[0-9]+')
  printf '%s\t%s\t%s\t%s\t%s\n' "$4" "$2" "$3" "$r" "$(pattern $D/x.cubin $2)"
}
printf 'source\tkernel\tbudget\tregisters\tLDG/STS order (first chain: NVVM peeled copies)\n'
nvcc -arch=compute_90a -ptx ../../../lessons/17-tensor-cores/tc_matmul.cu -o $D/l17.ptx
for b in ptxas 64 68 72 76 80 88; do build $D/l17.ptx matmul_mma_bf16 $b tc_matmul.cu; done
build $D/l17.ptx matmul_simt_bf16 ptxas tc_matmul.cu
nvcc -arch=compute_90a -ptx mma_acc.cu -o $D/acc.ptx
for k in mma_a24 mma_a14 mma_a22 mma_a12 mma_a11; do build $D/acc.ptx $k ptxas mma_acc.cu; done
for v in uint4 uint2 unsigned; do
  nvcc -arch=compute_90a -ptx -DVEC=$v copy_loops.cu -o $D/c.ptx
  for k in k1 k2 k3; do build $D/c.ptx $k ptxas "copy_loops.cu VEC=$v"; done
done
for b in 32 40 48 64; do build $D/c.ptx k1 $b "copy_loops.cu VEC=unsigned"; done  # c.ptx: the last (4-byte) build
nvcc -arch=compute_90a -ptx copy_loops.cu -o $D/c.ptx
for b in 40 48 64; do build $D/c.ptx k1 $b "copy_loops.cu VEC=uint4"; done
rm -rf $D
