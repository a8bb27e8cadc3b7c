#!/usr/bin/env bash
# Run hwloc's lstopo inside the two-node HMAT guest of the NUMA tests and write its XML (with the
# memory attributes hwloc derived from ACPI HMAT) to OUT.xml. This produced
# sw/runtime/tests/data/qemu_hmat_guest.xml, which the hwloc unit test loads via HWLOC_XMLFILE.
#   scripts/qemu-lstopo.sh OUT.xml [--kernel debian|backports]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: qemu-lstopo.sh OUT.xml [--kernel debian|backports]}
flavour=debian
[ "${2:-}" = --kernel ] && flavour=${3:?--kernel needs debian or backports}
cache=${NDP_QEMU_CACHE:-$(cd "$here/.." && pwd)/build/qemu-cache}
kdir=$("$here/qemu-kernel.sh" "$flavour" "$cache")
kernel=$(ls "$kdir"/boot/vmlinuz-* | head -1)
lstopo=$(command -v lstopo-no-graphics)
work=$(mktemp -d)
trap '[ -n "${NDP_KEEP:-}" ] || rm -rf "$work"' EXIT
cat > "$work/setup.sh" <<'INNER'
#!/bin/sh
export LD_LIBRARY_PATH=/usr/lib/ndp
echo BEGIN-XML
lstopo-no-graphics --of xml -
echo END-XML
INNER
chmod +x "$work/setup.sh"
files=("$lstopo:/usr/bin/lstopo-no-graphics" "$work/setup.sh:/guest-setup.sh"
       "$(ldd "$lstopo" | awk '/ld-linux/ {print $1}'):/lib64/ld-linux-x86-64.so.2")
while read -r lib; do files+=("$lib:/usr/lib/ndp/"); done < <(ldd "$lstopo" | awk '/=> \// {print $3}')
"$here/qemu-initramfs.sh" "$work/initrd.gz" "$here/qemu-guest-init.sh" "${files[@]}"
mapfile -t machine < <("$here/qemu-numa-machine.sh")
timeout 200 qemu-system-x86_64 "${machine[@]}" -kernel "$kernel" -initrd "$work/initrd.gz" \
  -append "console=ttyS0 quiet panic=-1" > "$work/log" 2>&1
tr -d '\r' < "$work/log" | sed -n '/BEGIN-XML/,/END-XML/p' | sed '1d;$d' > "$out"
grep -q '<memattr name="ReadBandwidth"' "$out" || { echo "qemu-lstopo: no memory attributes in the XML" >&2; exit 1; }
echo "qemu-lstopo: wrote $out"
