#!/usr/bin/env bash
# Eleventh session, call 0 (main, a943c34): the nested maps' corpus trials (the new
# narrow_and_paired_rows and every_walk's pairs), the duration of every kernel of the nested
# products (ncu), and ncu of fold_all's kernel.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
echo "== tests: cuda::nested"
timeout 200 ./bin/corpus cuda::nested --test-threads 8 > "$OUT/tests-nested.log" 2>&1; echo rc=$?
grep -E "narrow_and_paired|every_walk|test result" "$OUT/tests-nested.log" | tail -5
echo "== ncu: every kernel of the nested map's products (main), duration"
timeout 170 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:'^spmv_[0-9a-f]+_n' --launch-count 150 --csv ./bin/bench-gpu --nested --runs 1 --only spmv 2>/dev/null | grep '^"' > "$OUT/ncu-spmv.csv"; echo rc=$?
python3 - "$OUT/ncu-spmv.csv" <<'PY'
import csv, sys, re
rows = list(csv.reader(open(sys.argv[1])))
if not rows: print("no rows"); sys.exit()
h = rows[0]; ki = h.index("Kernel Name"); vi = h.index("Metric Value"); ii = h.index("ID")
seq = []
for r in rows[1:]:
    name = re.sub(r"^spmv_[0-9a-f]+_", "", r[ki].split("(")[0])[:50]
    if seq and seq[-1][0] == name: seq[-1][1].append(r[vi].replace(",", ""))
    else: seq.append((name, [r[vi].replace(",", "")]))
with open(sys.argv[1].replace(".csv", ".txt"), "w") as f:
    for name, ds in seq: print(name, " ".join(ds), file=f)
print(" | ".join(f"{name.replace('range_', 'r.')} " + ",".join(f"{float(d)/1e3:.0f}" for d in ds) for name, ds in seq))
PY
echo "== ncu fold_all"
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__occupancy_limit_registers,smsp__average_warp_latency_issue_stalled_long_scoreboard,sm__inst_executed.sum
timeout 100 ncu --clock-control none -k regex:'^sum_' --launch-count 2 --metrics $M --csv ./bin/bench-gpu --runs 1 --only fold_all 2>/dev/null | grep '^"' > "$OUT/ncu-fold.csv"; echo rc=$?
python3 - "$OUT/ncu-fold.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
if not rows: print("no rows"); sys.exit()
h = rows[0]; ki = h.index("Kernel Name"); mi = h.index("Metric Name"); vi = h.index("Metric Value"); ii = h.index("ID")
for r in rows[1:]: print(r[ii], r[ki][:40], r[mi], r[vi])
PY
