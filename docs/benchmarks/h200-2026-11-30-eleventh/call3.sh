#!/usr/bin/env bash
# Eleventh session, call 3: the ranges walk built twice, the host launching the 4-block build
# unless it spills (bench-gpu) against main before it (bench-gpu-before, a943c34), alternated
# twice with cuSPARSE after each pair (bench-gpu --nested --runs 10 --only spmv,fold_seg); then
# CUB's segmented sums.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
brief() { grep -E '"(accel|ranges|rows)", "bench": "(spmv|fold_seg_walk)"' "$1" | sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"n": [0-9]*, //; s/"median_us"://; s/[{}]//g; s/fold_seg_walk/fs/; s/"//g' | tr '\n' ';'; echo; }
for run in 1 2; do
  for b in before main; do
    exe=bin/bench-gpu; [ $b = main ] || exe=bin/bench-gpu-$b
    $exe --nested --runs 10 --only spmv,fold_seg > /tmp/r.jsonl 2>/dev/null
    sed "s/^/$b $run /" /tmp/r.jsonl >> "$OUT/walk.txt"; echo "-- $b run $run"; brief /tmp/r.jsonl
  done
  BASELINES_ONLY=sparse PYTHONUNBUFFERED=1 timeout 200 python3 baselines/baselines.py 10 > /tmp/s.jsonl 2>> "$OUT/sparse.err"
  sed "s/^/cusparse $run /" /tmp/s.jsonl >> "$OUT/sparse.txt"; echo "-- cuSPARSE run $run"; cut -c1-150 /tmp/s.jsonl
done
echo "== CUB"; nvcc -O3 -std=c++17 -arch=native -o /tmp/accel-cub-bench baselines/cub_bench.cu && /tmp/accel-cub-bench 10 > "$OUT/cub.jsonl"; grep -E '"fold_seg"' "$OUT/cub.jsonl" | cut -c1-130
echo "== memcheck cuda::nested, one test thread"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ACCEL_GPU_TEST_MAX_LOG2=20 timeout 240 "$san" --tool memcheck --report-api-errors no --error-exitcode 1 --print-limit 100 \
  ./bin/corpus cuda::nested --test-threads 1 > "$OUT/memcheck-nested-1.log" 2>&1; echo "rc=$? $(grep -E 'test result|ERROR SUMMARY' "$OUT/memcheck-nested-1.log" | tr '\n' ' ')"
