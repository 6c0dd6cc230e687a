#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/metrics/otlp_headers.sh — nothing the environment holds becomes a
# line of its own in the OTLP request's head. A collector that records each
# request's head byte for byte (hostile_peers.py capture) receives the
# plugin's pushes while:
#   1. OTEL_EXPORTER_OTLP_HEADERS holds a %0d%0a-encoded header line, and
#      OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES hold raw CR LF;
#   2. OTEL_EXPORTER_OTLP_METRICS_HEADERS holds a raw CR LF (it wins over
#      OTEL_EXPORTER_OTLP_HEADERS);
#   3. CCLSCOPE_OTLP_ENDPOINT holds a raw CR LF (the next endpoint variable
#      is used instead).
# Every head must lack the injected lines and keep the good header, and
# stderr must hold the one warning naming the variable (docs/metrics.md,
# "The OTLP push").
# usage: otlp_headers.sh DRIVER PLUGIN
set -euo pipefail
driver=$1 plugin=$2
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null || { echo "FAIL: python3 is not installed"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-otlp-headers-XXXXXX")
peer_pid=""
cleanup() { [ -z "$peer_pid" ] || kill "$peer_pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$work"/*.log; do echo "--- $f"; cat -v "$f"; done; exit 1; }

CRLF=$'\r\n'

# push NAME [VAR=VALUE...]: a capturing collector, one driver run with
# those variables (@URL@ in one stands for the collector's URL);
# the heads land in NAME.heads, stderr in NAME.log.
push() {
  local name=$1
  shift
  rm -f "$work/port"
  python3 "$here/hostile_peers.py" capture "$work/port" "$work/$name.heads" &
  peer_pid=$!
  for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
  [ -s "$work/port" ] || fail "$name: the collector did not start"
  local url="http://127.0.0.1:$(cat "$work/port")/v1/metrics" settings=()
  for setting in "$@"; do settings+=("${setting//@URL@/$url}"); done
  env CCLSCOPE_MODE=metrics CCLSCOPE_METRICS_WINDOW=0.2 CCLSCOPE_DIR="$work/$name" \
    CCLSCOPE_SUMMARY=off "${settings[@]}" "$driver" "$plugin" 5 0.6 2>"$work/$name.log" ||
    fail "$name: the driver failed"
  kill "$peer_pid"
  wait "$peer_pid" 2>/dev/null || true
  peer_pid=""
  [ -s "$work/$name.heads" ] || fail "$name: the collector received no push"
}

# heads_ok NAME: every request's head keeps the good header, and no line
# of any head starts with an injected name.
heads_ok() {
  local name=$1 requests good
  requests=$(grep -ac '^POST /v1/metrics HTTP/1.1' "$work/$name.heads" || true)
  good=$(grep -ac '^good: yes'$'\r''$' "$work/$name.heads" || true)
  [ "$requests" -ge 1 ] || fail "$name: no request line in the heads"
  [ "$good" = "$requests" ] || fail "$name: $good of $requests requests kept the good header"
  if grep -ai -e '^X-[A-Za-z]*-\?Injected' -e '^a: b' "$work/$name.heads"; then
    cat -A "$work/$name.heads" | head -n 20
    fail "$name: an injected header line reached the collector"
  fi
  echo "$name: $requests requests, none with an injected line"
}

# warned NAME TEXT: stderr holds TEXT exactly once.
warned() {
  local n
  n=$(grep -acF -- "$2" "$work/$1.log" || true)
  [ "$n" = 1 ] || fail "$1: expected one warning with '$2', found $n"
}

push encoded CCLSCOPE_OTLP_ENDPOINT=@URL@ \
  "OTEL_EXPORTER_OTLP_HEADERS=good=yes,a=b%0d%0aX-Injected: 1" \
  "OTEL_SERVICE_NAME=llm${CRLF}X-Service-Injected: 1" \
  "OTEL_RESOURCE_ATTRIBUTES=team=ml${CRLF}X-Attribute-Injected: 1"
heads_ok encoded
warned encoded "OTEL_EXPORTER_OTLP_HEADERS: the header 'a' is not sent"

push raw CCLSCOPE_OTLP_ENDPOINT=@URL@ \
  "OTEL_EXPORTER_OTLP_HEADERS=general=1" \
  "OTEL_EXPORTER_OTLP_METRICS_HEADERS=good=yes,a=b${CRLF}X-Injected: 1"
heads_ok raw
warned raw "OTEL_EXPORTER_OTLP_METRICS_HEADERS: the header 'a' is not sent"
if grep -aq '^general:' "$work/raw.heads"; then
  fail "raw: OTEL_EXPORTER_OTLP_HEADERS was sent although the _METRICS_ variable is set"
fi

push endpoint "CCLSCOPE_OTLP_ENDPOINT=@URL@${CRLF}X-Injected: 1" \
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT=@URL@ OTEL_EXPORTER_OTLP_HEADERS=good=yes
heads_ok endpoint
warned endpoint "CCLSCOPE_OTLP_ENDPOINT='http://127.0.0.1:"
warned endpoint "using OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"

echo "PASS: no injected header line in any OTLP request; each refusal warned once"
