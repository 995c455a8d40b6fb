#!/bin/bash
# Alternates main's and the fresh-storage build of the CPU bench on this host's cores.
cd "$(dirname "$0")"
nproc
for i in 1 2 3; do
  for b in main fresh; do
    echo "== $b run $i"
    ./cpu-$b --bench 'saxpy|stencil|black|dot' --noplot --warm-up-time 1 --measurement-time 3 2>&1 | grep -E "time:" -B1 | grep -v -- "^--" | grep -v "%"
  done
done
