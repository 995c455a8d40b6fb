#!/usr/bin/env bash
# Call 3: every cuda:: trial of the corpus on the final build, then the final walk against the
# build before it (fold_seg walks and sparse products).
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver tests
for b in old new; do
  exe=./bin/bench-gpu-$b; [ $b = new ] && exe=./bin/bench-gpu
  echo "-- $b"; timeout 80 $exe --nested --runs 10 --only spmv,fold_seg 2>/dev/null | grep '"accel"\|"ranges"' | sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"n": [0-9]*, //; s/"param": //; s/"median_us"://' | tr '\n' ' '; echo
done
