"""The table of ratios: reads the JSON lines of the accel benchmark and the baselines (one object
per line: impl, bench, n, param, median_us, min_us, bytes) and prints, per case, accel's median,
its bandwidth and fraction of the device-copy bandwidth measured in the same run, and each
baseline's median with the ratio baseline / accel (above 1: accel is faster).

    python3 compare.py accel.jsonl cub.jsonl python.jsonl > table.md
"""

import json
import sys
from collections import defaultdict

rows = []
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))

by_case = defaultdict(dict)
for r in rows:
    by_case[(r["bench"], r["n"], r["param"])][r["impl"]] = r

# The device-copy bandwidth of the accel run (cuMemcpyDtoD of the largest size, bytes read and
# written), the reference for "fraction of copy".
copies = [r for r in rows if r["impl"] == "memcpy" and r["bench"] == "copy"]
copy_gbs = max((r["bytes"] / r["median_us"] / 1e3 for r in copies), default=None)

baselines = sorted({r["impl"] for r in rows} - {"accel", "memcpy"})
order = ["copy", "saxpy", "black_scholes", "fold_all", "dotp", "scanl1", "fold_seg", "histogram", "stencil3x3",
         "expand_permute", "sieve", "bfs", "fold_seg_walk", "spmv", "row_variance", "nbody", "mandelbrot", "radix_sort", "canny", "fluid",
         "latency", "first_call", "open_and_first_call"]


def size(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else f"{n:,}"


print(f"device-copy bandwidth (cuMemcpyDtoD, read + written): {copy_gbs:.0f} GB/s\n" if copy_gbs else "")
print("| bench | n | param | accel µs | GB/s | of copy | " + " | ".join(f"{b} µs (×)" for b in baselines) + " |")
print("|" + " --- |" * (6 + len(baselines)))
for key in sorted(by_case, key=lambda k: (order.index(k[0]) if k[0] in order else 99, k[1], k[2])):
    impls = by_case[key]
    main = impls.get("accel") or impls.get("memcpy") or impls.get("cudarc")
    if main is None:
        continue
    bench, n, param = key
    gbs = main["bytes"] / main["median_us"] / 1e3 if main["bytes"] else 0.0
    frac = f"{gbs / copy_gbs:.0%}" if copy_gbs and main["bytes"] else ""
    cells = []
    for b in baselines:
        r = impls.get(b)
        cells.append(f"{r['median_us']:.1f} ({r['median_us'] / main['median_us']:.2f}×)" if r else "")
    print(f"| {bench} | {size(n)} | {param} | {main['median_us']:.1f} | {gbs:.0f} | {frac} | " + " | ".join(cells) + " |")
