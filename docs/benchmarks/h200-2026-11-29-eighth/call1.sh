#!/usr/bin/env bash
# Call 1: the ranges walk's warp search against the build before it (fold_seg walks and sparse
# products, alternating), cuSPARSE, then the corpus trials that run the walk.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
cat "$OUT/summary.txt"
for k in 1 2; do
  echo "== old $k"; ./bin/bench-gpu-old --nested --runs 10 --only spmv,fold_seg > "$OUT/old-$k.jsonl" 2> "$OUT/old-$k.err"; tail -1 "$OUT/old-$k.err"
  echo "== new $k"; ./bin/bench-gpu --nested --runs 10 --only spmv,fold_seg > "$OUT/new-$k.jsonl" 2> "$OUT/new-$k.err"; tail -1 "$OUT/new-$k.err"
done
echo "== cuSPARSE"; BASELINES_ONLY=sparse PYTHONUNBUFFERED=1 python3 baselines/baselines.py 10 > "$OUT/sparse.jsonl" 2>&1; tail -3 "$OUT/sparse.jsonl"
for f in old-1 new-1 old-2 new-2; do echo "-- $f"; grep -h '"accel"\|"ranges"' "$OUT/$f.jsonl" | sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"n": [0-9]*, //'; done
echo "== corpus"
./bin/corpus cuda::nested cuda::reduce cuda::irregular cuda::expand_permute cuda::examples 2>&1 | tail -4
