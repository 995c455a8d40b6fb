#!/bin/bash
# Every CPU group, main (ea49728, cpu-before) against the tasks behind trait objects
# (cpu-after), alternated twice on this host's cores.
cd "$(dirname "$0")"
nproc
for i in 1 2; do
  for b in before after; do
    echo "== $b run $i"
    ./cpu-$b --bench --noplot --warm-up-time 1 --measurement-time 2 2>&1 | grep -E "time:" -B1 | grep -v -- "^--" | grep -v "%"
  done
done
