#!/usr/bin/env bash
# main (one 8-row batch of loads, then its stores), p4 and p8 (the next 4- or 8-row batch's loads
# issued before this batch's stores), alternated three times; then ncu of p4 and p8.
cd "$(dirname "$0")"
for f in *.xz; do unxz -kf "$f"; chmod +x "${f%.xz}"; done
for round in 1 2 3; do
  for b in main p4 p8; do
    ./bench-$b --runs 10 --only stencil3x3 --max-log2 26 2>/dev/null | sed "s/^{/{\"build\": \"$b\", \"round\": $round, /" >> "$OUT/stencil.jsonl"
  done
done
grep -h "stencil3x3\|\"n\": 67108864" "$OUT/stencil.jsonl" | grep -o '"build": "[a-z0-9]*", "round": [0-9], "impl": "[a-z]*", "bench": "[a-z0-9]*".*"median_us": [0-9.]*'
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats"
for b in p4 p8; do
  timeout 100 ncu --clock-control none $S -k regex:blur --launch-skip 2 -c 1 ./bench-$b --runs 1 --only stencil3x3 --max-log2 26 > "$OUT/ncu-stencil-$b.txt" 2>&1
  grep "Duration\|DRAM Throughput\|Achieved Occupancy\|Registers Per\|L2 Hit\|No Eligible" "$OUT/ncu-stencil-$b.txt"
done
