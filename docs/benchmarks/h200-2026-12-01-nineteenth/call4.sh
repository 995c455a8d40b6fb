#!/usr/bin/env bash
# call 4: scanl1 and radix sort, main against the final tree, beside CUB, alternated, one call
set -u
cd "$(dirname "$0")"
for f in bin/bench-gpu*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f"; chmod +x "${f%.xz}"; done
nvcc -O3 -std=c++17 -arch=native -o /tmp/cub "baselines/cub_bench.cu" || echo "nvcc failed"
for round in 1 2; do
  for b in main new; do
    x=bin/bench-gpu; [ $b = main ] && x=bin/bench-gpu-main
    echo "== $b round $round"
    ./$x --runs 20 --only scanl1 --max-log2 28 2>&1 >"$OUT/$b-$round.jsonl" | grep scanl1
  done
  echo "== CUB round $round"
  /tmp/cub 20 > /tmp/cub-$round.jsonl; grep scanl1 /tmp/cub-$round.jsonl
done
cat /tmp/cub-1.jsonl /tmp/cub-2.jsonl > "$OUT/cub.jsonl"
for b in main new; do x=bin/bench-gpu; [ $b = main ] && x=bin/bench-gpu-main; echo "== $b radix"; ./$x --icfp --runs 10 --only radix_sort 2>&1 >/dev/null | grep radix; done
