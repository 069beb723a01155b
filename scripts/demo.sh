#!/usr/bin/env bash
# make demo (milestone 1, before the daemon exists): self-test + micro-benchmarks.
set -euo pipefail
BIN=${1:-build/bin}
echo "== cuzk demo: the daemon does not exist yet; running the math self-test and micro-benchmarks =="
"$BIN/cuzk-bench" micro
