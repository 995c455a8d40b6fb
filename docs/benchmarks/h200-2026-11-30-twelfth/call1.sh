#!/usr/bin/env bash
# Twelfth session, call 1: a block's warps interleaving their parts in the striped reduction
# (interleave, next/interleave) on fold_all, dotp, fold_seg, and checked reads through the
# non-coherent path (nc, next/nc-gather) on the nested SpMV, against main (ba9de8e), alternated
# twice, cuSPARSE after each round; then CUB.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
brief() { sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"param": //; s/"median_us"://; s/[{}]//g; s/"//g' "$1" | grep -v memcpy | tr '\n' ';'; echo; }
for run in 1 2; do
  for b in main interleave; do
    exe=bin/bench-gpu; [ $b = main ] || exe=bin/bench-gpu-$b
    $exe --runs 10 --only fold_all,dotp,fold_seg > /tmp/r.jsonl 2>/dev/null
    sed "s/^/$b $run /" /tmp/r.jsonl >> "$OUT/fold.txt"; echo "-- fold $b run $run"; brief /tmp/r.jsonl
  done
  for b in main nc; do
    exe=bin/bench-gpu; [ $b = main ] || exe=bin/bench-gpu-$b
    $exe --nested --runs 10 --only spmv > /tmp/r.jsonl 2>/dev/null
    sed "s/^/$b $run /" /tmp/r.jsonl >> "$OUT/fold.txt"; echo "-- spmv $b run $run"; brief /tmp/r.jsonl
  done
  BASELINES_ONLY=sparse PYTHONUNBUFFERED=1 timeout 200 python3 baselines/baselines.py 10 > /tmp/s.jsonl 2>> "$OUT/sparse.err"
  sed "s/^/cusparse $run /" /tmp/s.jsonl >> "$OUT/fold.txt"; echo "-- cuSPARSE run $run"; cut -c1-150 /tmp/s.jsonl
done
echo "== CUB"; nvcc -O3 -std=c++17 -arch=native -o /tmp/accel-cub-bench baselines/cub_bench.cu && /tmp/accel-cub-bench 10 > "$OUT/cub.jsonl"; grep -E '"(fold_all|fold_seg|dot)' "$OUT/cub.jsonl" | cut -c1-160
