#!/usr/bin/env bash
# Long fuzzing, round-robin: every harness built by run.sh (in FUZZ_OUT)
# runs SECONDS per turn at nice 19, ROUNDS times (0 = until killed), on
# its working corpus FUZZ_OUT/corpus/NAME (kept between turns and runs).
# Each turn appends one line to FUZZ_OUT/long.tsv:
#   harness  start  wall_s  cpu_s  execs  corpus_size  result
# (cpu_s = user + system time of the fuzzer process, from /usr/bin/time or
# bash's TIMEFORMAT), and a crash leaves crash-* in FUZZ_OUT/artifacts/.
# Totals per harness: tests/fuzz/long.sh --report.  --merge minimizes each
# working corpus into tests/fuzz/corpus/NAME (-merge=1), what make test
# replays; inputs over MAX_COMMIT bytes (default 20000) are left out,
# regress-* (fixed findings) and seed-* (real files worth replaying whole,
# e.g. a 100 KB C1) are kept as they are.
#
#   FUZZ_OUT=build-fuzz tests/fuzz/long.sh SECONDS [ROUNDS] [NAME...]
#   FUZZ_OUT=build-fuzz tests/fuzz/long.sh --report | --merge [NAME...]
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${FUZZ_OUT:-$ROOT/build-fuzz}
case $OUT in /*) ;; *) OUT=$ROOT/$OUT ;; esac
TSV="$OUT/long.tsv"
names() {
  if [ $# -gt 0 ]; then printf '%s\n' "$@"; return; fi
  for f in "$OUT"/fuzz_*; do [ -x "$f" ] && [ -f "$f" ] && basename "$f" | sed 's/^fuzz_//'; done
}
. "$HERE/common.sh" # max_len

if [ "${1:-}" = --report ]; then
  shift
  [ -f "$TSV" ] || { echo "no $TSV"; exit 1; }
  printf "%-8s %5s %9s %9s %12s %7s %s\n" harness runs wall_s cpu_s execs corpus crashes
  awk -F'\t' -v only="$*" 'BEGIN { n = split(only, o, " "); for (i = 1; i <= n; i++) want[o[i]] = 1 }
    n && !want[$1] { next }
    { t[$1]++; w[$1] += $3; c[$1] += $4; e[$1] += $5; z[$1] = $6; if ($7 != "ok") bad[$1]++ }
    END { for (h in t) printf "%-8s %5d %9.0f %9.0f %12d %7d %d\n", h, t[h], w[h], c[h], e[h], z[h], bad[h] }' "$TSV" | sort
  exit 0
fi

if [ "${1:-}" = --merge ]; then
  shift
  for h in $(names "$@"); do
    dst="$HERE/corpus/$h" tmp="$OUT/merge-$h"
    rm -rf "$tmp"; mkdir -p "$tmp" "$dst"
    # only inputs small enough to commit take part
    src="$OUT/corpus-small/$h"; rm -rf "$src"; mkdir -p "$src"
    find "$OUT/corpus/$h" "$dst" -type f ! -name 'regress-*' ! -name 'seed-*' -size -"${MAX_COMMIT:-20000}"c \
      -exec cp -n {} "$src"/ \; 2>/dev/null
    (cd "$OUT" && ./fuzz_$h -merge=1 -rss_limit_mb=2048 -max_len="$(max_len "$h")" "$tmp" "$src" >"merge-$h.log" 2>&1) ||
      { echo "merge $h failed (log $OUT/merge-$h.log)"; continue; }
    # the committed corpus becomes the minimized set, named by content;
    # regress-* and seed-* stay as they are
    find "$dst" -type f ! -name 'regress-*' ! -name 'seed-*' -delete
    for f in "$tmp"/*; do cp "$f" "$dst/$(sha1sum "$f" | cut -c1-16)"; done
    echo "merge $h: $(ls "$dst" | wc -l) inputs, $(du -sk "$dst" | cut -f1) KiB"
  done
  exit 0
fi

SECS=${1:?usage: long.sh SECONDS [ROUNDS] [NAME...]}
ROUNDS=${2:-0}
shift $(( $# >= 2 ? 2 : 1 ))
mapfile -t hs < <(names "$@")
[ ${#hs[@]} -gt 0 ] || { echo "no harnesses in $OUT (run tests/fuzz/run.sh first)"; exit 1; }
mkdir -p "$OUT/artifacts"
round=0
while [ "$ROUNDS" = 0 ] || [ $round -lt "$ROUNDS" ]; do
  round=$((round + 1))
  for h in "${hs[@]}"; do
    mkdir -p "$OUT/corpus/$h"
    [ -d "$HERE/corpus/$h" ] && cp -n "$HERE/corpus/$h"/* "$OUT/corpus/$h"/ 2>/dev/null
    log="$OUT/long-$h.log" start=$(date +%s)
    ( cd "$OUT" && ASAN_OPTIONS=detect_leaks=1 exec /usr/bin/time -f '%U %S' -o "$OUT/long-$h.time" \
        nice -n 19 ./fuzz_$h -max_total_time="$SECS" -rss_limit_mb=2048 -max_len="$(max_len "$h")" \
        -artifact_prefix="$OUT/artifacts/$h-" -print_final_stats=1 "corpus/$h" >"$log" 2>&1 )
    rc=$?
    wall=$(( $(date +%s) - start ))
    cpu=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { print $1 + $2 }' "$OUT/long-$h.time" | tail -1)
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    size=$(find "$OUT/corpus/$h" -type f | wc -l)
    res=ok; [ $rc = 0 ] || res="rc$rc:$(ls -t "$OUT/artifacts/$h-"* 2>/dev/null | head -1 | xargs -r basename)"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$h" "$start" "$wall" "${cpu:-0}" "${execs:-0}" "$size" "$res" >>"$TSV"
    [ "$res" = ok ] || cp "$log" "$OUT/artifacts/$h-$start.log"
  done
done
