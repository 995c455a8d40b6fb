"""Plots the benchmark results: for each benchmark with several sizes, bandwidth against size for
accel and every baseline; for the rest, a bar per implementation.

    python3 plot.py out.png accel.jsonl cub.jsonl python.jsonl
"""

import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = []
for path in sys.argv[2:]:
    with open(path) as f:
        rows += [json.loads(line) for line in f if line.strip().startswith("{")]

series = defaultdict(lambda: defaultdict(list))  # bench -> impl -> [(n, GB/s)]
bars = defaultdict(dict)  # "bench param" -> impl -> µs
for r in rows:
    if not r["bytes"]:
        continue
    gbs = r["bytes"] / r["median_us"] / 1e3
    if r["param"]:
        bars[f"{r['bench']} {r['param']}"][r["impl"]] = gbs
    else:
        series[r["bench"]][r["impl"]].append((r["n"], gbs))
multi = {b: s for b, s in series.items() if any(len(v) > 1 for v in s.values())}
for b, s in series.items():
    if b not in multi:
        for impl, pts in s.items():
            bars[f"{b} {pts[0][0]:,}"][impl] = pts[0][1]

panels = len(multi) + 1
fig, axes = plt.subplots((panels + 2) // 3, 3, figsize=(16, 4.5 * ((panels + 2) // 3)))
axes = axes.flatten()
for ax, (bench, s) in zip(axes, sorted(multi.items())):
    for impl, pts in sorted(s.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=impl)
    ax.set_xscale("log", base=2)
    ax.set_title(bench)
    ax.set_xlabel("elements")
    ax.set_ylabel("GB/s")
    ax.legend(fontsize=8)
ax = axes[len(multi)]
labels = sorted(bars)
impls = sorted({i for v in bars.values() for i in v})
width = 0.8 / max(len(impls), 1)
for k, impl in enumerate(impls):
    ax.bar([x + k * width for x in range(len(labels))], [bars[l].get(impl, 0) for l in labels], width, label=impl)
ax.set_xticks([x + 0.4 for x in range(len(labels))], labels, rotation=60, ha="right", fontsize=7)
ax.set_ylabel("GB/s")
ax.legend(fontsize=7)
for ax in axes[len(multi) + 1:]:
    ax.axis("off")
fig.tight_layout()
fig.savefig(sys.argv[1], dpi=110)
