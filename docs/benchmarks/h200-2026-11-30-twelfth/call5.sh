#!/usr/bin/env bash
# Twelfth session, call 5: the committed build (failures recorded where they happen in the
# batched walks and the scatter, kept to the kernel's end elsewhere; bench-gpu) against main
# (bench-gpu-main, ba9de8e): the nested SpMV and row variances with cuSPARSE after each pair, the
# ICFP programs and the expand cases once a build; then the corpus's trials of the skeletons it
# touches.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
brief() { sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"param": //; s/"median_us"://; s/[{}]//g; s/"//g' "$1" | grep -v memcpy | tr '\n' ';'; echo; }
exe_of() { if [ $1 = new ]; then echo bin/bench-gpu; else echo bin/bench-gpu-$1; fi; }
for b in main new; do
  $(exe_of $b) --nested --runs 10 --only spmv,variance > /tmp/r.jsonl 2>/dev/null
  sed "s/^/$b 1 /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- nested $b"; brief /tmp/r.jsonl
done
BASELINES_ONLY=sparse PYTHONUNBUFFERED=1 timeout 200 python3 baselines/baselines.py 10 > /tmp/s.jsonl 2>> "$OUT/sparse.err"
sed "s/^/cusparse 1 /" /tmp/s.jsonl >> "$OUT/bench.txt"; echo "-- cuSPARSE"; cut -c1-150 /tmp/s.jsonl
for b in main new; do
  $(exe_of $b) --icfp --runs 5 --only nbody,radix_sort,fluid > /tmp/r.jsonl 2>/dev/null
  sed "s/^/$b 1 /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- icfp $b"; brief /tmp/r.jsonl
  $(exe_of $b) --expand --runs 5 --only sieve,bfs > /tmp/r.jsonl 2>/dev/null
  sed "s/^/$b 1 /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- expand $b"; brief /tmp/r.jsonl
done
echo "== trials"
timeout 300 ./bin/corpus cuda::errors cuda::nested cuda::reduce cuda::irregular cuda::movement cuda::examples cuda::expand_permute > "$OUT/tests-subset.log" 2>&1
echo "rc=$? $(grep -E 'test result' "$OUT/tests-subset.log")"; grep -E "FAILED|panicked" "$OUT/tests-subset.log" | head -5
