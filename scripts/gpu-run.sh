#!/usr/bin/env bash
# The runner of gpu-pack/ (scripts/gpu-pack.sh copies it there as run.sh): runs on a GPU machine
# that has no Rust toolchain.
#
#   bash gpu-pack/run.sh [driver] [tests] [outside] [memcheck] [racecheck] [racecheck-a] [racecheck-b]
#                        [racecheck-grid] [tests-grid] [fusion] [perf] [benches] [compare] [icfp]
#   (no argument: all but compare, icfp, racecheck-grid and tests-grid)
#
# - driver: accel-runtime's CUDA driver tests (bin/cuda_driver, bin/cuda_fault: the device layer
#   with hand-written PTX, streams included, and a deliberately faulting kernel, which is why
#   cuda_fault is not run under compute-sanitizer);
# - tests: the cuda:: trials of the test corpus (bin/corpus; its cpu:: trials run where it is
#   built);
# - outside: the package outside the workspace (accel-tests/outside: a program calling into an
#   accel dependency), checked on the CPU and this GPU against its reference;
# - memcheck, racecheck: the same under compute-sanitizer, any error it reports failing the step;
#   memcheck with inputs up to 2^20 elements on 8 test threads, then bin/cuda_driver (the
#   allocator's reuse of memory across streams), racecheck (much slower: it tracks
#   every shared-memory access) up to 2^12 on one thread (more threads make the tool lose track
#   of launches), without the one trial that calls from 8 host threads at once for the same
#   reason (cuda::device::concurrent; its scan kernels run under racecheck in the scan trials);
#   racecheck is two steps, racecheck-a and racecheck-b (the expand_permute trials), each under
#   10 minutes on an H200, to be run in calls of their own;
# - racecheck-grid, tests-grid: every launch capped at 2 blocks (ACCEL_GRID_CAP), so that small
#   inputs take the grid-stride paths (a block's second tile of a scan, a warp's second range):
#   racecheck on the scans, the irregular operations and the reductions up to 2^12, and every
#   cuda:: trial up to 2^16;
# - fusion: the `fusion` example built with fusion and without (ACCEL_FUSION=off), same inputs;
# - perf: accel's GPU benchmark (bench-gpu) and its baselines on the same GPU in one go: CUB
#   (baselines/cub_bench.cu, built here with nvcc for this GPU), CuPy, PyTorch and torch.compile
#   (baselines/baselines.py); then the table of ratios (table.md) and the plot (benchmarks.png);
#   the JSON lines of every side stay in $OUT;
# - benches: every other bench binary, one after another, into one log;
# - compare: bench-gpu and every other build of it copied in as bin/bench-gpu-<name> (a kernel
#   change being tried, say), one after another with 10 runs a case, then CUB's benchmark: one
#   JSON-lines file each in $OUT, so that the builds are compared in one call on one card;
# - icfp: only the ICFP'13 programs (N-body, Mandelbrot, radix sort, Canny, fluid flow: bench-gpu --icfp) beside
#   their peers (CUB's benchmark, the CuPy kernels of baselines.py), 10 runs a case, and their
#   table (icfp-table.md); perf runs them too.
# Each step writes <step>.log into $OUT (default gpu-pack/out) and one line into summary.txt
# there: its exit status, its duration and the last line of its log. With GPU_RUN_BUNDLE=1 the
# files are packed into $OUT/bundle.tar.xz at the end, beside summary.txt (see the end).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$here/out}"
mkdir -p "$out"
summary="$out/summary.txt"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(driver tests outside memcheck racecheck fusion perf benches)
status=0

{
    echo "gpu-pack run of $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || echo "nvidia-smi failed"
} | tee "$summary"

