#!/usr/bin/env bash
# The block-wide finish and the pipelined stencil: their corpus trials on the GPU, then main
# (bench-main) against this tree (bench-new), alternated twice.
cd "$(dirname "$0")"
for f in *.xz; do unxz -kf "$f"; chmod +x "${f%.xz}"; done
run() { # seconds name command...
  local s=$1 name=$2; shift 2
  timeout "$s" "$@" > "$OUT/$name.txt" 2>&1; echo "$name rc=$?"; grep -E "test result|passed|failed" "$OUT/$name.txt" | tail -n 2
}
run 60 tests-fold1 ./corpus cuda::reduce::fold1::i64_and_affine
run 45 tests-vector ./corpus cuda::reduce::vector
run 40 tests-stencil ./corpus cuda::stencil
for round in 1 2; do
  for b in main new; do
    timeout 30 ./bench-$b --runs 10 --only fold_all,dotp,stencil3x3 --max-log2 28 2>/dev/null | sed "s/^{/{\"build\": \"$b\", \"round\": $round, /" >> "$OUT/bench.jsonl"
  done
done
grep -h '"n": 268435456\|"n": 16777216\|stencil3x3' "$OUT/bench.jsonl" | grep -o '"build": "[a-z]*", "round": [0-9], "impl": "[a-z]*", "bench": "[a-z0-9_]*", "n": [0-9]*.*"median_us": [0-9.]*'
run 40 tests-reduce ./corpus cuda::reduce
run 25 tests-examples ./corpus cuda::examples
