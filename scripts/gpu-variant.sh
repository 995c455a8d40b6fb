#!/usr/bin/env bash
# Builds the GPU benchmark (benches/benches/gpu.rs) of another revision into
# gpu-pack/bin/bench-gpu-NAME.xz, beside the pack's own bench-gpu, so that one device call can
# time both (`bash gpu-pack/run.sh compare`, or a call script running bin/bench-gpu-NAME; run.sh
# unpacks every bin/*.xz).
#
#   scripts/gpu-pack.sh                     # the pack of the working tree
#   scripts/gpu-variant.sh before HEAD~1    # adds bin/bench-gpu-before.xz
#
# The revision is checked out in a worktree under target/variants/ and built there with a target
# directory shared by all variants (target/variants-build), so a second variant rebuilds only
# what differs. Set ACCEL_PTXAS as for gpu-pack.sh to embed SASS.
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -eq 2 ] || { echo "usage: scripts/gpu-variant.sh NAME REVISION"; exit 2; }
name=$1
rev=$(git rev-parse --verify "$2^{commit}")
[ -d gpu-pack/bin ] || { echo "gpu-pack/bin not found: run scripts/gpu-pack.sh first"; exit 1; }

tree="target/variants/$name"
git worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
git worktree add --detach --force "$tree" "$rev" >/dev/null
trap 'git worktree remove --force "$tree"' EXIT

echo "== building bench-gpu of $rev as bench-gpu-$name (release)"
exe=$(CARGO_TARGET_DIR="$PWD/target/variants-build" cargo bench --manifest-path "$tree/Cargo.toml" -p accel-benches \
    --bench gpu --no-run --message-format=json | grep -o '"executable":"[^"]*"' | sed 's/^"executable":"//; s/"$//')
[ -x "$exe" ] || { echo "the benchmark was not built"; exit 1; }
xz -T0 -1 -c "$exe" >"gpu-pack/bin/bench-gpu-$name.xz"
echo "  gpu-pack/bin/bench-gpu-$name.xz ($(git log --format='%h %s' -1 "$rev" | cut -c1-80))"
