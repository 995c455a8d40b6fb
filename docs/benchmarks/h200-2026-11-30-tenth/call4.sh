#!/usr/bin/env bash
# Tenth session, call 4: every cuda:: trial of the corpus on the build of a77ff10 (the scan's
# thread index and 4 blocks; the ranges walk's runs of 16 bytes).
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver tests
tail -5 "$OUT/tests.log"; cat "$OUT/summary.txt"
