#!/usr/bin/env bash
# Profile main's stencil and fold_all on the GPU host: times beside the copy, then ncu sections.
cd "$(dirname "$0")"
for f in *.xz; do unxz -kf "$f"; chmod +x "${f%.xz}"; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
./bench-main --runs 10 --only stencil3x3,fold_all --max-log2 28 > "$OUT/time-main.jsonl" 2> "$OUT/time-main.err"
tail -n 20 "$OUT/time-main.jsonl"
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats --section LaunchStats --section SourceCounters"
timeout 200 ncu --clock-control none $S -k regex:blur --launch-skip 2 -c 1 ./bench-main --runs 1 --only stencil3x3 --max-log2 26 > "$OUT/ncu-stencil.txt" 2>&1
echo "stencil ncu rc=$?"
timeout 200 ncu --clock-control none $S -k regex:sum -c 40 ./bench-main --runs 1 --only fold_all --max-log2 28 > "$OUT/ncu-fold.txt" 2>&1
echo "fold ncu rc=$?"
grep -n "Duration\|DRAM Throughput\|Achieved Occupancy\|Registers Per\|Grid Size" "$OUT/ncu-stencil.txt" | head -20
