#!/bin/busybox sh
# /init of the QEMU guest: mount the basics, run the program named on the kernel command line
# (ndp.run=/path, arguments in ndp.args with ',' for spaces), print its exit code, power off.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
run=$(sed -n 's/.*ndp\.run=\([^ ]*\).*/\1/p' /proc/cmdline)
args=$(sed -n 's/.*ndp\.args=\([^ ]*\).*/\1/p' /proc/cmdline | tr ',' ' ')
if [ -x /guest-setup.sh ]; then
  /guest-setup.sh
  echo "NDPSETUP EXIT $?"
fi
if [ -n "$run" ]; then
  $run $args
  echo "NDPGUEST EXIT $?"
fi
sync
poweroff -f
