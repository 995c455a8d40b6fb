#!/usr/bin/env bash
# Alternates bench binaries on the given cases: run.sh "CASES" NAME...
set -u
cd "$(dirname "$0")"
cases=$1; shift
for b in "$@"; do [ -x bench-$b ] || { xz -d -c bench-$b.xz > bench-$b && chmod +x bench-$b; }; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
for round in 1 2; do
  for b in "$@"; do
    echo "== $b round $round"
    ./bench-$b --runs 20 --only "$cases" --max-log2 28 2>&1 >"$OUT/$b-$round.jsonl" | grep -v "^$"
  done
done
