#!/usr/bin/env bash
# Tenth session, call 3: the ranges walk reading a lane's run 16 bytes a load (bench-gpu-runs,
# next/stream-runs) against main (82e36e0), alternated twice; cuSPARSE; ncu of the new walk.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
for run in 1 2; do
  for b in main runs; do
    exe=bin/bench-gpu; [ $b = main ] || exe=bin/bench-gpu-$b
    $exe --nested --runs 10 --only spmv,fold_seg > "$OUT/walk-$b-$run.jsonl" 2>/dev/null
    echo "-- $b run $run"; sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"n": [0-9]*, //; s/"param": //; s/"median_us"://; s/[{}]//g' "$OUT/walk-$b-$run.jsonl" | tr '\n' ';'; echo
  done
done
echo "== cuSPARSE"; BASELINES_ONLY=sparse PYTHONUNBUFFERED=1 timeout 200 python3 baselines/baselines.py 10 > "$OUT/sparse.jsonl" 2> "$OUT/sparse.err"; cut -c1-200 "$OUT/sparse.jsonl"
M=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed.sum,launch__registers_per_thread
echo "== ncu runs"; timeout 120 ncu --clock-control none -k regex:'^spmv_[0-9a-f]+_n[0-9]+_range_reduce' --launch-count 2 --metrics $M --csv ./bin/bench-gpu-runs --nested --runs 1 --only spmv 2>/dev/null | grep '^"' > "$OUT/ncu-runs.csv"; echo rc=$?
python3 - "$OUT/ncu-runs.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[0]; mi = h.index("Metric Name"); vi = h.index("Metric Value"); ii = h.index("ID"); ki = h.index("Kernel Name")
for r in rows[1:]:
    print(r[ii], r[ki][:40], r[mi], r[vi])
PY
