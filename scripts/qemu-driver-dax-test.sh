#!/usr/bin/env bash
# libndp's dax backend on the emulated CXL memory of the QEMU cxl-type3 guest (ctest
# ndp_driver_qemu_dax, label qemu). The guest of scripts/qemu-cxl-test.sh also runs
# ndp_driver_guest_test: once on the devdax device (images written into /dev/daxX.Y, every region
# of every tensor read back bit-exact), once on the same memory onlined as CPU-less NUMA node 1
# (dax:numa:1). Images: a built-in synthetic one, plus stories260K packed here when the shared data
# exist.
#   scripts/qemu-driver-dax-test.sh NDP RUNTIME_GUEST_BIN DRIVER_GUEST_BIN DATA_DIR [--log FILE]
# Exit 0 pass, 1 fail, 77 skip (as qemu-cxl-test.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ndp=${1:?usage: qemu-driver-dax-test.sh NDP RUNTIME_GUEST_BIN DRIVER_GUEST_BIN DATA_DIR [--log FILE]}
rt_bin=${2:?runtime guest binary}
drv_bin=${3:?driver guest binary}
data=${4:?data folder}
shift 4
cache=${NDP_QEMU_CACHE:-$(cd "$here/.." && pwd)/build/qemu-cache}
mkdir -p "$cache"
log="$cache/driver-dax.log"
args=(--bin "$drv_bin:/ndp_driver_guest_test")
img=""
trap '[ -n "$img" ] && rm -f "$img"' EXIT
if [ -f "$data/stories260K/stories260K.bin" ]; then
  img="$cache/driver-stories260K.$$.ndpi"
  "$ndp" pack "$data/stories260K/stories260K.bin" -o "$img" >/dev/null
  args+=(--file "$img:/images/stories260K.ndpi")
fi
while [ $# -gt 0 ]; do
  case "$1" in
    --log) log=$2; shift 2 ;;
    *) echo "qemu-driver-dax-test: unknown option $1" >&2; exit 2 ;;
  esac
done
rc=0
"$here/qemu-cxl-test.sh" "$rt_bin" --log "$log" "${args[@]}" || rc=$?
[ $rc -eq 0 ] || exit $rc
passes=$(tr -d '\r' < "$log" | grep -c '^NDPDRV PASS' || true)
if [ "$passes" -lt 2 ]; then
  echo "FAIL: expected NDPDRV PASS on devdax and on the NUMA node, saw $passes"
  exit 1
fi
echo "qemu-driver-dax-test: PASS (devdax and CPU-less node)"
