#!/usr/bin/env bash
# Integration tests of the real cuzk-daemon over gRPC (tests/daemon/*.py:
# test_daemon.py, then test_curio.py, the drop-in checks for Curio, then
# test_tls.py, who may talk to the daemon: TLS, socket mode, HTTP limits, then
# test_faults.py: params changing under the daemon, full disk, kill -9) with
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
# no daemon (gRPC C core missing at configure time).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/build/bin}
shift || true
PY=/usr/bin/python3   # Debian's python: the apt packages install there
if [ ! -x "$BIN/cuzk-daemon" ]; then
  echo "daemon-tests: SKIP: $BIN/cuzk-daemon not built (apt-get install -y libgrpc-dev libprotobuf-c-dev protobuf-c-compiler, then rebuild)"
  exit 0
fi
if ! "$PY" -c 'import grpc, grpc_tools.protoc' 2>/dev/null; then
  line="apt-get install -y --no-install-recommends python3-grpcio python3-grpc-tools"
  if [ "$(id -u)" -eq 0 ]; then
    echo "daemon-tests: installing python3-grpcio python3-grpc-tools"
    DEBIAN_FRONTEND=noninteractive $line >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive $line >/dev/null; }
  else
    echo "daemon-tests: SKIP: missing python3-grpcio / python3-grpc-tools; run as root:"
    echo "  sudo $line"
    exit 0
  fi
fi
export CUZK_BIN="$BIN"
rc=0
for t in test_daemon test_curio test_tls test_faults; do
  echo "daemon-tests: $t"
  "$PY" -W ignore::ResourceWarning "$ROOT/tests/daemon/$t.py" "$@" || rc=1
done
exit $rc
