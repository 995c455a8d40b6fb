#!/usr/bin/env bash
# Call 4: reductions (results left on the device), dot, saxpy, histogram, fold_seg and
# Black-Scholes beside CUB and the stream baselines (CuPy, PyTorch, torch.compile), one call.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
echo "== accel"; ./bin/bench-gpu --runs 10 --only fold_all,dotp,saxpy,black_scholes,histogram,fold_seg > "$OUT/accel.jsonl" 2> "$OUT/accel.err"; tail -1 "$OUT/accel.err"
echo "== CUB"; nvcc -O3 -std=c++17 -arch=native -o /tmp/accel-cub-bench baselines/cub_bench.cu && /tmp/accel-cub-bench 10 > "$OUT/cub.jsonl"
echo "== python"; BASELINES_ONLY=stream PYTHONUNBUFFERED=1 timeout 200 python3 baselines/baselines.py 10 > "$OUT/python.jsonl" 2> "$OUT/python.err"; tail -2 "$OUT/python.err"
python3 baselines/compare.py "$OUT/accel.jsonl" "$OUT/cub.jsonl" "$OUT/python.jsonl" > "$OUT/table.md"; cat "$OUT/table.md"
