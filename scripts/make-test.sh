#!/usr/bin/env bash
# `make test`: every suite, in two lanes that run side by side.
#
# Most suites keep both cores busy (builds, ctest -j), but several use about
# one: the cli tests (~0.9 of a core), the daemon-test passes (~0.6: they
# wait on gRPC and on the daemon), the npm checks and the fuzz replays.  Run
# one after another they left ~5 minutes of a core idle (docs/perf-notes.md
# "make test's time"); two lanes fill those gaps:
#
#   first     the release build (-j JOBS), then the cached 2 KiB TEST params
#             (scripts/test-params.sh) and the GPU program's cache, which both
#             lanes read, then the daemon's latency-under-load check
#             (TestRequestMemory, ~30 s) alone: "within 2x its unloaded time"
#             cannot be measured beside the other lane
#   lane a    ASan/UBSan build + ctest + daemon tests; release cli tests;
#             libFuzzer replays; npm references
#   lane b    release ctest; TSan build + engine tests + daemon tests; release
#             daemon tests; status page in Chromium; callgrind perf gate
#
# The split balances the lanes' measured times (docs/perf-notes.md "make
# test's time": each lane ~17-18 minutes of a quiet 2-vCPU VM); a suite's
# place in a lane does not change what it checks.  Each lane's lines are
# prefixed with its name; each step prints its time.  A failed suite is
# reported and the lane goes on (a failed build skips the suites that need
# it); the summary names every failed step.  Lane logs: BUILD/make-test/*.log.
#
#   scripts/make-test.sh        (BUILD, JOBS and MAKE from the Makefile)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
LOGS=$BUILD/make-test
mkdir -p "$LOGS"
t00=$EPOCHREALTIME
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }'; }

# step LANE NAME make-target...: one step, its time, FAILED on a non-zero exit
step() {
  local lane=$1 name=$2 t0=$EPOCHREALTIME rc
  shift 2
  echo "== $name"
  "$MAKE" --no-print-directory "$@"
  rc=$?
  if [ $rc -eq 0 ]; then echo "== $name: ok ($(since "$t0") s)"
  else echo "== $name: FAILED (exit $rc, $(since "$t0") s)"; echo "$lane: $name" >>"$LOGS/failed"; fi
  return $rc
}
# a failed suite does not stop the suites after it (one run reports them
# all); a failed build stops the suites that need it
lane_a() {
  step a asan-build build-asan && step a asan-tests run-asan
  step a cli-tests run-cli
  step a fuzz run-fuzz
  step a npm-references run-npm
}
lane_b() {
  step b release-ctest run-ctest
  step b tsan-build build-tsan && step b tsan-tests run-tsan
  step b daemon-tests run-daemon
  step b status-page run-page
  step b perf-gate run-perf
}
: >"$LOGS/failed"
# the GPU program (pocl compiles it for ~25-50 s of one core on a cold
# machine) built once into its cache beside the params' setup, instead of by
# two test processes at once in the lanes; the tests still check the cache
warm_gpu() { "$BUILD/bin/cuzk-bench" devices --build >"$LOGS/gpu-warm.log" 2>&1 || true; }
{ step first release-build build && { warm_gpu & step first test-params test-params; wait; } &&
  step first latency-alone run-quiet; } 2>&1 | tee "$LOGS/first.log"
# the release daemon pass in the lanes leaves out what ran alone above
export CUZK_REQUEST_MEMORY_RAN=1
if [ -s "$LOGS/failed" ]; then echo "make test: FAILED in: $(paste -sd, "$LOGS/failed")"; exit 1; fi

# stdout of a lane through sed: its name before each line, the lane's log too
lane_a 2>&1 | tee "$LOGS/a.log" | sed -u 's/^/[a] /' &
pid_a=$!
lane_b 2>&1 | tee "$LOGS/b.log" | sed -u 's/^/[b] /' &
pid_b=$!
wait $pid_a
wait $pid_b

echo "make test: $(since "$t00") s wall; steps:"
grep -h '^== .*: \(ok\|FAILED\)' "$LOGS/first.log" "$LOGS/a.log" "$LOGS/b.log" | sed 's/^== /  /'
if [ -s "$LOGS/failed" ]; then
  echo "make test: FAILED in: $(paste -sd, "$LOGS/failed")  (lane logs in $LOGS/)"
  exit 1
fi
