#!/bin/sh
# Guest side of scripts/qemu-cxl-test.sh (becomes /guest-setup.sh in the initramfs): load the
# CXL/NVDIMM/DAX drivers, build a region on the emulated cxl-type3 device with `cxl`, expose it
# as a devdax namespace with `ndctl`, check it through mmap, online it as system RAM with
# `daxctl` (a new CPU-less NUMA node) and run the placement checks against that node.
export LD_LIBRARY_PATH=/usr/lib/ndp
mods=/lib/modules/$(uname -r)/kernel/drivers
for m in nvdimm/libnvdimm nvdimm/nd_btt nvdimm/nd_pmem cxl/cxl_acpi cxl/cxl_pci cxl/cxl_mem cxl/cxl_pmem \
         dax/device_dax dax/dax_pmem dax/kmem dax/dax_cxl; do
  [ -f "$mods/$m.ko" ] && { insmod "$mods/$m.ko" 2>/dev/null || echo "NDPCXL insmod $m failed"; }
  [ -f "$mods/$m.ko.xz" ] && { xz -dc "$mods/$m.ko.xz" > /tmp/m.ko && insmod /tmp/m.ko 2>/dev/null || echo "NDPCXL insmod $m failed"; }
done
step() { echo "NDPCXL step: $*"; "$@"; rc=$?; [ $rc -eq 0 ] || echo "NDPCXL step failed ($rc): $*"; return $rc; }
i=0
while [ $i -lt 20 ] && ! cxl list -M 2>/dev/null | grep -q memdev; do sleep 1; i=$((i + 1)); done
cxl list -M -D -u
echo "NDPCXL possible nodes: $(cat /sys/devices/system/node/possible)"
decoder=$(cxl list -D -d root -u 2>/dev/null | sed -n 's/.*"decoder":"\(decoder[0-9.]*\)".*/\1/p' | head -1)
[ -n "$decoder" ] || decoder=decoder0.0
step cxl create-region -t pmem -d "$decoder" -m mem0 || { echo "NDPGUEST FAIL cxl create-region"; exit 1; }
region=$(ndctl list -R 2>/dev/null | sed -n 's/.*"dev":"\(region[0-9]*\)".*/\1/p' | head -1)
step ndctl create-namespace -m devdax -r "$region" -a 2M || { echo "NDPGUEST FAIL ndctl create-namespace"; exit 1; }
dax=$(ls /dev/dax* 2>/dev/null | head -1)
[ -n "$dax" ] || { echo "NDPGUEST FAIL no /dev/dax device"; exit 1; }
/ndp_runtime_guest_test --dax-only "$dax" || { echo "NDPGUEST FAIL devdax check"; exit 1; }
# libndp's dax backend (present when scripts/qemu-driver-dax-test.sh added it): images in the devdax memory.
images=$(ls /images/*.ndpi 2>/dev/null || true)
if [ -x /ndp_driver_guest_test ]; then
  /ndp_driver_guest_test dax "$dax" $images || { echo "NDPGUEST FAIL libndp on devdax"; exit 1; }
fi
step daxctl reconfigure-device --mode=system-ram "$(basename "$dax")" || { echo "NDPGUEST FAIL daxctl system-ram"; exit 1; }
for n in /sys/devices/system/node/node*; do echo "NDPCXL $(basename $n) cpus=[$(cat $n/cpulist)] $(grep MemTotal $n/meminfo)"; done
/ndp_runtime_guest_test --mib 16
# ... and on the same memory as a CPU-less NUMA node (dax:numa:1, placed with sw/runtime).
if [ -x /ndp_driver_guest_test ]; then
  /ndp_driver_guest_test numa 1 $images || echo "NDPGUEST FAIL libndp on the CPU-less node"
fi
