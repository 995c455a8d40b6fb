#!/usr/bin/env bash
# Twelfth session, call 3: the pack of failures recorded where they happen unless a kernel's
# closures loop: the driver tests and every cuda:: trial of the corpus.
cd "$(dirname "$0")"
export OUT="${OUT:-out}"
bash run.sh driver tests
grep -E "test result|FAILED|panicked" "$OUT/tests.log" | tail -8
