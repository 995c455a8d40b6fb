#!/usr/bin/env bash
# Eleventh session, call 1a: the striped fold with four quads of a lane in flight (quads4,
# next/quads4) and software-pipelined (pipelined, next/striped-pipelined) against main (a943c34) on
# fold_all, dotp and fold_seg, alternated twice; then CUB.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
brief() { sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"param": //; s/"median_us"://; s/[{}]//g' "$1" | tr '\n' ';'; echo; }
for run in 1 2; do
  for b in main quads4 pipelined; do
    exe=bin/bench-gpu; [ $b = main ] || exe=bin/bench-gpu-$b
    $exe --runs 10 --only fold_all,dotp,fold_seg > /tmp/r.jsonl 2>/dev/null
    sed "s/^/$b $run /" /tmp/r.jsonl >> "$OUT/fold.txt"; echo "-- fold $b run $run"; brief /tmp/r.jsonl
  done
done
echo "== CUB"; nvcc -O3 -std=c++17 -arch=native -o /tmp/accel-cub-bench baselines/cub_bench.cu && /tmp/accel-cub-bench 10 > "$OUT/cub.jsonl"; grep -E '"(fold_all|fold_seg)"' "$OUT/cub.jsonl" | cut -c1-160
echo "== tools"; command -v nsys ncu nvcc; ls /usr/local/cuda/bin 2>/dev/null | tr "\n" " "; echo
