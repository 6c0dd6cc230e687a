#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/demo_fresh.sh — how long scripts/demo.sh takes on a fresh Debian 12
# machine, apt step included: each round gets a new minimal bookworm root
# (debootstrap --variant=minbase, made once and copied), with empty package
# lists as in the debian:12 image, and a new clone of the repository; the
# demo runs inside it (chroot) and prints its step times. The load average
# before and after each round is printed beside them: on a shared machine a
# figure is only as good as the load it was taken under.
#
# usage: bench/demo_fresh.sh [--rounds N] [--keep-lists] [--mirror URL]
#                            [--cache DIR] [REPO]
#   REPO          the repository to clone (default: this one's top folder)
#   --rounds N    how many fresh roots, one after the other (default 1)
#   --keep-lists  keep the package lists debootstrap fetched (a cloud image
#                 that has them) instead of emptying them
#   --mirror URL  Debian mirror (default http://deb.debian.org/debian)
#   --cache DIR   where the pristine root is kept between runs (default
#                 /var/tmp/cclscope-demo-fresh); rounds run in DIR/round
# Needs root (debootstrap, chroot, mount) and Debian's debootstrap package.
set -euo pipefail
rounds=1 keep_lists=0 mirror=http://deb.debian.org/debian
cache=/var/tmp/cclscope-demo-fresh
repo=$(cd "$(dirname "$0")/.." && pwd)
while [ $# -gt 0 ]; do
  case $1 in
  --rounds) rounds=$2; shift 2 ;;
  --keep-lists) keep_lists=1; shift ;;
  --mirror) mirror=$2; shift 2 ;;
  --cache) cache=$2; shift 2 ;;
  -h | --help) sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "demo_fresh: unknown option '$1' (try --help)" >&2; exit 2 ;;
  *) repo=$1; shift ;;
  esac
done
if [ "$(id -u)" -ne 0 ]; then
  echo "demo_fresh: needs root (debootstrap, chroot and mount)" >&2
  exit 1
fi
command -v debootstrap >/dev/null ||
  { echo "demo_fresh: debootstrap is missing (apt-get install -y debootstrap)" >&2; exit 1; }

pristine=$cache/pristine round=$cache/round
mkdir -p "$cache"
if [ ! -x "$pristine/bin/bash" ]; then
  echo "demo_fresh: making a minimal bookworm root in $pristine (once)"
  rm -rf "$pristine"
  debootstrap --variant=minbase bookworm "$pristine" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
    { echo "demo_fresh: debootstrap failed, see $cache/debootstrap.log" >&2; exit 1; }
fi

unmount_round() {
  umount -R "$round/dev" 2>/dev/null || true
  umount "$round/proc" "$round/sys" 2>/dev/null || true
}
trap unmount_round EXIT

for i in $(seq 1 "$rounds"); do
  unmount_round
  rm -rf "$round"
  cp -a "$pristine" "$round"
  cp /etc/resolv.conf "$round/etc/resolv.conf"
  if [ $keep_lists -eq 0 ]; then
    find "$round/var/lib/apt/lists" -maxdepth 1 -type f -delete
  fi
  git clone -q "$repo" "$round/root/cclscope"
  mount -t proc proc "$round/proc"
  mount --rbind /dev "$round/dev"
  mount -t sysfs sys "$round/sys"
  echo "== round $i of $rounds (commit $(git -C "$round/root/cclscope" rev-parse --short HEAD))"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  t0=$(date +%s.%N)
  rc=0
  chroot "$round" /bin/bash -lc 'cd /root/cclscope && scripts/demo.sh' >"$cache/demo-$i.log" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ $rc -ne 0 ]; then
    echo "demo_fresh: scripts/demo.sh failed (exit $rc), see $cache/demo-$i.log" >&2
    exit 1
  fi
  grep -E 'Need to get|^Fetched' "$cache/demo-$i.log" | sed 's/^/apt: /'
  sed -n '/^Time per step/,/^$/p' "$cache/demo-$i.log"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "wall time of scripts/demo.sh: %.1f s\n\n", b - a }'
done
