#!/usr/bin/env bash
# call 3: every cuda:: trial of the corpus on the final tree, then racecheck of the scans with 2 blocks a launch
set -u
cd "$(dirname "$0")"
bash run.sh tests
S=/usr/local/cuda/bin/compute-sanitizer
echo "== racecheck, grid capped at 2 blocks, cuda::scan up to 2^12"
ACCEL_GRID_CAP=2 ACCEL_GPU_TEST_MAX_LOG2=12 timeout 150 $S --tool racecheck --report-api-errors no --error-exitcode 1 --print-limit 20 bin/corpus --test-threads 1 cuda::scan > "$OUT/racecheck-scan.log" 2>&1; echo "racecheck rc=$?"; tail -4 "$OUT/racecheck-scan.log"
