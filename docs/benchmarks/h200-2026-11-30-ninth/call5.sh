#!/usr/bin/env bash
# Ninth session, call 5: the single-pass scan with 8 f32 a thread and 6 (scanA, 6bb1e8c) or 4
# (scanB, 95aba70) blocks a multiprocessor, against main's 16 a thread and 3 blocks (bench-gpu),
# alternating, twice each.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
for b in scanA scanB; do
  python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" bin/bench-gpu-$b.xz bin/bench-gpu-$b && chmod +x bin/bench-gpu-$b
done
python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" bin/bench-gpu.xz bin/bench-gpu && chmod +x bin/bench-gpu
for run in 1 2; do
  for b in main scanA scanB; do
    exe=bin/bench-gpu; [ $b = main ] || exe=bin/bench-gpu-$b
    echo "-- $b run $run"; $exe --runs 10 --only scanl1 2>/dev/null | grep '"scanl1"' | sed 's/"bench": //; s/, "min_us.*//; s/"impl": //; s/"param": "", //; s/"median_us"://' | tr '\n' ' '; echo
  done
done
