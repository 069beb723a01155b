#!/usr/bin/env bash
# Build the libFuzzer harnesses with clang (-fsanitize=fuzzer,address,
# undefined), replay the committed corpora (tests/fuzz/corpus/NAME: every
# input once, a crash fails), then fuzz each harness for SECONDS (default
# 20) from that corpus plus fresh seeds made by cuzk-bench.
#
#   tests/fuzz/run.sh [SECONDS] [BIN_DIR]      (BIN_DIR: for the seeds; default build/bin)
#
# FUZZ_OUT: build folder (default build-fuzz); FUZZ_ONLY="params vk": a
# subset; SECONDS=0: replay only.  Without clang or its fuzzer runtime it
# prints SKIPPED and exits 0 -- or 1 under CI=true, where every independent
# check must run.  Long runs: tests/fuzz/long.sh (round-robin, records CPU
# time and executions per harness; see docs/reliability.md).  A crash is
# written as crash-* under FUZZ_OUT and replays with
# `FUZZ_OUT/fuzz_NAME crash-...`; commit a fixed one under
# tests/fuzz/corpus/NAME/ so the replay keeps it fixed.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${FUZZ_SRC:-$(cd "$HERE/../.." && pwd)}
SECS=${1:-${FUZZ_SECONDS:-20}}
BIN=${2:-$ROOT/build/bin}
OUT=${FUZZ_OUT:-$ROOT/build-fuzz}
case $OUT in /*) ;; *) OUT=$ROOT/$OUT ;; esac
. "$ROOT/tests/skip.sh"
skip_or_fail() { # reason: SKIPPED normally, a failure under CI=true
  skip_ref fuzz "$1" || exit 1
  echo "fuzz: 0 ok, 0 failed, 1 skipped"; exit 0
}
CC=${FUZZ_CC:-$(command -v clang || command -v clang-14 || true)}
[ -n "$CC" ] || skip_or_fail "clang not found (apt-get install -y clang)"
mkdir -p "$OUT/obj" "$OUT/corpus"
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n){(void)d;(void)n;return 0;}' >"$OUT/probe.c"
"$CC" -fsanitize=fuzzer "$OUT/probe.c" -o "$OUT/probe" 2>/dev/null || skip_or_fail "$CC has no libFuzzer runtime"
CFLAGS="-std=gnu11 -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -I$ROOT/include"
# The ff layer's inline asm is written for gcc: clang builds it with
# TOWER_NO_ASM and without CUZK_HAVE_ASM (the portable paths, same results).
CFLAGS="$CFLAGS -I$ROOT/src -DTOWER_NO_ASM"
shopt -s nullglob
# objects are rebuilt when their .c is newer; any header change rebuilds all
# (a stale object with another struct layout would be a false finding)
hdrs=$(cat "$ROOT"/include/cuzk/*.h "$ROOT"/src/*/*.h | sha1sum | cut -c1-40)
if [ "$(cat "$OUT/obj/headers.sha1" 2>/dev/null)" != "$hdrs" ]; then
  rm -f "$OUT"/obj/*.o
  echo "$hdrs" >"$OUT/obj/headers.sha1"
fi
objs=()
# gpu: the engine's device workers link the device layer; its kernel source
# (and PTX) are embedded by the file CMake generated into the release build
GPU_BLOBS=$(cd "$BIN/.." 2>/dev/null && pwd)/src/gpu/gen/kernel_blobs.c
[ -f "$GPU_BLOBS" ] || skip_or_fail "no $GPU_BLOBS (the release build makes it: make build)"
todo=()
for src in "$ROOT"/src/{ff,ec,poly,pool,msm,r1cs,groth16,gpu,fil,seal,gadgets,circuits,engine}/*.c "$GPU_BLOBS"; do
  o="$OUT/obj/$(basename "$(dirname "$src")")_$(basename "$src" .c).o"
  if [ ! -f "$o" ] || [ "$src" -nt "$o" ]; then todo+=("$src" "$o"); fi
  objs+=("$o")
done
# the library's ~130 files compiled FUZZ_JOBS at a time (one by one they were
# ~2 minutes of one core in make test's lane)
if [ ${#todo[@]} -gt 0 ]; then
  printf '%s\0' "${todo[@]}" |
    CC=$CC CFLAGS=$CFLAGS xargs -0 -n 2 -P "${FUZZ_JOBS:-$(nproc)}" sh -c '$CC $CFLAGS -c "$0" -o "$1"'
fi
# every tests/fuzz/fuzz_NAME.c is a harness; FUZZ_ONLY selects some
harnesses=()
for f in "$HERE"/fuzz_*.c; do
  h=$(basename "$f" .c); h=${h#fuzz_}
  if [ -z "${FUZZ_ONLY:-}" ] || [[ " $FUZZ_ONLY " == *" $h "* ]]; then harnesses+=("$h"); fi
done
# fuzz_request decodes gRPC requests: it needs the protobuf-c code generated
# into the CMake build (BIN_DIR/../gen) and src/server/wire.c.
GEN=$(cd "$BIN/.." 2>/dev/null && pwd)/gen
built=() skipped=()
for h in "${harnesses[@]}"; do
  extra=()
  case $h in
    request)
      if [ ! -f "$GEN/cuzk/v1/proving.pb-c.c" ]; then
        skip_ref fuzz "fuzz_request: no generated protobuf-c code under $GEN (daemon not built)" || exit 1
        skipped+=("$h"); continue
      fi
      extra=(-I"$GEN" -I"$ROOT/src/server" "$GEN/cuzk/v1/proving.pb-c.c" "$ROOT/src/server/wire.c" -lprotobuf-c) ;;
    config) extra=(-I"$ROOT/src/server" "$ROOT/src/server/config.c" "$ROOT/src/server/server_http_guard.c"
                   "$ROOT/src/server/server_netacl.c") ;;
    http) extra=(-I"$ROOT/src/server" "$ROOT/src/server/http_parse.c" "$ROOT/src/server/server_http_guard.c"
                 "$ROOT/src/server/server_netacl.c") ;;
  esac
  exe="$OUT/fuzz_$h"
  if [ ! -x "$exe" ] || [ -n "$(find "$HERE/fuzz_$h.c" "$ROOT/src" "$ROOT/include" "$OUT/obj" -newer "$exe" \
        \( -name '*.[ch]' -o -name '*.o' \) -print -quit)" ]; then
    "$CC" $CFLAGS -fsanitize=fuzzer "$HERE/fuzz_$h.c" "${extra[@]}" "${objs[@]}" -lyajl -lcrypto -lpthread -lm -o "$exe"
  fi
  built+=("$h")
done
harnesses=("${built[@]}")
"$HERE/seeds.sh" "$BIN" "$OUT/seeds" || true # fresh seeds (none without cuzk-bench)
. "$HERE/common.sh" # max_len
fail=0 ok=0
for h in "${harnesses[@]}"; do
  corpus="$HERE/corpus/$h"
  n_in=0
  [ -d "$corpus" ] && n_in=$(find "$corpus" -type f | wc -l)
  if [ "$n_in" -gt 0 ] && ! (cd "$OUT" && ASAN_OPTIONS=detect_leaks=1 ./fuzz_$h -runs=0 -rss_limit_mb=2048 \
        "$corpus" >"fuzz_$h.replay.log" 2>&1); then
    echo "FAIL fuzz_$h: replay of tests/fuzz/corpus/$h (log: $OUT/fuzz_$h.replay.log)"
    tail -30 "$OUT/fuzz_$h.replay.log"; fail=$((fail + 1)); continue
  fi
  if [ "$SECS" = 0 ]; then echo "ok   fuzz_$h: replayed $n_in committed inputs"; ok=$((ok + 1)); continue; fi
  work="$OUT/corpus/$h"
  mkdir -p "$work"
  cp -n "$OUT/seeds/$h"/* "$work"/ 2>/dev/null || true
  dirs=("$work")
  [ "$n_in" -gt 0 ] && dirs+=("$corpus")
  if (cd "$OUT" && ASAN_OPTIONS=detect_leaks=1 ./fuzz_$h -max_total_time="$SECS" -rss_limit_mb=2048 \
        -max_len="$(max_len "$h")" "${dirs[@]}" >"fuzz_$h.log" 2>&1); then
    echo "ok   fuzz_$h: replayed $n_in committed inputs, $(grep -o 'Done [0-9]* runs' "$OUT/fuzz_$h.log" | tail -1) in ${SECS}s"
    ok=$((ok + 1))
  else
    echo "FAIL fuzz_$h (log: $OUT/fuzz_$h.log)"; tail -30 "$OUT/fuzz_$h.log"; fail=$((fail + 1))
  fi
done
echo "fuzz: $ok ok, $fail failed, ${#skipped[@]} skipped"
[ "$fail" = 0 ]
