#!/usr/bin/env bash
# call 1: the scan's items held in shared memory (v32: 32 a thread, 4 blocks; v32b3: 3 blocks; v24: 24 a thread) against main
set -u
cd "$(dirname "$0")"
for f in *.xz; do b="${f%.xz}"; [ -x "$b" ] || { xz -d -c "$f" > "$b" && chmod +x "$b"; }; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
if [ -x corpus ]; then
  echo "== corpus scans (v32)"
  timeout 240 ./corpus cuda::scan cuda::irregular cuda::fusion::scans cuda::small cuda::reduce::fold_seg cuda::expand_permute 2>&1 | tail -15 > "$OUT/corpus.txt"; tail -5 "$OUT/corpus.txt"
fi
for round in 1 2; do
  for b in main v32 v32b3 v24; do
    echo "== $b round $round"
    ./bench-$b --runs 20 --only scanl1 --max-log2 28 2>&1 >"$OUT/$b-$round.jsonl" | grep -v "^$" | grep scanl1
  done
done
for b in main v32; do
  echo "== $b icfp radix"
  ./bench-$b --icfp --runs 10 --only radix_sort 2>&1 >"$OUT/$b-radix.jsonl" | grep radix
done
