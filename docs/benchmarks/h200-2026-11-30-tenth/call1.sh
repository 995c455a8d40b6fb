#!/usr/bin/env bash
# Tenth session, call 1: ncu of the sparse product's walk (main, 82e36e0) against cuSPARSE's kernel,
# memory metrics and sections.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver >/dev/null 2>&1
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sector_op_read_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed.sum,launch__registers_per_thread,launch__grid_size,launch__block_size,lts__t_sectors_srcunit_tex_op_read.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard
S="--section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section Occupancy --section LaunchStats"
echo "== ncu accel sections"; timeout 150 ncu --clock-control none -k regex:range_reduce --launch-count 1 $S ./bin/bench-gpu --nested --runs 1 --only spmv > "$OUT/ncu-accel-sections.txt" 2>&1; echo rc=$?
echo "== ncu cusparse sections"; BASELINES_ONLY=sparse timeout 200 ncu --clock-control none --target-processes all -k regex:'csr|spmv|SpMV|cusparse' --launch-count 1 $S python3 baselines/baselines.py 1 > "$OUT/ncu-cusparse-sections.txt" 2>&1; echo rc=$?
echo "== ncu accel"; timeout 150 ncu --clock-control none -k regex:range_reduce --launch-count 2 --metrics $M --csv ./bin/bench-gpu --nested --runs 1 --only spmv > "$OUT/ncu-accel.csv" 2>"$OUT/ncu-accel.err"; echo rc=$?
echo "== ncu cusparse"; BASELINES_ONLY=sparse timeout 240 ncu --clock-control none --target-processes all -k regex:'csr|spmv|SpMV|cusparse' --launch-count 4 --metrics $M --csv python3 baselines/baselines.py 1 > "$OUT/ncu-cusparse.csv" 2>"$OUT/ncu-cusparse.err"; echo rc=$?
python3 - "$OUT" <<'PY'
import csv, sys, io
for name in ["ncu-accel.csv", "ncu-cusparse.csv"]:
    text = open(f"{sys.argv[1]}/{name}").read()
    lines = [l for l in text.splitlines() if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if not rows: print(name, "no rows"); continue
    h = rows[0]; ki = h.index("Kernel Name"); mi = h.index("Metric Name"); vi = h.index("Metric Value"); ii = h.index("ID")
    cur = None
    for r in rows[1:]:
        if r[ii] != cur:
            cur = r[ii]; print(f"-- {name} #{cur} {r[ki][:90]}")
        print(f"   {r[mi]} = {r[vi]}")
PY
