#!/usr/bin/env bash
# The end of make test: every check that did not run, from $CUZK_SKIP_LOG
# (tests/skip.sh and the C test harness append one line per skip).
#
#   tests/skip-summary.sh LOG
log=${1:-${CUZK_SKIP_LOG:-}}
if [ -z "$log" ] || [ ! -s "$log" ]; then
  echo "make test: nothing skipped"
  exit 0
fi
n=$(sort -u "$log" | wc -l)
echo "make test: $n checks SKIPPED (not run, not passed):"
sort -u "$log" | sed 's/^/  /'
