#!/usr/bin/env bash
# Slower variant of the guest test on QEMU's emulated CXL Type-3 device (cxl-type3, TCG): a CXL
# host bridge with two cxl-rp root ports (QEMU 7.2 loses writes with a single port) and one
# persistent-memory cxl-type3 device behind a 4 GiB fixed memory window. One SRAT node (0) is
# declared so that Linux gives the window its own (CPU-less) NUMA node. Inside the guest
# (scripts/qemu-cxl-guest.sh) `cxl`, `ndctl` and `daxctl` bring the memory up as a devdax device,
# then as a CPU-less NUMA node, and the runtime checks run against it.
#   scripts/qemu-cxl-test.sh GUEST_BIN [--kernel debian|backports] [--log FILE] [--timeout SECONDS]
#                            [--bin SRC:DST]... [--file SRC:DST]...
# --bin adds a dynamically linked program and the libraries ldd lists, --file any file (the driver's
# dax test, scripts/qemu-driver-dax-test.sh, adds its guest program and images this way).
# Exit 0 pass, 1 fail, 77 skip (no qemu, no busybox/cpio/cxl/ndctl/daxctl, no kernel package).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?usage: qemu-cxl-test.sh GUEST_BIN [options]}
shift
flavour=debian log="" tmo=420 extra_bins=() extra_files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --kernel) flavour=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    --timeout) tmo=$2; shift 2 ;;
    --bin) extra_bins+=("$2"); shift 2 ;;
    --file) extra_files+=("$2"); shift 2 ;;
    *) echo "qemu-cxl-test: unknown option $1" >&2; exit 2 ;;
  esac
done
cache=${NDP_QEMU_CACHE:-$(cd "$here/.." && pwd)/build/qemu-cache}
qemu=$(command -v qemu-system-x86_64 || true)
[ -n "$qemu" ] || { echo "SKIP: qemu-system-x86_64 not installed"; exit 77; }
for tool in cxl ndctl daxctl; do
  command -v $tool >/dev/null || { echo "SKIP: $tool not installed (apt-get install ndctl daxctl)"; exit 77; }
done
[ -x "$bin" ] || { echo "qemu-cxl-test: guest binary $bin missing" >&2; exit 2; }
rc=0
kdir=$("$here/qemu-kernel.sh" "$flavour" "$cache") || rc=$?
if [ $rc -ne 0 ]; then echo "SKIP: Debian kernel package ($flavour) not obtainable"; exit 77; fi
kernel=$(ls "$kdir"/boot/vmlinuz-* | head -1)
kver=$(basename "$kernel" | sed 's/^vmlinuz-//')

# The user-space tools and every shared library they load (same Debian release as the guest's).
files=("$bin:/ndp_runtime_guest_test" "$here/qemu-cxl-guest.sh:/guest-setup.sh")
for tool in cxl ndctl daxctl; do
  files+=("$(command -v $tool):/usr/bin/$tool")
  while read -r lib; do files+=("$lib:/usr/lib/ndp/"); done < <(ldd "$(command -v $tool)" | awk '/=> \// {print $3}')
done
for spec in "${extra_bins[@]}"; do
  files+=("$spec")
  while read -r lib; do files+=("$lib:/usr/lib/ndp/"); done < <(ldd "${spec%%:*}" | awk '/=> \// {print $3}')
done
files+=("${extra_files[@]}")
files+=("$(ldd "$(command -v cxl)" | awk '/ld-linux/ {print $1}'):/lib64/ld-linux-x86-64.so.2")
while read -r ko; do
  rel=${ko#"$kdir"/}
  files+=("$ko:/$rel")
done < <(find "$kdir/lib/modules" -name '*.ko*')

mkdir -p "$cache"
initrd="$cache/initramfs-cxl-$flavour.$$.cpio.gz"
mem="$cache/cxl-pmem-$$.raw" lsa="$cache/cxl-lsa-$$.raw"
trap 'rm -f "$initrd" "$mem" "$lsa"' EXIT
rc=0
"$here/qemu-initramfs.sh" "$initrd" "$here/qemu-guest-init.sh" "${files[@]}" || rc=$?
if [ $rc -eq 77 ]; then echo "SKIP: busybox-static or cpio missing"; exit 77; fi
[ $rc -eq 0 ] || exit 1
truncate -s 256M "$mem"
truncate -s 256M "$lsa"

log=${log:-$cache/cxl-$flavour.log}
start=$(date +%s)
set +e
timeout "$tmo" "$qemu" -machine q35,cxl=on -accel tcg,thread=multi -cpu max -smp 2 -m 1G \
  -nographic -no-reboot -monitor none \
  -object memory-backend-ram,id=m0,size=1G -numa node,nodeid=0,cpus=0-1,memdev=m0 \
  -object memory-backend-file,id=cxl-mem0,share=on,mem-path="$mem",size=256M \
  -object memory-backend-file,id=cxl-lsa0,share=on,mem-path="$lsa",size=256M \
  -device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1 \
  -device cxl-rp,port=0,bus=cxl.1,id=root_port13,chassis=0,slot=2 \
  -device cxl-rp,port=1,bus=cxl.1,id=root_port14,chassis=0,slot=3 \
  -device cxl-type3,bus=root_port13,memdev=cxl-mem0,lsa=cxl-lsa0,id=cxl-pmem0 \
  -M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G \
  -kernel "$kernel" -initrd "$initrd" \
  -append "console=ttyS0 quiet panic=-1 memhp_default_state=offline" >"$log" 2>&1
qrc=$?
set -e
tr -d '\r' < "$log" | grep -E '^(NDPGUEST|NDPCXL|NDPDRV|NODE|CHECK|RESULT)' || true
echo "qemu-cxl-test: kernel $kver, $(( $(date +%s) - start )) s, log $log"
if [ $qrc -eq 124 ]; then echo "FAIL: guest timed out after $tmo s"; exit 1; fi
if tr -d '\r' < "$log" | grep -q '^NDPGUEST FAIL'; then echo "FAIL"; exit 1; fi
if [ "$(tr -d '\r' < "$log" | grep -c '^NDPGUEST PASS')" -ge 2 ]; then exit 0; fi
echo "FAIL: guest did not report two NDPGUEST PASS lines (devdax and NUMA node; qemu exit $qrc)"
tail -30 "$log"
exit 1
