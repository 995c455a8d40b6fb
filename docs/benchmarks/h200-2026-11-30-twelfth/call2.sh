#!/usr/bin/env bash
# Twelfth session, call 2: failures recorded where they happen (rec, next/record-at-once: no first
# failure carried in registers), and the same with the 4-block ranges walk unless it spills 16
# bytes more (rec16, next/rec16), against main (ba9de8e): the nested SpMV and row variances
# alternated twice with cuSPARSE; then the regular cases, the expand cases and three ICFP
# programs once a build.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
brief() { sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"param": //; s/"median_us"://; s/[{}]//g; s/"//g' "$1" | grep -v memcpy | tr '\n' ';'; echo; }
exe_of() { if [ $1 = main ]; then echo bin/bench-gpu; else echo bin/bench-gpu-$1; fi; }
for run in 1 2; do
  for b in main rec rec16; do
    $(exe_of $b) --nested --runs 10 --only spmv,variance > /tmp/r.jsonl 2>/dev/null
    sed "s/^/$b $run /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- nested $b run $run"; brief /tmp/r.jsonl
  done
  BASELINES_ONLY=sparse PYTHONUNBUFFERED=1 timeout 200 python3 baselines/baselines.py 10 > /tmp/s.jsonl 2>> "$OUT/sparse.err"
  sed "s/^/cusparse $run /" /tmp/s.jsonl >> "$OUT/bench.txt"; echo "-- cuSPARSE run $run"; cut -c1-150 /tmp/s.jsonl
done
for b in main rec; do
  $(exe_of $b) --runs 10 --only saxpy,fold_all,dotp,scanl1,black_scholes,histogram,stencil3x3 > /tmp/r.jsonl 2>/dev/null
  sed "s/^/$b 1 /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- regular $b"; brief /tmp/r.jsonl
  $(exe_of $b) --expand --runs 5 --only sieve,bfs > /tmp/r.jsonl 2>/dev/null
  sed "s/^/$b 1 /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- expand $b"; brief /tmp/r.jsonl
  $(exe_of $b) --icfp --runs 5 --only radix_sort,fluid,nbody > /tmp/r.jsonl 2>/dev/null
  sed "s/^/$b 1 /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- icfp $b"; brief /tmp/r.jsonl
done
