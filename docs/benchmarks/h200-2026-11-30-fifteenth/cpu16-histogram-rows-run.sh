#!/bin/bash
# The histogram with its sources walked a row at a time (cpu-rows) against 0ea00d1 (cpu-fresh),
# alternated four times on this host's cores.
cd "$(dirname "$0")"
for i in 1 2 3 4; do
  for b in fresh rows; do
    echo "== $b run $i"
    ./cpu-$b --bench 'histogram' --noplot --warm-up-time 1 --measurement-time 2 2>&1 | grep -E "time:" -B1 | grep -v -- "^--" | grep -v "%"
  done
done
