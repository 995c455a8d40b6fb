#!/usr/bin/env bash
# Tenth session, call 2: the scan builds (main 82e36e0; remat 8720352; remat4 9b23514; remat24
# b86d202) alternated twice, 2^28 f32 inclusive sums, then CUB's scan.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
for run in 1 2; do
  for b in main remat remat4 remat24; do
    exe=bin/bench-gpu; [ $b = main ] || exe=bin/bench-gpu-$b
    $exe --runs 10 --only scanl1 > "$OUT/scan-$b-$run.jsonl" 2>/dev/null
    echo "-- $b run $run: $(grep 268435456 "$OUT/scan-$b-$run.jsonl" | sed 's/.*"median_us": //; s/, "bytes.*//')"
  done
done
echo "== CUB"; nvcc -O3 -std=c++17 -arch=native -o /tmp/accel-cub-bench baselines/cub_bench.cu && /tmp/accel-cub-bench 10 | grep scan > "$OUT/cub-scan.jsonl"; grep 268435456 "$OUT/cub-scan.jsonl" | cut -c1-200
