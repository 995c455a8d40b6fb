#!/usr/bin/env bash
# Tenth session, call 5: memcheck of every cuda:: trial, then racecheck of the scans (the tile's
# thread index and 4 blocks a multiprocessor), at full grids and with grids of 2 blocks.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver memcheck
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for cap in "" 2; do
  echo "== racecheck cuda::scan grid cap '${cap}'"
  env ${cap:+ACCEL_GRID_CAP=$cap} ACCEL_GPU_TEST_MAX_LOG2=12 timeout 120 "$san" --tool racecheck --report-api-errors no --error-exitcode 1 --print-limit 100 \
    bin/corpus cuda::scan --test-threads 1 > "$OUT/racecheck-scan${cap:+-grid$cap}.log" 2>&1; echo "rc=$?"
  grep -E "test result|ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/racecheck-scan${cap:+-grid$cap}.log" | tail -3
done
cat "$OUT/summary.txt"
