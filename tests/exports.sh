#!/bin/sh
# Every symbol the libraries export starts with cuzk_ (or CUZK_ for
# constants), so that libcuzk.a links beside any other C library without a
# clash (style.md, "Clean exports"): an internal helper shared between the
# files of one layer is cuzk_<layer>_..., one used in a single file is
# static.  Names in the implementation's namespace (a leading underscore:
# what compilers and sanitizers generate) are not ours to rename.
#
#   tests/exports.sh LIB.a...      exit 0: clean, 1: offenders listed
# It fails too when a library lists no symbols at all (nm missing, wrong
# path), so that it cannot pass by reading nothing.
status=0
for lib in "$@"; do
  syms=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[A-Z]$/ && $2 != "U" { print $3 }' | sort -u)
  n=$(printf '%s\n' "$syms" | grep -c .)
  if [ "$n" -eq 0 ]; then echo "FAIL $lib: no exported symbols read (nm: binutils)"; status=1; continue; fi
  bad=$(printf '%s\n' "$syms" | grep -v -e '^cuzk_' -e '^CUZK_' -e '^_')
  if [ -n "$bad" ]; then
    echo "FAIL $lib: $(printf '%s\n' "$bad" | wc -l) of $n exported symbols lack the cuzk_ prefix:"
    printf '  %s\n' $bad
    status=1
  else
    echo "ok   $lib: $n exported symbols, all cuzk_ / CUZK_"
  fi
done
exit $status
