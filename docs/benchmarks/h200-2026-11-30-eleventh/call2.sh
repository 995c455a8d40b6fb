#!/usr/bin/env bash
# Eleventh session, call 2: the build with the ranges walk built twice (3 and 4 blocks a
# multiprocessor, the host launching the 4-block build unless it spills): the CUDA driver tests
# (Kernel::local_bytes), the corpus's trials of every segmented reduction and nested map, then
# the same under memcheck up to 2^20 elements.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1; tail -3 "$OUT/driver.log"
for group in cuda::nested cuda::reduce cuda::irregular cuda::examples cuda::strategies cuda::errors; do
  timeout 240 ./bin/corpus $group --test-threads 8 > "$OUT/tests-${group#cuda::}.log" 2>&1; echo "$group rc=$? $(grep 'test result' "$OUT/tests-${group#cuda::}.log")"
done
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for group in cuda::nested cuda::reduce cuda::irregular; do
  ACCEL_GPU_TEST_MAX_LOG2=20 timeout 200 "$san" --tool memcheck --report-api-errors no --error-exitcode 1 --print-limit 100 \
    ./bin/corpus $group --test-threads 8 > "$OUT/memcheck-${group#cuda::}.log" 2>&1; echo "memcheck $group rc=$? $(grep -E 'test result|ERROR SUMMARY' "$OUT/memcheck-${group#cuda::}.log" | tr '\n' ' ')"
done
