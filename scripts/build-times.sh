#!/usr/bin/env bash
# Build times of the examples on this machine: a clean build (fresh target directory; the pinned
# nightly is already installed), then the rebuild after editing one #[accel] function (saxpy's
# body, written differently with the same meaning), then the rebuild after editing the code of a file
# with no #[accel] function (a shift in examples/src/rng.rs, whose generator 13 modules use), then
# the rebuild with nothing changed.
#
#   scripts/build-times.sh [profile args...]     e.g. scripts/build-times.sh --release
#
# Prints one line per build; restores the edited files at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
target="$(mktemp -d /tmp/accel-build-times.XXXXXX)"
trap 'git checkout -- examples/src/saxpy.rs examples/src/rng.rs; rm -rf "$target"' EXIT

timed() { # label command...
    local label=$1 start
    shift
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    printf '%-40s %6.1f s\n' "$label" "$(echo "$(date +%s.%N) - $start" | bc)"
}

echo "$(nproc) cores, $(rustc --version), ptxas: ${ACCEL_PTXAS:-$(command -v ptxas || echo none)}"
timed "clean build of accel-examples $*" env CARGO_TARGET_DIR="$target" cargo build -p accel-examples "$@"
sed -i 's/|x, y| a \* x + y)/|x, y| y + a * x)/' examples/src/saxpy.rs
grep -q 'y + a \* x' examples/src/saxpy.rs || { echo "the edit did not apply"; exit 1; }
timed "rebuild after editing saxpy" env CARGO_TARGET_DIR="$target" cargo build -p accel-examples "$@"
sed -i 's/z ^ (z >> 27)/z ^ (z >> 26)/' examples/src/rng.rs
grep -q 'z >> 26' examples/src/rng.rs || { echo "the edit of rng.rs did not apply"; exit 1; }
timed "rebuild after editing rng.rs (no #[accel])" env CARGO_TARGET_DIR="$target" cargo build -p accel-examples "$@"
timed "rebuild with nothing changed" env CARGO_TARGET_DIR="$target" cargo build -p accel-examples "$@"
