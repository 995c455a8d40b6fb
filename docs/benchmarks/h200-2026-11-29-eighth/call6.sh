#!/usr/bin/env bash
# Call 6: the sparse products with the embedded SASS (ptxas of the build machine) against the
# driver's JIT of the PTX (ACCEL_SASS=off), alternating.
cd "$(dirname "$0")"
python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" bin/bench-gpu.xz bin/bench-gpu && chmod +x bin/bench-gpu
for mode in sass jit sass jit; do
  if [ $mode = jit ]; then export ACCEL_SASS=off; else unset ACCEL_SASS; fi
  echo "-- $mode"; ./bin/bench-gpu --nested --runs 10 --only spmv 2>/dev/null | grep '"spmv"' | sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"n": [0-9]*, //; s/"param": //; s/"median_us"://' | tr '\n' ' '; echo
done
