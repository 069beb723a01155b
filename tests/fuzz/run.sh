#!/usr/bin/env bash
# Build the libFuzzer harnesses with clang (-fsanitize=fuzzer,address,
# undefined) and run each for SECONDS (default 20) from a seed corpus made
# of valid files (cuzk-bench setup/prove on a small chain circuit).
#
#   tests/fuzz/run.sh [SECONDS] [BIN_DIR]      (BIN_DIR: for the seed corpus; default build/bin)
#
# Skips (exit 0, with the reason) when clang or its fuzzer runtime is
# missing.  Longer runs: FUZZ_SECONDS=3600 tests/fuzz/run.sh, or run a
# harness directly: build-fuzz/fuzz_params -max_total_time=3600 -jobs=2
# build-fuzz/corpus/params; crashes are written as crash-* in the current
# directory and replay with `build-fuzz/fuzz_params crash-...`.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${FUZZ_SRC:-$(cd "$HERE/../.." && pwd)}
SECS=${1:-${FUZZ_SECONDS:-20}}
BIN=${2:-$ROOT/build/bin}
OUT=${FUZZ_OUT:-$ROOT/build-fuzz}
CC=${FUZZ_CC:-$(command -v clang || command -v clang-14 || true)}
if [ -z "$CC" ]; then echo "fuzz: SKIP: clang not found (apt-get install -y clang)"; exit 0; fi
mkdir -p "$OUT/obj" "$OUT/corpus"
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n){(void)d;(void)n;return 0;}' >"$OUT/probe.c"
if ! "$CC" -fsanitize=fuzzer "$OUT/probe.c" -o "$OUT/probe" 2>/dev/null; then
  echo "fuzz: SKIP: $CC has no libFuzzer runtime"; exit 0
fi
CFLAGS="-std=gnu11 -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -I$ROOT/include"
# The ff layer's inline asm is written for gcc: clang builds it with
# TOWER_NO_ASM and without CUZK_HAVE_ASM (the portable paths, same results).
CFLAGS="$CFLAGS -I$ROOT/src -DTOWER_NO_ASM"
shopt -s nullglob
objs=()
for src in "$ROOT"/src/{ff,ec,poly,msm,r1cs,groth16,fil,seal}/*.c; do
  o="$OUT/obj/$(basename "$(dirname "$src")")_$(basename "$src" .c).o"
  if [ ! -f "$o" ] || [ "$src" -nt "$o" ]; then "$CC" $CFLAGS -c "$src" -o "$o"; fi
  objs+=("$o")
done
# every tests/fuzz/fuzz_NAME.c is a harness with corpus build-fuzz/corpus/NAME
harnesses=()
for f in "$HERE"/fuzz_*.c; do h=$(basename "$f" .c); harnesses+=("${h#fuzz_}"); done
# fuzz_request decodes gRPC requests: it needs the protobuf-c code generated
# into the CMake build (BIN_DIR/../gen) and src/server/wire.c.
GEN=$(cd "$BIN/.." 2>/dev/null && pwd)/gen
built=()
for h in "${harnesses[@]}"; do
  mkdir -p "$OUT/corpus/$h"
  extra=()
  if [ "$h" = request ]; then
    if [ ! -f "$GEN/cuzk/v1/proving.pb-c.c" ]; then
      echo "fuzz: SKIP fuzz_request: no generated protobuf-c code under $GEN (daemon not built)"; continue
    fi
    extra=(-I"$GEN" -I"$ROOT/src/server" "$GEN/cuzk/v1/proving.pb-c.c" "$ROOT/src/server/wire.c" -lprotobuf-c)
  fi
  "$CC" $CFLAGS -fsanitize=fuzzer "$HERE/fuzz_$h.c" "${extra[@]}" "${objs[@]}" -lyajl -lcrypto -lpthread -lm -o "$OUT/fuzz_$h"
  built+=("$h")
done
harnesses=("${built[@]}")
# seed corpus: a valid params/vk pair and proof (+ truncations come from the fuzzer)
if [ -x "$BIN/cuzk-bench" ]; then
  T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
  "$BIN/cuzk-bench" setup --circuit chain --size 3 --out "$T" >/dev/null 2>&1 || true
  mkdir -p "$OUT/corpus/params" "$OUT/corpus/vk" "$OUT/corpus/proof"
  [ -f "$T/chain-3.params" ] && cp "$T/chain-3.params" "$OUT/corpus/params/seed"
  [ -f "$T/chain-3.vk" ] && cp "$T/chain-3.vk" "$OUT/corpus/vk/seed"
  if "$BIN/cuzk-bench" prove --params "$T/chain-3.params" --circuit chain --size 3 \
      --out "$T/p" --inputs-out "$T/i" >/dev/null 2>&1; then
    cat "$T/p" "$T/i" >"$OUT/corpus/proof/seed" # well-formed points, another vk
  fi
fi
mkdir -p "$OUT/corpus/params" "$OUT/corpus/vk" "$OUT/corpus/proof" "$OUT/corpus/vanilla"
if [ -x "$BIN/cuzk-bench" ]; then  # vanilla seed: a 2 KiB WindowPoSt proof (5,680 bytes)
  T2=$(mktemp -d); "$BIN/cuzk-bench" gen-vanilla post --sector-size 2KiB --sector 1 \
    --randomness "$(printf '0%.0s' {1..64})" --out "$T2" >/dev/null 2>&1 && cp "$T2/window-post.vproof" "$OUT/corpus/vanilla/seed"; rm -rf "$T2"
fi
mkdir -p "$OUT/corpus/snap"
if [ -x "$BIN/cuzk-bench" ]; then  # snap seed: a 2 KiB SnapDeals partition proof (15,064 bytes)
  T3=$(mktemp -d); "$BIN/cuzk-bench" gen-vanilla porep --sector-size 2KiB --out "$T3/p" >/dev/null 2>&1 &&
    "$BIN/cuzk-bench" gen-vanilla snap --sector-size 2KiB --sealed "$T3/p" --out "$T3/s" --threads 1 >/dev/null 2>&1 &&
    cp "$T3/s/partition-0.bin" "$OUT/corpus/snap/seed" && head -c 4000 "$T3/s/partition-0.bin" >"$OUT/corpus/snap/seed-cut"
  rm -rf "$T3"
fi
fail=0
for h in "${harnesses[@]}"; do
  if (cd "$OUT" && ASAN_OPTIONS=detect_leaks=1 ./fuzz_$h -max_total_time="$SECS" -rss_limit_mb=2048 \
        -max_len=8192 "corpus/$h" >"fuzz_$h.log" 2>&1); then
    echo "ok   fuzz_$h: $(grep -o 'Done [0-9]* runs' "$OUT/fuzz_$h.log" | tail -1) in ${SECS}s"
  else
    echo "FAIL fuzz_$h (log: $OUT/fuzz_$h.log)"; tail -30 "$OUT/fuzz_$h.log"; fail=1
  fi
done
exit $fail
