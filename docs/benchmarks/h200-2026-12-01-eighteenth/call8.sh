#!/usr/bin/env bash
set -u
cd "$(dirname "$0")"
for b in main S2; do [ -x bench-$b ] || { xz -d -c bench-$b.xz > bench-$b && chmod +x bench-$b; }; done
xz -d -c corpus.xz > corpus && chmod +x corpus
for b in main S2; do
  echo "== $b"
  ./bench-$b --runs 20 --only fold_all,dotp,fold_seg --max-log2 28 2>&1 >"$OUT/$b.jsonl" | grep -v "^$" | grep "n=268435456\|n=16777216 \|copy"
done
echo "== tests"
timeout 100 ./corpus cuda::reduce --test-threads 8 > "$OUT/tests-reduce.txt" 2>&1; echo "rc=$?"
grep -c "\.\.\. ok" "$OUT/tests-reduce.txt"; grep "FAILED\|failed\|panicked\|test result" "$OUT/tests-reduce.txt" | head -20
