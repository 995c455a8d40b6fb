#!/usr/bin/env bash
# Ninth session, call 2 (main with the value loads first, 32ad226): kernel durations of the
# sparse products under ncu (one metric), the 2^28 scan's warp states, then every cuda:: trial.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
echo "== ncu spmv"; timeout 200 ncu --clock-control none --metrics gpu__time_duration.sum --csv ./bin/bench-gpu --nested --runs 1 --only spmv > "$OUT/ncu-spmv.csv" 2>"$OUT/ncu-spmv.err"; echo "rc=$?"; grep -c duration "$OUT/ncu-spmv.csv"
echo "== ncu scan"; timeout 150 ncu --clock-control none -k regex:scan --launch-skip 15 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis --section SchedulerStats ./bin/bench-gpu --runs 1 --only scanl1 > "$OUT/ncu-scan.txt" 2>&1; echo "rc=$?"; grep "CC 9.0\|Duration\|DRAM Through\|Stall\|Warp Cycles" "$OUT/ncu-scan.txt" | head
bash run.sh tests; tail -3 "$OUT/tests.log"
