#!/usr/bin/env bash
# Build a busybox initramfs that runs one program and powers off.
#   scripts/qemu-initramfs.sh OUT.cpio.gz INIT_SCRIPT [FILE:DEST ...]
# INIT_SCRIPT becomes /init; each FILE is copied to DEST inside the image (DEST ending in / keeps
# the name). Needs busybox-static and cpio.
set -euo pipefail
out=${1:?usage: qemu-initramfs.sh OUT.cpio.gz INIT_SCRIPT [FILE:DEST ...]}
init=${2:?init script}
shift 2
busybox=$(command -v busybox || true)
bb_ldd=$( [ -n "$busybox" ] && ldd "$busybox" 2>&1 || true)
case "$bb_ldd" in
  *"not a dynamic executable"*) ;;
  *) echo "qemu-initramfs: needs a static busybox (apt-get install busybox-static)" >&2; exit 77 ;;
esac
command -v cpio >/dev/null || { echo "qemu-initramfs: needs cpio" >&2; exit 77; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,run,etc,lib,lib64,usr/bin}
cp "$busybox" "$root/bin/busybox"
cp "$init" "$root/init"
chmod +x "$root/init"
for spec in "$@"; do
  src=${spec%%:*}
  dst=${spec#*:}
  case "$dst" in */) dst="$dst$(basename "$src")" ;; esac
  mkdir -p "$root/$(dirname "$dst")"
  cp -L "$src" "$root/$dst"
done
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
