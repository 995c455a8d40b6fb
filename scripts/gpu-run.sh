#!/usr/bin/env bash
# The runner of gpu-pack/ (scripts/gpu-pack.sh copies it there as run.sh): runs on a GPU machine
# that has no Rust toolchain.
#
#   bash gpu-pack/run.sh [tests] [memcheck] [racecheck] [fusion] [benches]    (no argument: all)
#
# - tests: the GPU test binary;
# - memcheck, racecheck: the same under compute-sanitizer, any error it reports failing the step;
#   memcheck with inputs up to 2^20 elements on 8 test threads, racecheck (much slower: it tracks
#   every shared-memory access) up to 2^12 on one thread (more threads make the tool lose track
#   of launches);
# - fusion: the `fusion` example built with fusion and without (ACCEL_FUSION=off), same inputs;
# - benches: every bench binary, one after another, into one log.
# Each step writes <step>.log into $OUT (default gpu-pack/out) and one line into summary.txt
# there: its exit status, its duration and the last line of its log.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$here/out}"
mkdir -p "$out"
summary="$out/summary.txt"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(tests memcheck racecheck fusion benches)
status=0

{
    echo "gpu-pack run of $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || echo "nvidia-smi failed"
} | tee "$summary"

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

benches() {
    local b rc=0
    for b in "$here"/bin/bench-*; do
        echo "== $(basename "$b")"
        # Criterion keeps its history out of $OUT (only a few files come back from there).
        CRITERION_HOME=/tmp/accel-criterion "$b" --bench || rc=1
    done
    return $rc
}

sanitize() { # tool max_log2 threads
    if [ -z "$sanitizer" ]; then
        echo "compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
        return 1
    fi
    env ACCEL_GPU_TEST_MAX_LOG2="$2" "$sanitizer" --tool "$1" --error-exitcode 1 --print-limit 100 \
        "$here/bin/gpu" --test-threads "$3"
}

fusion() {
    local b rc=0
    for b in "$here/bin/fusion" "$here/bin/fusion-unfused"; do
        echo "== $(basename "$b")"
        "$b" 24 20 || rc=1
    done
    return $rc
}

for s in "${steps[@]}"; do
    case "$s" in
        tests) step tests "$here/bin/gpu" ;;
        memcheck) step memcheck sanitize memcheck 20 8 ;;
        racecheck) step racecheck sanitize racecheck 12 1 ;;
        fusion) step fusion fusion ;;
        benches) step benches benches ;;
        *)
            echo "unknown step $s (tests, memcheck, racecheck, fusion, benches)" | tee -a "$summary"
            status=1
            ;;
    esac
done
exit $status
