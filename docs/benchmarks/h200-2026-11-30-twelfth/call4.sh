#!/usr/bin/env bash
# Twelfth session, call 4: the pack (failures recorded where they happen unless a kernel's
# closures loop; bench-gpu) against main (bench-gpu-main, ba9de8e): the nested SpMV and row
# variances alternated twice with cuSPARSE after each pair; the regular cases, the expand cases
# and the ICFP programs once a build, alternated; then memcheck on the error trials.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
brief() { sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"param": //; s/"median_us"://; s/[{}]//g; s/"//g' "$1" | grep -v memcpy | tr '\n' ';'; echo; }
exe_of() { if [ $1 = new ]; then echo bin/bench-gpu; else echo bin/bench-gpu-$1; fi; }
for run in 1 2; do
  for b in main new; do
    $(exe_of $b) --nested --runs 10 --only spmv,variance > /tmp/r.jsonl 2>/dev/null
    sed "s/^/$b $run /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- nested $b run $run"; brief /tmp/r.jsonl
  done
  BASELINES_ONLY=sparse PYTHONUNBUFFERED=1 timeout 200 python3 baselines/baselines.py 10 > /tmp/s.jsonl 2>> "$OUT/sparse.err"
  sed "s/^/cusparse $run /" /tmp/s.jsonl >> "$OUT/bench.txt"; echo "-- cuSPARSE run $run"; cut -c1-150 /tmp/s.jsonl
done
for b in main new; do
  $(exe_of $b) --runs 10 --only saxpy,fold_all,dotp,scanl1,black_scholes,histogram,stencil3x3 > /tmp/r.jsonl 2>/dev/null
  sed "s/^/$b 1 /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- regular $b"; brief /tmp/r.jsonl
  $(exe_of $b) --expand --runs 5 --only sieve,bfs > /tmp/r.jsonl 2>/dev/null
  sed "s/^/$b 1 /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- expand $b"; brief /tmp/r.jsonl
  $(exe_of $b) --icfp --runs 5 > /tmp/r.jsonl 2>/dev/null
  sed "s/^/$b 1 /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- icfp $b"; brief /tmp/r.jsonl
done
echo "== memcheck cuda::errors"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ACCEL_GPU_TEST_MAX_LOG2=20 timeout 150 "$san" --tool memcheck --report-api-errors no --error-exitcode 1 --print-limit 100 \
  ./bin/corpus cuda::errors --test-threads 1 > "$OUT/memcheck-errors.log" 2>&1; echo "rc=$? $(grep -E 'test result|ERROR SUMMARY' "$OUT/memcheck-errors.log" | tr '\n' ' ')"
