#!/usr/bin/env bash
# Installs the Debian packages cuzk needs (as root), or prints the exact
# apt-get line and fails.  Idempotent and quiet when everything is present.
set -euo pipefail
# OpenCL (docs/gpu.md): the headers to build the driver, the ICD loader it
# dlopens, pocl to run every kernel on the CPU in make test, clinfo to look
pkgs=(build-essential cmake pkg-config libssl-dev libgrpc-dev libprotobuf-c-dev protobuf-c-compiler libyajl-dev
  opencl-headers ocl-icd-libopencl1 pocl-opencl-icd clinfo)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && $line
else
  echo "deps: missing Debian packages; run as root:" >&2
  echo "  sudo apt-get update && sudo $line" >&2
  exit 1
fi
