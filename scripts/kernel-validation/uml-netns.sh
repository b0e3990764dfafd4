#!/bin/sh
# Runs inside a User-Mode Linux guest (the init scripts of netem-validate.sh
# and netem-live.sh call it): mounts what tc and ip need, loads sch_netem and
# veth from MODDIR, and joins two network namespaces, a (10.199.0.1) and b
# (10.199.0.2), by a veth pair va–vb with permanent neighbours (no ARP
# through a netem).
#
#   sh uml-netns.sh /usr/lib/uml/modules/<version>/kernel
set -e
MODDIR=$1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs tmpfs /run
insmod "$MODDIR/net/sched/sch_netem.ko"
insmod "$MODDIR/drivers/net/veth.ko"
ip netns add a
ip netns add b
ip link add va type veth peer name vb
ip link set va netns a
ip link set vb netns b
ip -n a addr add 10.199.0.1/30 dev va
ip -n b addr add 10.199.0.2/30 dev vb
ip -n a link set lo up; ip -n b link set lo up
ip -n a link set va up; ip -n b link set vb up
ip -n a neigh replace 10.199.0.2 lladdr "$(ip netns exec b cat /sys/class/net/vb/address)" dev va nud permanent
ip -n b neigh replace 10.199.0.1 lladdr "$(ip netns exec a cat /sys/class/net/va/address)" dev vb nud permanent
