#!/usr/bin/env bash
# Boot a Debian kernel under QEMU (TCG) with two NUMA nodes: node 0 with both CPUs and node 1
# with memory only (how Linux presents a CXL Type-3 expander onlined as system RAM), with ACPI
# HMAT bandwidth/latency for both; run the statically linked runtime test inside; pass/fail.
#   scripts/qemu-numa-test.sh GUEST_BIN [--kernel debian|backports] [--expect-weighted yes|no|auto]
#                             [--log FILE] [--timeout SECONDS] [--mib SIZE_OF_EACH_TEST_ALLOCATION]
# Exit 0 pass, 1 fail, 77 skip (no qemu, no busybox/cpio, kernel package unobtainable).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?usage: qemu-numa-test.sh GUEST_BIN [options]}
shift
flavour=debian expect=auto log="" tmo=150 mib=16
while [ $# -gt 0 ]; do
  case "$1" in
    --kernel) flavour=$2; shift 2 ;;
    --expect-weighted) expect=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    --timeout) tmo=$2; shift 2 ;;
    --mib) mib=$2; shift 2 ;;
    *) echo "qemu-numa-test: unknown option $1" >&2; exit 2 ;;
  esac
done
cache=${NDP_QEMU_CACHE:-$(cd "$here/.." && pwd)/build/qemu-cache}
qemu=$(command -v qemu-system-x86_64 || true)
[ -n "$qemu" ] || { echo "SKIP: qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"; exit 77; }
[ -x "$bin" ] || { echo "qemu-numa-test: guest binary $bin missing" >&2; exit 2; }
rc=0
kdir=$("$here/qemu-kernel.sh" "$flavour" "$cache") || rc=$?
if [ $rc -ne 0 ]; then echo "SKIP: Debian kernel package ($flavour) not obtainable"; exit 77; fi
kernel=$(ls "$kdir"/boot/vmlinuz-* | head -1)

mkdir -p "$cache"
initrd="$cache/initramfs-numa-$flavour.$$.cpio.gz"
trap 'rm -f "$initrd"' EXIT
rc=0
"$here/qemu-initramfs.sh" "$initrd" "$here/qemu-guest-init.sh" "$bin:/ndp_runtime_guest_test" || rc=$?
if [ $rc -eq 77 ]; then echo "SKIP: busybox-static or cpio missing"; exit 77; fi
[ $rc -eq 0 ] || exit 1

log=${log:-$cache/numa-$flavour.log}
args="--expect-hmat,--expect-weighted,$expect,--mib,$mib"
start=$(date +%s)
set +e
mapfile -t machine < <("$here/qemu-numa-machine.sh")
timeout "$tmo" "$qemu" "${machine[@]}" \
  -kernel "$kernel" -initrd "$initrd" \
  -append "console=ttyS0 quiet panic=-1 ndp.run=/ndp_runtime_guest_test ndp.args=$args" >"$log" 2>&1
qrc=$?
set -e
tr -d '\r' < "$log" | grep -E '^(NDPGUEST|NODE|CHECK|RESULT)' || true
echo "qemu-numa-test: kernel $(basename "$kernel"), $(( $(date +%s) - start )) s, log $log"
if [ $qrc -eq 124 ]; then echo "FAIL: guest timed out after $tmo s"; exit 1; fi
if tr -d '\r' < "$log" | grep -q '^NDPGUEST PASS'; then exit 0; fi
echo "FAIL: guest did not report NDPGUEST PASS (qemu exit $qrc)"
tail -20 "$log"
exit 1
