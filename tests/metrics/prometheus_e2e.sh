#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/metrics/prometheus_e2e.sh — a real Prometheus server (Debian's
# package), started on loopback, scrapes the plugin's /metrics endpoint;
# its query API must return the series and values the driver produced.
# usage: prometheus_e2e.sh DRIVER PLUGIN
set -euo pipefail
driver=$1 plugin=$2
command -v prometheus >/dev/null || { echo "FAIL: prometheus is not installed (scripts/install-deps.sh installs it)"; exit 1; }
command -v curl >/dev/null || { echo "FAIL: curl is not installed"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-prom-XXXXXX")
cleanup() { kill "${prom_pid:-}" "${drv_pid:-}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
N=40

# The plugin picks the first free port from the base and logs it.
# Windows longer than the scrape interval, so every gauge is scraped.
# The driver holds its collectives until Prometheus scrapes it ("go" file).
: >"$work/driver.log" # exists before the poll below reads it
# The opt-in global_rank label (docs/metrics.md) is on here, from RANK.
RANK=42 CCLSCOPE_METRICS_GLOBAL_RANK=1 \
METRICS_DRIVER_GO="$work/go" CCLSCOPE_MODE=metrics CCLSCOPE_METRICS_WINDOW=2 CCLSCOPE_PROM_PORT=$((20000 + RANDOM % 20000)) \
  CCLSCOPE_DIR="$work/out" NCCL_DEBUG=INFO "$driver" "$plugin" $N 40 2>>"$work/driver.log" &
drv_pid=$!
port=""
for _ in $(seq 100); do
  port=$(sed -n 's|.*serving metrics at http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$work/driver.log" | head -n1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "FAIL: the plugin did not start its endpoint"; cat "$work/driver.log"; exit 1; }
curl -sf "http://127.0.0.1:$port/metrics" | grep -q '^# TYPE cclscope_plugin_callbacks_total counter' ||
  { echo "FAIL: /metrics does not serve the exposition"; exit 1; }
curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nope" | grep -q 404 ||
  { echo "FAIL: unknown paths must be 404"; exit 1; }

pport=$((40000 + RANDOM % 20000))
cat >"$work/prometheus.yml" <<CFG
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: cclscope
    static_configs: [{targets: ['127.0.0.1:$port']}]
CFG
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$pport" --log.level=warn >"$work/prom.log" 2>&1 &
prom_pid=$!

query() { curl -sf --get "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" 2>/dev/null || true; }
value_of() { sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p'; }

up=""
for _ in $(seq 120); do
  up=$(query 'up{job="cclscope"}' | value_of)
  [ "$up" = "1" ] && break
  sleep 0.25
done
[ "$up" = "1" ] || { echo "FAIL: Prometheus never scraped the endpoint (up = '$up')"; cat "$work/prom.log"; exit 1; }
touch "$work/go"

count=""
for _ in $(seq 60); do
  count=$(query 'sum(cclscope_collective_duration_seconds_count{func="AllReduce",source="gpu",comm="0x51",rank="3",global_rank="42"})' | value_of)
  [ "$count" = "$N" ] && break
  sleep 0.5
done
[ "$count" = "$N" ] || { echo "FAIL: Prometheus sees count '$count', expected $N"; cat "$work/prom.log"; exit 1; }
# The gauge appears when the window after the collectives closes: poll.
bw=""
for _ in $(seq 40); do
  bw=$(query 'max_over_time(cclscope_collective_bus_bandwidth_bytes_per_second{func="AllReduce",size="8MiB"}[5m])' | value_of)
  [ -n "$bw" ] && break
  sleep 0.5
done
# 8 MiB in 1 ms on 8 ranks: 8388608 / 1e-3 * 2*7/8 = 1.4680064e10 B/s
awk -v bw="$bw" 'BEGIN { e = 14680064000; d = bw - e; if (d < 0) d = -d; exit !(bw != "" && d / e < 0.01) }' ||
  { echo "FAIL: bus bandwidth '$bw', expected 1.468e10 within 1%"; exit 1; }
p50=$(query 'histogram_quantile(0.5, sum by (le) (cclscope_collective_duration_seconds_bucket{func="AllReduce"}))' | value_of)
awk -v v="$p50" 'BEGIN { exit !(v > 0.00025 && v <= 0.001024) }' ||
  { echo "FAIL: p50 '$p50' outside the 1 ms bucket"; exit 1; }
echo "PASS: Prometheus scraped $N collectives, busBw $bw B/s, p50 $p50 s"
