#!/usr/bin/env bash
# The runner of gpu-pack/ (scripts/gpu-pack.sh copies it there as run.sh): runs on a GPU machine
# that has no Rust toolchain.
#
#   bash gpu-pack/run.sh [tests] [memcheck] [racecheck] [benches]    (no argument: all four)
#
# - tests: the GPU test binary;
# - memcheck, racecheck: the same under compute-sanitizer, with ACCEL_GPU_TEST_MAX_LOG2=20 so
#   that the instrumented runs stay short; any error the sanitizer reports fails the step;
# - benches: every bench binary, one after another, into one log.
# Each step writes <step>.log into $OUT (default gpu-pack/out) and one line into summary.txt
# there: its exit status, its duration and the last line of its log.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$here/out}"
mkdir -p "$out"
summary="$out/summary.txt"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(tests memcheck racecheck benches)
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

sanitize() { # tool
    if [ -z "$sanitizer" ]; then
        echo "compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
        return 1
    fi
    env ACCEL_GPU_TEST_MAX_LOG2=20 "$sanitizer" --tool "$1" --error-exitcode 1 --print-limit 100 "$here/bin/gpu"
}

for s in "${steps[@]}"; do
    case "$s" in
        tests) step tests "$here/bin/gpu" ;;
        memcheck | racecheck) step "$s" sanitize "$s" ;;
        benches) step benches benches ;;
        *)
            echo "unknown step $s (tests, memcheck, racecheck, benches)" | tee -a "$summary"
            status=1
            ;;
    esac
done
exit $status
