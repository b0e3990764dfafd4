#!/bin/sh
# Runs inside a User-Mode Linux guest after uml-netns.sh (which mounts /proc,
# /sys, /run and loads sch_netem and veth): adds a three-namespace path for
# two-hop measurements, next to uml-netns.sh's a–b pair, which it leaves
# alone:
#
#   a2 (10.199.1.1) ─ a2r ══ ra ─ r ─ rb ══ b2r ─ b2 (10.199.2.2)
#                            10.199.1.2   10.199.2.1
#
# r forwards between its two veth ends, a2 and b2 route to each other
# through it, and every neighbour is permanent (no ARP through a netem).
# Put a netem on a2r, ra, rb and b2r and each direction crosses two
# impaired links: the path a peer-to-peer packet takes through a relay.
#
#   sh uml-netns-relay.sh
set -e
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
for ns in a2 r b2; do ip netns add $ns; ip -n $ns link set lo up; done
ip link add a2r type veth peer name ra
ip link add b2r type veth peer name rb
ip link set a2r netns a2; ip link set ra netns r
ip link set b2r netns b2; ip link set rb netns r
ip -n a2 addr add 10.199.1.1/30 dev a2r
ip -n r addr add 10.199.1.2/30 dev ra
ip -n r addr add 10.199.2.1/30 dev rb
ip -n b2 addr add 10.199.2.2/30 dev b2r
for l in "a2 a2r" "r ra" "r rb" "b2 b2r"; do set -- $l; ip -n $1 link set $2 up; done
ip netns exec r sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'
ip -n a2 route add default via 10.199.1.2 dev a2r
ip -n b2 route add default via 10.199.2.1 dev b2r
mac() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }
ip -n a2 neigh replace 10.199.1.2 lladdr "$(mac r ra)" dev a2r nud permanent
ip -n r neigh replace 10.199.1.1 lladdr "$(mac a2 a2r)" dev ra nud permanent
ip -n r neigh replace 10.199.2.2 lladdr "$(mac b2 b2r)" dev rb nud permanent
ip -n b2 neigh replace 10.199.2.1 lladdr "$(mac r rb)" dev b2r nud permanent
