#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/metrics/exporter_deadlines.sh — a dead or hostile network peer never
# holds the job: with an OTLP collector that accepts and never answers (and
# a 60 s OTLP timeout), one that answers 500, a client trickling bytes to
# /metrics, and 200 idle /metrics connections, the job's wall time stays
# within the exit deadline (CCLSCOPE_EXIT_DEADLINE, 1 s) of the same job
# without exporters; /metrics serves a normal scrape while the 200 idle
# connections are open.
#
# The job runs 1 s (HOLD). Wall times are compared with a 15 s allowance for a busy machine (a
# loaded CI host slowed jobs by several seconds): the failures this guards
# against cost 60 s (the OTLP timeout) or last as long as the hostile
# client does (the trickler needs 28 minutes to send its request).
# usage: exporter_deadlines.sh DRIVER PLUGIN
set -euo pipefail
driver=$1 plugin=$2
here=$(cd "$(dirname "$0")" && pwd)
peers="python3 $here/hostile_peers.py"
command -v curl >/dev/null || { echo "FAIL: curl is not installed"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-deadlines-XXXXXX")
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$work"/*.log; do echo "--- $f"; tail -n 20 "$f"; done; exit 1; }

N=20 HOLD=1 DEADLINE=1 SLACK_MS=15000
export CCLSCOPE_MODE=metrics CCLSCOPE_METRICS_WINDOW=0.2 CCLSCOPE_SUMMARY=off
export CCLSCOPE_EXIT_DEADLINE=$DEADLINE OTEL_EXPORTER_OTLP_TIMEOUT=60000
export NCCL_DEBUG=INFO

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# job NAME [VAR=VALUE...]: run the driver in the background, log in NAME.log
job() {
  local name=$1
  shift
  : >"$work/$name.log"
  now_ms >"$work/$name.start"
  env CCLSCOPE_DIR="$work/$name" "$@" "$driver" "$plugin" $N $HOLD 2>>"$work/$name.log" &
  job_pid=$!
}
# go NAME: let a job that waits for METRICS_DRIVER_GO run its collectives;
# its time counts from now
go() {
  now_ms >"$work/$1.start"
  : >"$work/$1.go"
}
# finish NAME: wait for the job, record its wall time in ms
finish() {
  wait "$job_pid" || fail "$1: the driver failed"
  echo $(($(now_ms) - $(cat "$work/$1.start"))) >"$work/$1.ms"
}
wait_for() { # FILE PATTERN: until the pattern is in the file (30 s)
  for _ in $(seq 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "'$2' never appeared in $1"
}
http_port() { sed -n 's|.*serving metrics at http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$1" | head -n1; }
within() { # NAME EXTRA_MS: NAME's wall time <= baseline + EXTRA_MS + slack
  local ms base
  ms=$(cat "$work/$1.ms") base=$(cat "$work/base.ms")
  echo "$1: ${ms} ms (no exporter: ${base} ms; $(sed -n 's/.*finalize took //p' "$work/$1.log"))"
  [ "$ms" -le $((base + $2 + SLACK_MS)) ] ||
    fail "$1 took ${ms} ms, more than ${base} ms + $2 ms + ${SLACK_MS} ms"
}

# The job without any exporter.
job base
finish base
echo "base: $(cat "$work/base.ms") ms"

# 1. A collector that accepts and never answers: a push is in flight at exit.
$peers silent "$work/silent.port" & pids+=($!)
wait_for "$work/silent.port" .
job silent CCLSCOPE_OTLP_ENDPOINT="http://127.0.0.1:$(cat "$work/silent.port")/v1/metrics"
finish silent
within silent $((DEADLINE * 1000))
grep -q "cut at the exit deadline" "$work/silent.log" || fail "silent: no word of the cut push"

# 2. A collector that answers 500 to everything.
$peers status "$work/s500.port" 500 & pids+=($!)
wait_for "$work/s500.port" .
job s500 CCLSCOPE_OTLP_ENDPOINT="http://127.0.0.1:$(cat "$work/s500.port")/v1/metrics"
finish s500
within s500 $((DEADLINE * 1000))
[ "$(cat "$work/s500.port.requests" 2>/dev/null || echo 0)" -ge 1 ] || fail "s500: the collector saw no push"

# 3. A /metrics client sending one byte every 0.5 s. The job holds until
# the client is connected (METRICS_DRIVER_GO), and its time counts from
# there: a busy host may start the client late.
job trickle CCLSCOPE_PROM_PORT=$((20000 + RANDOM % 20000)) METRICS_DRIVER_GO="$work/trickle.go"
wait_for "$work/trickle.log" "serving metrics at"
$peers trickle "$(http_port "$work/trickle.log")" >"$work/trickler.log" 2>&1 & pids+=($!)
wait_for "$work/trickler.log" "connected"
go trickle
finish trickle
within trickle 0
wait_for "$work/trickler.log" "closed after"

# 4. 200 idle /metrics connections; a scrape still gets its answer at once.
# The job holds until they are open and the scrape is done.
job idle CCLSCOPE_PROM_PORT=$((20000 + RANDOM % 20000)) METRICS_DRIVER_GO="$work/idle.go"
wait_for "$work/idle.log" "serving metrics at"
port=$(http_port "$work/idle.log")
$peers idle "$port" 200 >"$work/idlers.log" 2>&1 & pids+=($!)
wait_for "$work/idlers.log" "open 200"
# (10 s: without the fix no answer ever comes; a busy host may take seconds)
curl -sf --max-time 10 "http://127.0.0.1:$port/metrics" >"$work/scrape.txt" ||
  fail "idle: no answer to a scrape within 10 s while 200 idle connections are open"
grep -q '^# TYPE cclscope_plugin_callbacks_total counter' "$work/scrape.txt" ||
  fail "idle: the scrape did not return the exposition"
go idle
finish idle
within idle 0
echo "PASS"
