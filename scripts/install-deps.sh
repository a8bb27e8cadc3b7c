#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian 12 machine: installs only what is missing, with apt-get.
# Run as root (or with sudo available). Safe to run again; does nothing when all is present.
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build ccache pkg-config git python3
  clang llvm libclang-rt-14-dev
  liblz4-dev libzstd-dev lz4 zstd libxxhash-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libnuma-dev numactl libhwloc-dev hwloc nlohmann-json3-dev
  qemu-system-x86 busybox-static cpio ndctl daxctl
  verilator yosys z3 opensta
)
# Optional extras for later flows; failures to install these are not fatal.
OPTIONAL_PKGS=(${NDP_OPTIONAL_PKGS:-})

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all required packages present"
fi
for p in "${OPTIONAL_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    $SUDO apt-get install -y -qq --no-install-recommends "$p" || echo "install-deps: optional $p not installed"
done
