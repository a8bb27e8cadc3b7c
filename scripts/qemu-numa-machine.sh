#!/usr/bin/env bash
# The QEMU machine of the two-node guest tests, one argument per line (source or read with mapfile):
# node 0 with both CPUs and 512 MiB, node 1 with 512 MiB and no CPU (initiator node 0), SLIT 20,
# ACPI HMAT: node 0 20 GB/s / 100 ns, node 1 10 GB/s / 250 ns.
printf '%s\n' -machine q35,hmat=on -accel tcg,thread=multi -cpu max -smp 2 -m 1G \
  -nographic -no-reboot -monitor none \
  -object memory-backend-ram,id=m0,size=512M -object memory-backend-ram,id=m1,size=512M \
  -numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,memdev=m1,initiator=0 \
  -numa dist,src=0,dst=1,val=20 \
  -numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-latency,latency=100 \
  -numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-bandwidth,bandwidth=20G \
  -numa hmat-lb,initiator=0,target=1,hierarchy=memory,data-type=access-latency,latency=250 \
  -numa hmat-lb,initiator=0,target=1,hierarchy=memory,data-type=access-bandwidth,bandwidth=10G
