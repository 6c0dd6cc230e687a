#!/usr/bin/env bash
# tests/metrics/otlp_e2e.sh — the plugin pushes OTLP/HTTP JSON to a receiver
# that validates every payload against the OpenTelemetry protobuf schema.
# usage: otlp_e2e.sh DRIVER PLUGIN
set -euo pipefail
driver=$1 plugin=$2
here=$(cd "$(dirname "$0")" && pwd)
[ -d "$here/node_modules/@opentelemetry/otlp-proto-exporter-base" ] ||
  { echo "FAIL: run 'npm ci' in tests/metrics first (scripts/test.sh does)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-otlp-XXXXXX")
cleanup() { kill "${recv_pid:-}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
N=25

node "$here/otlp_receiver.mjs" "$work/port" "$work/report.json" &
recv_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")

CCLSCOPE_MODE=metrics CCLSCOPE_METRICS_WINDOW=0.2 CCLSCOPE_DIR="$work/out" \
  CCLSCOPE_OTLP_ENDPOINT="http://127.0.0.1:$port/v1/metrics" \
  OTEL_EXPORTER_OTLP_HEADERS="x-test-header=present" \
  OTEL_RESOURCE_ATTRIBUTES="deployment.environment=ci,team=ml%20infra" \
  "$driver" "$plugin" $N 1.5
kill -TERM "$recv_pid"
wait "$recv_pid" || true
report="$work/report.json"
node -e '
const r = JSON.parse(require("fs").readFileSync(process.argv[1]));
const n = Number(process.argv[2]);
const fail = (m) => { console.log("FAIL: " + m); console.log(JSON.stringify(r, null, 1)); process.exit(1); };
if (r.errors.length) fail("invalid payloads: " + r.errors.slice(0, 3).join("; "));
if (r.valid < 2) fail("expected several pushes, got " + r.valid);
const d = r.metrics["cclscope.collective.duration"];
if (!d || !d.kinds.includes("histogram")) fail("no duration histogram");
if (d.lastCount !== n) fail("histogram count " + d.lastCount + ", expected " + n);
const bw = r.metrics["cclscope.collective.bus_bandwidth"];
if (!bw || Math.abs(bw.last - 14680064000) / 14680064000 > 0.01) fail("bus bandwidth " + (bw && bw.last));
if (r.resource["service.name"] !== "cclscope") fail("service.name");
if (r.resource["deployment.environment"] !== "ci") fail("OTEL_RESOURCE_ATTRIBUTES not applied");
if (r.resource["team"] !== "ml infra") fail("percent-decoding of resource attributes");
if (!r.resource["host.name"] || !r.resource["process.pid"]) fail("host/pid attributes");
if ("cclscope.global_rank" in r.resource) fail("cclscope.global_rank without CCLSCOPE_METRICS_GLOBAL_RANK");
console.log("PASS: " + r.valid + " valid OTLP pushes, histogram count " + d.lastCount);
' "$report" "$N"
