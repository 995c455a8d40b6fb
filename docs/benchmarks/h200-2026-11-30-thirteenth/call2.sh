#!/usr/bin/env bash
# Thirteenth session, call 2: the scatter computing its next quad's values before storing this
# one's (bench-gpu-ahead, next/scatter-ahead) against main 9d591f7 (bench-gpu-main), alternated
# three times on the histogram; radix sort and the Sieve once each.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
brief() { sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"param": //; s/"median_us"://; s/[{}]//g; s/"//g' "$1" | grep -v memcpy | grep -v latency | tr '\n' ';'; echo; }
for run in 1 2 3; do
  for b in main ahead; do
    bin/bench-gpu-$b --runs 10 --only histogram > /tmp/r.jsonl 2>/dev/null
    sed "s/^/$b $run /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- histogram $b run $run"; brief /tmp/r.jsonl
  done
done
for b in main ahead; do
  bin/bench-gpu-$b --icfp --runs 5 --only radix_sort > /tmp/r.jsonl 2>/dev/null
  sed "s/^/$b 1 /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- icfp $b"; brief /tmp/r.jsonl
  bin/bench-gpu-$b --expand --runs 5 --only sieve > /tmp/r.jsonl 2>/dev/null
  sed "s/^/$b 1 /" /tmp/r.jsonl >> "$OUT/bench.txt"; echo "-- sieve $b"; brief /tmp/r.jsonl
done
echo "== trials"
# The corpus of this pack (call 1's build): main's error context, whose claim word is read with
# ld.relaxed.gpu since a01d755, under its failure trials.
timeout 200 ./bin/corpus cuda::errors > "$OUT/tests-errors.log" 2>&1
echo "errors rc=$? $(grep -E 'test result' "$OUT/tests-errors.log")"; grep -E "FAILED|panicked" "$OUT/tests-errors.log" | head -5
