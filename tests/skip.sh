# Sourced by the test scripts (scripts/cli-tests.sh, daemon-tests.sh,
# npm-checks.sh, tests/snarkjs/run.sh, tests/fuzz/run.sh): one way to say
# that a check did not run.  A skip prints "WHO: SKIPPED: reason" and is
# appended to $CUZK_SKIP_LOG (set by make test, which lists them at the
# end); a missing independent reference (node, ../shared, clang, valgrind,
# python3-grpcio) is a failure instead under CI=true, where every
# independent check must run.
skip_note() { # WHO REASON
  echo "$1: SKIPPED: $2"
  if [ -n "${CUZK_SKIP_LOG:-}" ]; then echo "SKIPPED $1: $2" >>"$CUZK_SKIP_LOG"; fi
}
skip_ref() { # WHO REASON -- returns 1 under CI=true (the caller fails), else 0 after skip_note
  if [ "${CI:-}" = true ]; then
    echo "$1: FAIL: $2 (CI=true: every independent check must run)"
    return 1
  fi
  skip_note "$1" "$2"
}
