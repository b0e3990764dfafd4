#!/usr/bin/env bash
# Sourced by the User-Mode Linux scripts (netem-validate.sh,
# transport-validate.sh, netem-corrupt.sh): `uml_setup` installs
# user-mode-linux, iproute2, kmod and python3 from Debian's packages when
# missing (needs root the first time) and sets MODDIR to the UML kernel's
# modules, checking that sch_netem and veth are there.
uml_setup() {
  need() { command -v "$1" >/dev/null 2>&1; }
  if ! need linux.uml || ! need tc || ! need ip || ! need python3 || ! need insmod; then
    echo "installing user-mode-linux, iproute2, kmod, python3 ..." >&2
    if [ "$(id -u)" != 0 ]; then echo "need root to apt-get install user-mode-linux; stopping" >&2; exit 2; fi
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq user-mode-linux iproute2 kmod python3 >/dev/null
  fi
  MODDIR=$(ls -d /usr/lib/uml/modules/*/kernel | head -n1)
  for m in net/sched/sch_netem.ko drivers/net/veth.ko; do
    [ -f "$MODDIR/$m" ] || { echo "no $m under $MODDIR" >&2; exit 2; }
  done
}
