#!/usr/bin/env bash
# Integration tests of the real cuzk-daemon over gRPC (tests/daemon/*.py:
# test_daemon.py, then test_curio.py, the drop-in checks for Curio, then
# test_tls.py, who may talk to the daemon: TLS, socket mode, HTTP limits, then
# test_access.py: protected mode, HTTP Host/CORS, cuzk-bench over TLS, then
# test_faults.py: params changing under the daemon, full disk, kill -9, then
# test_ops.py: the Grafana dashboard and alert rules against the exported
# metrics (+ promtool), Curio's documented configs, the migration steps) with
# Debian's python3-grpcio + python3-grpc-tools (stubs generated from
# proto/cuzk/v1/proving.proto at test time).
#
#   scripts/daemon-tests.sh [BIN_DIR] [unittest args, e.g. -v -k Retries]
#
# The args go to both files (-k NAME selects across them; a class name
# only exists in one: run that file directly then).
#
# Installs the two packages with apt-get when root and missing; otherwise
# prints the exact line and skips (exit 0).  Skips too when the build has
# no daemon (gRPC C core missing at configure time).  Under CI=true both
# are failures (tests/skip.sh).  Every skip, here or inside the Python
# tests, goes to $CUZK_SKIP_LOG and into the final count.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tests/skip.sh"
BIN=${1:-$ROOT/build/bin}
shift || true
PY=/usr/bin/python3   # Debian's python: the apt packages install there
if [ ! -x "$BIN/cuzk-daemon" ]; then
  skip_ref daemon-tests "$BIN/cuzk-daemon not built (apt-get install -y libgrpc-dev libprotobuf-c-dev protobuf-c-compiler, then rebuild)" || exit 1
  echo "daemon-tests: 0 ok, 0 failed, 1 skipped"
  exit 0
fi
if ! "$PY" -c 'import grpc, grpc_tools.protoc' 2>/dev/null; then
  line="apt-get install -y --no-install-recommends python3-grpcio python3-grpc-tools"
  if [ "$(id -u)" -eq 0 ]; then
    echo "daemon-tests: installing python3-grpcio python3-grpc-tools"
    DEBIAN_FRONTEND=noninteractive $line >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive $line >/dev/null; }
  else
    skip_ref daemon-tests "missing python3-grpcio / python3-grpc-tools; run as root: sudo $line" || exit 1
    echo "daemon-tests: 0 ok, 0 failed, 1 skipped"
    exit 0
  fi
fi
export CUZK_BIN="$BIN"
# this run's skips in a log of its own (make test's other lane writes the
# shared one meanwhile), appended to $CUZK_SKIP_LOG at the end
shared_log=${CUZK_SKIP_LOG:-}
own_log=$(mktemp)
export CUZK_SKIP_LOG=$own_log
rc=0 nok=0 nfail=0
# $CUZK_DAEMON_TESTS: the files to run (default all; make's TSan pass names
# the ones with threads of ours to race: TLS setup and the dashboards' metric
# names run in the release and ASan passes)
for t in ${CUZK_DAEMON_TESTS:-test_daemon test_curio test_tls test_access test_faults test_ops test_gpu_workers}; do
  echo "daemon-tests: $t"
  if "$PY" -W ignore::ResourceWarning "$ROOT/tests/daemon/$t.py" "$@"; then nok=$((nok + 1)); else rc=1 nfail=$((nfail + 1)); fi
done
nskip=$(wc -l <"$own_log")
sed 's/^/daemon-tests: /' "$own_log"
[ -z "$shared_log" ] || cat "$own_log" >>"$shared_log"
rm -f "$own_log"
echo "daemon-tests: $nok files ok, $nfail failed, $nskip tests skipped"
exit $rc
