#!/usr/bin/env bash
# call 2: the corpus's scans on the v32b3 build; v32b3 and without the L2 prefetch against main; ncu source counters of v32b3's scan at 2^28
set -u
cd "$(dirname "$0")"
for f in *.xz; do b="${f%.xz}"; [ -x "$b" ] || { xz -d -c "$f" > "$b" && chmod +x "$b"; }; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
for filter in cuda::scan cuda::irregular cuda::fusion::scans cuda::small cuda::reduce::fold_seg cuda::expand_permute; do
  timeout 100 ./corpus "$filter" > "$OUT/corpus-${filter//:/_}.txt" 2>&1; echo "$filter rc=$?"; grep "test result" "$OUT/corpus-${filter//:/_}.txt"
done
for round in 1 2; do
  for b in main v32b3 nopf; do
    echo "== $b round $round"
    ./bench-$b --runs 20 --only scanl1 --max-log2 28 2>&1 >"$OUT/$b-$round.jsonl" | grep -v "^$" | grep scanl1
  done
done
echo "== ncu"
NCU=/usr/local/cuda/bin/ncu
timeout 200 $NCU -k regex:running_sum.*scan --launch-skip 20 --launch-count 1 --section SourceCounters --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section SpeedOfLight --section SchedulerStats -o /tmp/scan ./bench-v32b3 --runs 2 --only scanl1 --max-log2 28 > "$OUT/ncu-run.txt" 2>&1; echo "ncu rc=$?"; tail -3 "$OUT/ncu-run.txt"
$NCU -i /tmp/scan.ncu-rep --page details > "$OUT/ncu-details.txt" 2>&1
$NCU -i /tmp/scan.ncu-rep --page source --csv --print-source sass > "$OUT/ncu-source.csv" 2>"$OUT/ncu-source.err"; echo "source rc=$?"; head -c 300 "$OUT/ncu-source.err"
xz -k /tmp/scan.ncu-rep && cp /tmp/scan.ncu-rep.xz "$OUT/"
ls -la "$OUT"
