#!/usr/bin/env bash
# Call 2: the warp search from three rows (v2) against from any (v1) and the build before it,
# then the corpus trials that run the walk.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
for b in old v1 v2 old v2; do
  exe=./bin/bench-gpu-$b; [ $b = v2 ] && exe=./bin/bench-gpu
  echo "-- $b"; $exe --nested --runs 10 --only spmv,fold_seg 2>/dev/null | grep '"accel"\|"ranges"' | sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"n": [0-9]*, //; s/"param": //; s/"median_us"://' | tr '\n' ' '; echo
done
echo "== corpus"
for t in cuda::nested cuda::reduce cuda::irregular cuda::expand_permute cuda::examples; do ./bin/corpus $t 2>&1 | grep "test result"; done
