#!/usr/bin/env bash
# make demo: the host side of the device format on the embedded default input, or on MODEL.
set -euo pipefail
NDP=${1:?path to ndp}
MODEL=${2:-}
if [ -n "$MODEL" ]; then
  exec "$NDP" demo --model "$MODEL"
fi
exec "$NDP" demo
