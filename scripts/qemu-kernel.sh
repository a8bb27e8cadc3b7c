#!/usr/bin/env bash
# Fetch a Debian kernel package with `apt-get download` and unpack it into a cache folder.
#   scripts/qemu-kernel.sh debian|backports [CACHE_DIR]
# Prints the unpacked folder (it holds boot/vmlinuz-* and lib/modules/*) on stdout.
# debian:    linux-image-amd64 of the running Debian 12 apt sources (6.1.x)
# backports: linux-image-amd64 of bookworm-backports (6.12.x, has MPOL_WEIGHTED_INTERLEAVE),
#            fetched with a private apt configuration under the cache: the system is not touched.
# Exit 77 when the package cannot be obtained (callers turn that into a test skip).
set -euo pipefail
flavour=${1:?usage: qemu-kernel.sh debian|backports [CACHE_DIR]}
cache=${2:-${NDP_QEMU_CACHE:-$(cd "$(dirname "$0")/.." && pwd)/build/qemu-cache}}
mkdir -p "$cache"
exec 9>"$cache/.kernel-$flavour.lock"
flock 9

done_file="$cache/kernel-$flavour.path"
if [ -f "$done_file" ] && ls "$(cat "$done_file")"/boot/vmlinuz-* >/dev/null 2>&1; then
  cat "$done_file"
  exit 0
fi
command -v apt-get >/dev/null || { echo "qemu-kernel: apt-get not found" >&2; exit 77; }

apt_opts=()
case "$flavour" in
  debian) ;;
  backports)
    priv="$cache/apt-backports"
    mkdir -p "$priv/lists/partial" "$priv/cache/archives/partial"
    echo "deb http://deb.debian.org/debian bookworm-backports main" > "$priv/sources.list"
    apt_opts=(-o "Dir::Etc::SourceList=$priv/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
              -o "Dir::State::Lists=$priv/lists" -o "Dir::Cache=$priv/cache" -o "Dir::State::status=/dev/null")
    if ! timeout 120 apt-get "${apt_opts[@]}" -qq update >&2; then
      echo "qemu-kernel: cannot reach bookworm-backports" >&2
      exit 77
    fi
    ;;
  *) echo "qemu-kernel: unknown flavour '$flavour'" >&2; exit 2 ;;
esac

# linux-image-amd64 is a meta package: download the image it depends on.
pkg=$(apt-cache "${apt_opts[@]}" depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
if [ -z "$pkg" ] && [ "$flavour" = debian ] && [ "$(id -u)" -eq 0 ]; then
  apt-get -qq update >&2 || true
  pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
fi
[ -n "$pkg" ] || { echo "qemu-kernel: apt knows no linux-image-amd64 ($flavour)" >&2; exit 77; }

work="$cache/dl-$flavour"
rm -rf "$work" && mkdir -p "$work"
if ! (cd "$work" && timeout 300 apt-get "${apt_opts[@]}" -qq download "$pkg" >&2 2>/dev/null); then
  echo "qemu-kernel: apt-get download $pkg failed" >&2
  exit 77
fi
dest="$cache/$pkg"
rm -rf "$dest" && mkdir -p "$dest"
# Only the kernel image and the CXL/DAX/NVDIMM modules the guests load (not 400 MB of drivers).
dpkg-deb --fsys-tarfile "$work"/*.deb | tar -x -C "$dest" --wildcards --no-wildcards-match-slash \
  './boot/vmlinuz-*' './lib/modules/*/modules.*' \
  './lib/modules/*/kernel/drivers/cxl/*' './lib/modules/*/kernel/drivers/cxl/*/*' \
  './lib/modules/*/kernel/drivers/dax/*' './lib/modules/*/kernel/drivers/dax/*/*' \
  './lib/modules/*/kernel/drivers/nvdimm/*' 2>/dev/null || true
rm -rf "$work"
ls "$dest"/boot/vmlinuz-* >/dev/null
echo "$dest" > "$done_file"
echo "$dest"
