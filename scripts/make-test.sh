#!/usr/bin/env bash
# `make test`: every suite, by two workers that take them from one queue.
#
# Most suites keep both cores busy (builds, ctest -j), but several use about
# one: the cli tests (~0.9 of a core), the daemon-test passes (~0.6: they
# wait on gRPC and on the daemon), the npm checks and the fuzz replays.  Run
# one after another they left ~5 minutes of a core idle (docs/perf-notes.md
# "make test's time"); two at a time fill those gaps:
#
#   first     the release build (-j JOBS), then the cached 2 KiB TEST params
#             (scripts/test-params.sh) and the GPU program's cache, which
#             every later suite reads, then the daemon's latency-under-load
#             check (TestRequestMemory, ~30 s) alone: "within 2x its unloaded
#             time" cannot be measured beside another suite
#   queue     (STEPS below) ASan/UBSan build, then its ctest + daemon tests;
#             TSan build, then its engine + daemon tests; release cli tests,
#             daemon tests, ctest; libFuzzer replays; callgrind perf gate;
#             status page in Chromium; npm references
#
# Two workers, a and b, each take the next step of the queue whose build is
# done, so neither idles while the other has a queue (fixed lanes ended ~2
# minutes apart).  A step's place does not change what it checks.  Each
# worker's lines are prefixed with its name; each step prints its wall time
# and its CPU time.  A failed suite is reported and the rest go on (a failed
# build marks the suites that need it NOT RUN); the summary names every
# failed step.  Logs: BUILD/make-test/{first,a,b}.log.
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

# CPU seconds (user + sys) of this shell's finished children so far, into
# file $1 (`times` in this shell: in $(...) it would see a subshell's)
cpu_to() {
  times >"$1.t"
  awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /m|s/); s += t[1] * 60 + t[2] } }
       END { printf "%.1f", s }' "$1.t" >"$1"
}
# step LANE NAME make-target...: one step, its wall and CPU time, FAILED on a
# non-zero exit (the CPU time says what a step costs whatever runs beside it)
step() {
  local lane=$1 name=$2 t0=$EPOCHREALTIME rc took
  shift 2
  cpu_to "$LOGS/.cpu0.$lane"
  echo "== $name"
  "$MAKE" --no-print-directory "$@"
  rc=$?
  cpu_to "$LOGS/.cpu1.$lane"
  took="$(since "$t0") s, $(awk '{ v[NR] = $1 } END { printf "%.0f", v[2] - v[1] }' "$LOGS/.cpu0.$lane" \
    "$LOGS/.cpu1.$lane") CPU-s"
  if [ $rc -eq 0 ]; then echo "== $name: ok ($took)"
  else echo "== $name: FAILED (exit $rc, $took)"; echo "$lane: $name" >>"$LOGS/failed"; fi
  return $rc
}
# The suites after the first phase: NAME, the step it needs (- for none but
# the first phase) and its make target, in the order the two workers take
# them: a worker takes the first step not yet taken whose step before has
# passed (it waits while only steps behind a running build are left).  The
# order is the critical path first -- the ASan build and its suites, then
# TSan -- then the rest by their measured time (docs/perf-notes.md "make
# test's time").  A failed suite does not stop the others (one run reports
# them all); a failed build marks the suites that need it NOT RUN.
STEPS=(
  "asan-build - build-asan"
  "tsan-build - build-tsan"
  "asan-tests asan-build run-asan"
  "tsan-tests tsan-build run-tsan"
  "cli-tests - run-cli"
  "daemon-tests - run-daemon"
  "release-ctest - run-ctest"
  "fuzz - run-fuzz"
  "perf-gate - run-perf"
  "status-page - run-page"
  "npm-references - run-npm"
)
Q=$LOGS/queue
# take: under the queue's lock, the index of the next step this worker runs
# (marked taken), "skip INDEX NEED" for one whose build failed, "wait" or
# "done"
take() {
  (
    flock 9
    local i name need left=0
    for i in "${!STEPS[@]}"; do
      read -r name need _ <<<"${STEPS[$i]}"
      [ -e "$Q/$name" ] && continue
      left=1
      if [ "$need" = - ] || [ -e "$Q/$need.ok" ]; then : >"$Q/$name"; echo "$i"; exit 0; fi
      if [ -e "$Q/$need.failed" ]; then : >"$Q/$name"; echo "skip $i $need"; exit 0; fi
    done
    [ $left = 1 ] && echo wait || echo done
  ) 9>"$Q/lock"
}
worker() { # NAME: runs steps until none is left
  local w=$1 r i name need target
  while :; do
    r=$(take)
    case $r in
      done) return ;;
      wait) sleep 1 ;;
      skip*)
        read -r _ i need <<<"$r"
        read -r name _ <<<"${STEPS[$i]}"
        echo "== $name: NOT RUN ($need failed)"
        echo "$w: $name (not run: $need failed)" >>"$LOGS/failed"
        : >"$Q/$name.failed" ;;
      *)
        read -r name need target <<<"${STEPS[$r]}"
        if step "$w" "$name" "$target"; then : >"$Q/$name.ok"; else : >"$Q/$name.failed"; fi ;;
    esac
  done
}
: >"$LOGS/failed"
# the GPU program (pocl compiles it for ~25-50 s of one core on a cold
# machine) built once into its cache beside the params' setup, instead of by
# two test processes at once; the tests still check the cache
warm_gpu() { "$BUILD/bin/cuzk-bench" devices --build >"$LOGS/gpu-warm.log" 2>&1 || true; }
{ step first release-build build && { warm_gpu & step first test-params test-params; wait; } &&
  step first latency-alone run-quiet; } 2>&1 | tee "$LOGS/first.log"
# the release daemon pass in the queue leaves out what ran alone above
export CUZK_REQUEST_MEMORY_RAN=1
if [ -s "$LOGS/failed" ]; then echo "make test: FAILED in: $(paste -sd, "$LOGS/failed")"; exit 1; fi

# stdout of a worker through sed: its name before each line, its log too
rm -rf "$Q" && mkdir -p "$Q"
worker a 2>&1 | tee "$LOGS/a.log" | sed -u 's/^/[a] /' &
pid_a=$!
worker b 2>&1 | tee "$LOGS/b.log" | sed -u 's/^/[b] /' &
pid_b=$!
wait $pid_a
wait $pid_b

cpu_to "$LOGS/.cpu-all"
echo "make test: $(since "$t00") s wall, $(cat "$LOGS/.cpu-all") CPU-s; steps:"
grep -h '^== .*: \(ok\|FAILED\|NOT RUN\)' "$LOGS/first.log" "$LOGS/a.log" "$LOGS/b.log" | sed 's/^== /  /'
if [ -s "$LOGS/failed" ]; then
  echo "make test: FAILED in: $(paste -sd, "$LOGS/failed")  (logs in $LOGS/)"
  exit 1
fi
