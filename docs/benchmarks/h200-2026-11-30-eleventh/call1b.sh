#!/usr/bin/env bash
# Eleventh session, call 1b: the ranges walk at four blocks a multiprocessor (blocks4,
# next/range-blocks4) and with the next row's end at hand and the last launch's loads together
# (second, next/second-end) against main (a943c34) on the nested benchmarks spmv and fold_seg,
# alternated twice; cuSPARSE; the duration of every kernel of the products under second (ncu).
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
brief() { sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"param": //; s/"median_us"://; s/[{}]//g' "$1" | tr '\n' ';'; echo; }
for run in 1 2; do
  for b in main blocks4 second; do
    exe=bin/bench-gpu; [ $b = main ] || exe=bin/bench-gpu-$b
    $exe --nested --runs 10 --only spmv,fold_seg > /tmp/r.jsonl 2>/dev/null
    sed "s/^/$b $run /" /tmp/r.jsonl >> "$OUT/walk.txt"; echo "-- walk $b run $run"; brief /tmp/r.jsonl
  done
done
echo "== cuSPARSE"; BASELINES_ONLY=sparse PYTHONUNBUFFERED=1 timeout 200 python3 baselines/baselines.py 10 > "$OUT/sparse.jsonl" 2> "$OUT/sparse.err"; cut -c1-200 "$OUT/sparse.jsonl"
echo "== ncu: every kernel of the nested map's products (bench-gpu-second), duration"
timeout 170 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:'^spmv_[0-9a-f]+_n' --launch-count 150 --csv ./bin/bench-gpu-second --nested --runs 1 --only spmv 2>/dev/null | grep '^"' > "$OUT/ncu-spmv-second.csv"; echo rc=$?
python3 - "$OUT/ncu-spmv-second.csv" <<'PY'
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
