#!/bin/bash
# acc7b-2 (issue 25, l17.mma.512): is lesson 17's ldmatrix + HMMA phase slower after an idle
# wait (cold L2: 344-782 cycles, warm: 201-249)? idle.toml: 16 steps of ldmatrix + 16 HMMA on a
# fixed shared tile after a clock64 spin of 0..1750 cycles (MODE 0) or one cold load (MODE 1),
# stamped per step (idle.cu). $RES/MODE-G-L2/st.npy holds the stamps.
W=$REQ/warplab
export WARPLAB_CONFIG_DIR=$PWD/configs
nvidia-smi --query-gpu=name,driver_version --format=csv > $RES/smi.txt 2>&1
for v in "0 16 cold" "1 16 cold" "1 16 warm" "0 1 cold"; do
  set -- $v
  timeout 12 $W run $REQ/idle.toml --set MODE=$1 --set G=$2 --backend gpu --l2 $3 --no-counters --dump $RES/m$1-g$2-$3 > $RES/m$1-g$2-$3.txt 2>&1
  echo "MODE=$1 G=$2 $3 rc=$?"; grep -E ' us|time' $RES/m$1-g$2-$3.txt | head -3
  python3 $REQ/show.py $RES/m$1-g$2-$3 2>&1 | head -40
done