# gpu-pack.sh compresses the binaries; Python's lzma unpacks them anywhere.
for packed in "$here"/bin/*.xz; do
    [ -f "$packed" ] || continue
    binary="${packed%.xz}"
    [ -x "$binary" ] && continue
    python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
        "$packed" "$binary" && chmod +x "$binary"
done

sanitizer="$(command -v compute-sanitizer || true)"
if [ -z "$sanitizer" ]; then
    for candidate in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
        [ -x "$candidate" ] && { sanitizer="$candidate"; break; }
    done
fi

step() { # name command...
    local name=$1 start=$SECONDS rc
    shift
    "$@" >"$out/$name.log" 2>&1
    rc=$?
    printf '%-10s rc=%-3s %5ss  %s\n' "$name" "$rc" "$((SECONDS - start))" "$(grep -v '^\s*$' "$out/$name.log" | tail -n 1)" \
        | tee -a "$summary"
    [ "$rc" -eq 0 ] || status=1
}

driver() {
    local b rc=0
    for b in "$here/bin/cuda_driver" "$here/bin/cuda_fault"; do
        echo "== $(basename "$b")"
        "$b" || rc=1
    done
    return $rc
}

# CUB's benchmark (baselines/cub_bench.cu, built here for this GPU) with $1 runs a case, into
# $out/cub.jsonl.
cub() {
    echo "== CUB"
    nvcc -O3 -std=c++17 -arch=native -o /tmp/accel-cub-bench "$here/baselines/cub_bench.cu" &&
        /tmp/accel-cub-bench "$1" >"$out/cub.jsonl"
}

compare() {
    local b rc=0
    for b in "$here/bin/bench-gpu" "$here"/bin/bench-gpu-*; do
        [ -x "$b" ] || continue
        echo "== $(basename "$b")"
        "$b" --runs 10 >"$out/$(basename "$b").jsonl" || rc=1
    done
    cub 10 || rc=1
    return $rc
}

benches() {
    local b rc=0
    for b in "$here"/bin/bench-*; do
        case "$(basename "$b")" in bench-gpu | bench-gpu-*) continue ;; esac # perf's and compare's
        echo "== $(basename "$b")"
        # Criterion keeps its history out of $OUT (only a few files come back from there).
        CRITERION_HOME=/tmp/accel-criterion "$b" --bench || rc=1
    done
    return $rc
}

sanitize() { # tool max_log2 threads filter [corpus arguments...]
    if [ -z "$sanitizer" ]; then
        echo "compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
        return 1
    fi
    local tool=$1 max_log2=$2 threads=$3 filter=$4
    shift 4
    # API errors are not counted: errors::results_larger_than_memory fails device allocations on
    # purpose (the driver's CUDA_ERROR_OUT_OF_MEMORY is what becomes `Error::OutOfDeviceMemory`).
    env ACCEL_GPU_TEST_MAX_LOG2="$max_log2" "$sanitizer" --tool "$tool" --report-api-errors no --error-exitcode 1 --print-limit 100 \
        "$here/bin/corpus" "$filter" --test-threads "$threads" "$@"
}

# The slowest trials under racecheck (expand_permute: 391 s of the whole run's 15 minutes on an
# H200, every strategy forced in turn), split off into a step of their own so that each step
# stays within a 10-minute call: racecheck-a runs the others, racecheck-b these.
racecheck_slow=(cuda::expand_permute)

racecheck_a() {
    local skips=() m
    for m in "${racecheck_slow[@]}"; do skips+=(--skip "$m"); done
    sanitize racecheck 12 1 cuda:: --skip cuda::device::concurrent "${skips[@]}"
}

racecheck_b() {
    local m rc=0
    for m in "${racecheck_slow[@]}"; do
        echo "== $m"
        # The corpus takes one filter, so each module is a run of its own.
        sanitize racecheck 12 1 "$m" || rc=1
    done
    return $rc
}

racecheck_grid() {
    local m rc=0
    for m in cuda::scan cuda::irregular cuda::reduce; do
        echo "== $m"
        ACCEL_GRID_CAP=2 sanitize racecheck 12 1 "$m" || rc=1
    done
    return $rc
}

memcheck() {
    sanitize memcheck 20 8 cuda:: || return 1
    echo "== cuda_driver"
    # Its tests fail driver calls on purpose (an allocation too large, a missing kernel, text
    # that is not PTX); memory errors are what this step is for.
    "$sanitizer" --tool memcheck --report-api-errors no --error-exitcode 1 --print-limit 100 "$here/bin/cuda_driver"
}

fusion() {
    local b rc=0
    for b in "$here/bin/fusion" "$here/bin/fusion-unfused"; do
        echo "== $(basename "$b")"
        "$b" 24 20 || rc=1
    done
    return $rc
}

icfp() {
    local rc=0
    echo "== accel"
    "$here/bin/bench-gpu" --icfp --runs 10 >"$out/icfp-accel.jsonl" || rc=1
    cub 10 || rc=1
    echo "== CuPy"
    BASELINES_ONLY=icfp PYTHONUNBUFFERED=1 python3 "$here/baselines/baselines.py" 10 >"$out/icfp-python.jsonl" || rc=1
    python3 "$here/baselines/compare.py" "$out/icfp-accel.jsonl" "$out/cub.jsonl" "$out/icfp-python.jsonl" \
        >"$out/icfp-table.md" || rc=1
    cat "$out/icfp-table.md"
    return $rc
}

perf() {
    local b="$here/baselines" rc=0
    echo "== accel"
    "$here/bin/bench-gpu" >"$out/accel.jsonl" || rc=1
    echo "== module load: PTX through the JIT (its cache off, then on), then SASS"
    env ACCEL_SASS=off CUDA_CACHE_DISABLE=1 "$here/bin/bench-gpu" --load >>"$out/accel.jsonl" || rc=1
    env ACCEL_SASS=off "$here/bin/bench-gpu" --load >>"$out/accel.jsonl" || rc=1
    "$here/bin/bench-gpu" --load >>"$out/accel.jsonl" || rc=1
    cub 20 || rc=1
    echo "== CuPy, PyTorch, torch.compile"
    PYTHONUNBUFFERED=1 python3 "$b/baselines.py" 20 >"$out/python.jsonl" || rc=1
    python3 "$b/compare.py" "$out/accel.jsonl" "$out/cub.jsonl" "$out/python.jsonl" >"$out/table.md" || rc=1
    python3 "$b/plot.py" "$out/benchmarks.png" "$out/accel.jsonl" "$out/cub.jsonl" "$out/python.jsonl" || rc=1
    cat "$out/table.md"
    return $rc
}

for s in "${steps[@]}"; do
    case "$s" in
        driver) step driver driver ;;
        tests) step tests "$here/bin/corpus" cuda:: ;;
        outside) step outside "$here/bin/outside-app" ;;
        memcheck) step memcheck memcheck ;;
        racecheck)
            step racecheck-a racecheck_a
            step racecheck-b racecheck_b
            ;;
        racecheck-a) step racecheck-a racecheck_a ;;
        racecheck-b) step racecheck-b racecheck_b ;;
        racecheck-grid) step racecheck-grid racecheck_grid ;;
        tests-grid) step tests-grid env ACCEL_GRID_CAP=2 ACCEL_GPU_TEST_MAX_LOG2=16 "$here/bin/corpus" cuda:: ;;
        fusion) step fusion fusion ;;
        perf) step perf perf ;;
        benches) step benches benches ;;
        compare) step compare compare ;;
        icfp) step icfp icfp ;;
        *)
            echo "unknown step $s (driver, tests, outside, memcheck, racecheck, racecheck-a, racecheck-b, racecheck-grid, tests-grid, fusion, perf, benches, compare, icfp)" | tee -a "$summary"
            status=1
            ;;
    esac
done

# Where what comes back from $OUT is limited to a few files (the device tool returns 8),
# GPU_RUN_BUNDLE=1 packs everything the steps wrote into $OUT/bundle.tar.xz and keeps only it and
# summary.txt.
if [ "${GPU_RUN_BUNDLE:-0}" = 1 ]; then
    bundle="$(mktemp -d)/bundle.tar.xz"
    tar -C "$out" -cJf "$bundle" . &&
        find "$out" -mindepth 1 -maxdepth 1 ! -name summary.txt -exec rm -rf {} + &&
        mv "$bundle" "$out/bundle.tar.xz" || status=1
fi
exit $status
