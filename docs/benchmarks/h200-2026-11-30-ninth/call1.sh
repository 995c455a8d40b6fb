#!/usr/bin/env bash
# Ninth session, call 1: the ranges walk's value loads issued first (bench-gpu-first, e3fc2bb)
# and the next range pipelined (bench-gpu-pipelined, 72d6fe5) against main (bench-gpu),
# alternating, twice each; then cuSPARSE and CUB's segmented reduction.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
for f in bin/bench-gpu-first bin/bench-gpu-pipelined; do
  [ -x $f ] || { python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" $f.xz $f && chmod +x $f; }
done
for run in 1 2; do
  for b in main first pipelined; do
    exe=bin/bench-gpu; [ $b = main ] || exe=bin/bench-gpu-$b
    echo "-- $b run $run"
    $exe --nested --runs 10 --only spmv,fold_seg > "$OUT/walk-$b-$run.jsonl" 2>/dev/null
    sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"n": [0-9]*, //; s/"param": //; s/"median_us"://' "$OUT/walk-$b-$run.jsonl" | tr '\n' ' '; echo
  done
done
echo "== scanl1"; ./bin/bench-gpu --runs 10 --only scanl1 2>/dev/null | cut -c1-160
echo "== cuSPARSE"; BASELINES_ONLY=sparse PYTHONUNBUFFERED=1 timeout 200 python3 baselines/baselines.py 10 > "$OUT/sparse.jsonl" 2> "$OUT/sparse.err"; cat "$OUT/sparse.jsonl" | cut -c1-200
echo "== CUB"; nvcc -O3 -std=c++17 -arch=native -o /tmp/accel-cub-bench baselines/cub_bench.cu && /tmp/accel-cub-bench 10 | grep -E "seg|scan" > "$OUT/cub-seg.jsonl"; cut -c1-200 "$OUT/cub-seg.jsonl"
echo "== ncu scan"; timeout 150 ncu -k regex:scan --launch-count 10 --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section SchedulerStats ./bin/bench-gpu --runs 1 --only scanl1 > "$OUT/ncu-scan.txt" 2>&1; echo "ncu rc=$?"; grep -c Section "$OUT/ncu-scan.txt"
