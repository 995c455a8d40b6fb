#!/usr/bin/env bash
# Renders the kernel plans of the examples (fused and unfused) into docs/fusion/*.svg with
# Graphviz's `dot`, for docs/fusion.md.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v dot >/dev/null || { echo "Graphviz's dot is needed (Debian: apt-get install graphviz)"; exit 1; }
cargo run --quiet --release -p accel-examples --bin plans -- docs/fusion >/dev/null
for f in docs/fusion/*.dot; do
    dot -Tsvg "$f" -o "${f%.dot}.svg"
done
rm docs/fusion/*.dot
ls docs/fusion
