#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/metrics/prometheus_outputs.sh — every Prometheus output the plugin
# produces passes `promtool check metrics` without a single remark, and
# carries every series docs/metrics.md promises:
#  1. a live process (HTTP endpoint + CCLSCOPE_PROM_DIR textfile, windows
#     of 600 s closed by CCLSCOPE_METRICS_WINDOW_EVENTS): GET and HEAD
#     /metrics, promtool on both outputs, a window closed by its event count
#     long before its time; at exit the textfile is removed;
#  2. CCLSCOPE_PROM_FILE with CCLSCOPE_PROM_KEEP=1: the final textfile has
#     every name of the docs' table and passes promtool.
# usage: prometheus_outputs.sh DRIVER PLUGIN DOCS_METRICS_MD
set -euo pipefail
driver=$1 plugin=$2 docs=$3
command -v promtool >/dev/null || { echo "FAIL: promtool is not installed (Debian: prometheus)"; exit 1; }
command -v curl >/dev/null || { echo "FAIL: curl is not installed"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-promout-XXXXXX")
cleanup() { kill "${drv_pid:-}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# promtool prints nothing for a clean exposition; any line is a remark.
lint() { # FILE WHAT
  local out
  out=$(promtool check metrics <"$1" 2>&1) || fail "$2: promtool failed: $out"
  [ -z "$out" ] || fail "$2: promtool remarks: $out"
}

# ---- 1. a live process ----
: >"$work/driver.log"
CCLSCOPE_MODE=metrics CCLSCOPE_METRICS_WINDOW=600 CCLSCOPE_METRICS_WINDOW_EVENTS=100 \
  CCLSCOPE_PROM_PORT=$((20000 + RANDOM % 20000)) CCLSCOPE_PROM_DIR="$work/textfiles" \
  CCLSCOPE_DIR="$work/out" NCCL_DEBUG=INFO METRICS_DRIVER_P2P=1 METRICS_DRIVER_DONE="$work/done" \
  "$driver" "$plugin" 25 60 2>>"$work/driver.log" &
drv_pid=$!
port=""
for _ in $(seq 100); do
  port=$(sed -n 's|.*serving metrics at http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$work/driver.log" | head -n1)
  [ -n "$port" ] && grep -q "12 sends emitted" "$work/driver.log" && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/driver.log"; fail "the plugin did not start its endpoint"; }
# A window gauge exists only once a window has closed: with 600 s windows,
# only the event count (100 of the driver's 159 ended events; the channel
# transfers come after event 75) can have closed one.
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/metrics" >"$work/http.prom" || true
  grep -q '^cclscope_channel_transfer_size_bytes{' "$work/http.prom" && break
  sleep 0.1
done
grep -q '^cclscope_channel_transfer_size_bytes{' "$work/http.prom" ||
  fail "no window closed by CCLSCOPE_METRICS_WINDOW_EVENTS within 10 s"
lint "$work/http.prom" "GET /metrics"
textfile=$(ls "$work"/textfiles/cclscope_*_pid"$drv_pid".prom 2>/dev/null || true)
[ -n "$textfile" ] || fail "no CCLSCOPE_PROM_DIR textfile while the process runs"
lint "$textfile" "the CCLSCOPE_PROM_DIR textfile"
grep -q 'host=' "$work/http.prom" && fail "a host label is still exported"
# HEAD: the GET answer's status and headers, no body.
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n' >&3
head_answer=$(cat <&3 | tr -d '\r')
exec 3<&-
echo "$head_answer" | head -n1 | grep -q '^HTTP/1.1 200' || fail "HEAD /metrics: $head_answer"
length=$(echo "$head_answer" | sed -n 's/^Content-Length: //p')
[ "${length:-0}" -gt 0 ] || fail "HEAD /metrics has no Content-Length: $head_answer"
[ -z "$(echo "$head_answer" | sed '1,/^$/d')" ] || fail "HEAD /metrics sent a body"
touch "$work/done" # the driver finalizes and exits: the textfile goes
wait "$drv_pid" || fail "the driver failed"
drv_pid=""
[ ! -e "$textfile" ] || fail "the textfile $textfile outlived its process"

# ---- 2. the final textfile has every series the docs list ----
CCLSCOPE_MODE=metrics CCLSCOPE_METRICS_WINDOW=600 CCLSCOPE_PROM_FILE="$work/final/all.prom" \
  CCLSCOPE_PROM_KEEP=1 CCLSCOPE_DIR="$work/out" METRICS_DRIVER_P2P=1 \
  "$driver" "$plugin" 5 0 2>"$work/final.log" || { cat "$work/final.log"; fail "driver"; }
[ -s "$work/final/all.prom" ] || fail "CCLSCOPE_PROM_KEEP=1 did not keep the textfile"
lint "$work/final/all.prom" "the final CCLSCOPE_PROM_FILE textfile"
names=$(awk -F'|' '/^\| `cclscope_/ { gsub(/[` ]/, "", $2); print $2 }' "$docs")
[ "$(echo "$names" | wc -l)" -ge 25 ] || fail "could not read the metric table of $docs"
missing=""
for name in $names; do
  grep -q "^# TYPE $name " "$work/final/all.prom" || missing="$missing $name"
done
[ -z "$missing" ] || fail "documented but not exported:$missing"
echo "PASS: promtool clean on /metrics and both textfiles; $(echo "$names" | wc -l) documented series present; HEAD, count-closed window and textfile removal work"
