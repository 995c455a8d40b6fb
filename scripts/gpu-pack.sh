#!/usr/bin/env bash
# Builds, in release, the test corpus of accel-tests (tests/corpus.rs), the CUDA driver tests of
# accel-runtime (tests/cuda_driver.rs, tests/cuda_fault.rs), the bench binaries of accel-benches
# (with the baselines of benches/baselines), the program of the package outside the workspace
# (accel-tests/outside, with its `cuda` feature) and the `fusion` example (twice: with fusion, and with
# ACCEL_FUSION=off into target/unfused), and packs them with their runner (scripts/gpu-run.sh)
# into gpu-pack/, for a GPU machine that has no Rust toolchain. The PTX is inside the binaries;
# they load libcuda at run time. See docs/testing.md, "GPU runs".
set -euo pipefail
cd "$(dirname "$0")/.."

pack=gpu-pack
rm -rf "$pack"
mkdir -p "$pack/bin"

# `cargo --message-format=json` names each executable it built: copy it as bin/<prefix><target>.
copy_executables() { # prefix
    grep -o '"executable":"[^"]*"' | sed 's/^"executable":"//; s/"$//' | while read -r exe; do
        name="$(basename "$exe" | sed 's/-[0-9a-f]\{16\}$//')"
        cp "$exe" "$pack/bin/$1$name"
        echo "  $pack/bin/$1$name"
    done
}

echo "== building (release)"
cargo test --release -p accel-tests --test corpus --no-run --message-format=json | copy_executables ""
cargo test --release -p accel-runtime --features cuda --test cuda_driver --test cuda_fault --no-run \
    --message-format=json | copy_executables ""
cargo bench -p accel-benches --benches --no-run --message-format=json | copy_executables "bench-"
cargo build --release -p accel-examples --bin fusion --message-format=json | copy_executables ""
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/outside" cargo build --release --features cuda \
    --manifest-path accel-tests/outside/Cargo.toml -p outside-app --message-format=json | copy_executables ""
ACCEL_FUSION=off CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/unfused" \
    cargo build --release -p accel-examples --bin fusion --message-format=json | copy_executables "unfused-"
mv "$pack/bin/unfused-fusion" "$pack/bin/fusion-unfused"
cp scripts/gpu-run.sh "$pack/run.sh"
cp -r benches/baselines "$pack/baselines"
chmod +x "$pack/run.sh" "$pack"/bin/*

[ -x "$pack/bin/corpus" ] || { echo "the corpus test binary was not built"; exit 1; }
for t in cuda_driver cuda_fault outside-app; do
    [ -x "$pack/bin/$t" ] || { echo "the test binary $t was not built"; exit 1; }
done
ls "$pack"/bin/bench-* >/dev/null 2>&1 || { echo "no bench binary was built"; exit 1; }
# The binaries embed their modules (the test corpus: PTX and SASS of some 250 programs), over
# 100 MB in all: compressed, the pack fits the device tool's carry limit (64 MiB); run.sh
# unpacks them.
xz -T0 -1 "$pack"/bin/*
du -sh "$pack"
echo "run it on a GPU machine: bash $pack/run.sh (device tool: carry [\"$pack\"])"
