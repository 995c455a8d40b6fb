#!/usr/bin/env bash
# Eleventh session, call 4 (typed at the device tool's prompt): every cuda:: trial of the corpus
# on the build of ba9de8e (the ranges walk built twice).
#   bash gpu-pack/run.sh driver tests
