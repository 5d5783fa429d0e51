#!/usr/bin/env bash
# Installs what Weave needs to build and test, and nothing when it is all
# there already (a second run takes well under a second). Debian/Ubuntu only.
set -euo pipefail

LLVM_PACKAGES="llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools"
OTHER_PACKAGES="libfmt-dev libgtest-dev ninja-build cmake ccache python3-dev pybind11-dev python3-pybind11 python3-pytest"

missing=()
for pkg in $LLVM_PACKAGES $OTHER_PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -ne 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ ! -x /usr/local/cuda/bin/ptxas ] && ! command -v ptxas >/dev/null; then
  echo "setup: warning: CUDA 13 (ptxas, cuda.h) not found at /usr/local/cuda;" \
       "cubin output and the runtime need it" >&2
fi
