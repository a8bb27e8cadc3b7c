#!/usr/bin/env bash
# make demo: the host driver (libndp) against the emulated CXL node on the embedded default model,
# or on MODEL (docs/driver.md). The node is a daemon process started on demand (it exits when idle).
set -euo pipefail
NDP=${1:?path to ndp}
MODEL=${2:-}
if [ -n "$MODEL" ]; then
  exec "$NDP" dev demo --model "$MODEL"
fi
exec "$NDP" dev demo
