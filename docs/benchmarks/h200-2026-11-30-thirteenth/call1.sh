#!/usr/bin/env bash
# Thirteenth session, call 1: the permute's privatised output in 32 interleaved copies, one a
# lane's bank (bench-gpu), against main 9d591f7 (bench-gpu-main), alternated twice: the
# histogram, the Sieve and BFS (expand fused with permute), radix sort; CUB's
# histogram after; then the corpus's trials of the permutes.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
brief() { sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"param": //; s/"median_us"://; s/[{}]//g; s/"//g' "$1" | grep -v memcpy | tr '\n' ';'; echo; }
exe_of() { if [ $1 = new ]; then echo bin/bench-gpu; else echo bin/bench-gpu-$1; fi; }
for run in 1 2; do
  for b in main new; do
    $(exe_of $b) --runs 10 --only histogram > /tmp/r.jsonl 2>/dev/null
    sed "s/^/$b $run /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- histogram $b run $run"; brief /tmp/r.jsonl
  done
done
for b in main new; do
  $(exe_of $b) --expand --runs 5 --only sieve,bfs > /tmp/r.jsonl 2>/dev/null
  sed "s/^/$b 1 /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- expand $b"; brief /tmp/r.jsonl
  $(exe_of $b) --icfp --runs 5 --only radix_sort > /tmp/r.jsonl 2>/dev/null
  sed "s/^/$b 1 /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- icfp $b"; brief /tmp/r.jsonl
done
echo "== CUB"; nvcc -O3 -std=c++17 -arch=native -o /tmp/accel-cub-bench baselines/cub_bench.cu && /tmp/accel-cub-bench 10 > "$OUT/cub.jsonl"; grep -E '"histogram' "$OUT/cub.jsonl" | cut -c1-160
echo "== trials"
for g in movement small_types expand_permute examples; do
  timeout 150 ./bin/corpus cuda::$g > "$OUT/tests-$g.log" 2>&1
  echo "$g rc=$? $(grep -E 'test result' "$OUT/tests-$g.log")"; grep -E "FAILED|panicked" "$OUT/tests-$g.log" | head -5
done
