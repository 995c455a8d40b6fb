#!/usr/bin/env bash
# Ninth session, call 3: main before (bench-gpu-before, 32ad226), a long row's partials folded 16
# a lane at a time (bench-gpu-finish, 939e428), and that with the ranges walk's streaming loads
# (bench-gpu, b0ee76b), alternating, twice each; cuSPARSE; then the trials of the reductions, the
# nested and irregular operations and the examples on b0ee76b at full size.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
for run in 1 2; do
  for b in before finish stream; do
    exe=bin/bench-gpu; [ $b = stream ] || exe=bin/bench-gpu-$b
    echo "-- $b run $run"
    $exe --nested --runs 10 --only spmv,fold_seg > "$OUT/$b-$run.jsonl" 2>/dev/null
    sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"n": [0-9]*, //; s/"param": //; s/"median_us"://' "$OUT/$b-$run.jsonl" | tr '\n' ' '; echo
  done
done
echo "== cuSPARSE"; BASELINES_ONLY=sparse PYTHONUNBUFFERED=1 timeout 200 python3 baselines/baselines.py 10 2>/dev/null | cut -c1-150
for f in cuda::reduce cuda::nested cuda::irregular cuda::examples; do
  echo "== $f"; timeout 150 ./bin/corpus $f 2>&1 | grep "test result\|FAILED\|panicked" | head -5
done
