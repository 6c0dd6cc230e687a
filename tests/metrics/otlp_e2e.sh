#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/metrics/otlp_e2e.sh — the plugin pushes OTLP/HTTP to a receiver that
# decodes every payload with the official OpenTelemetry protobuf schema
# (otlp_receiver.mjs): once as http/json, once as the default http/protobuf
# with gzip; both must carry the same metrics, the second also the SLURM,
# Kubernetes, host and process resource attributes (docs/metrics.md).
# Every OTLP name docs/metrics.md lists (its metric table and the OTel
# design's table) must be in the decoded data.
# usage: otlp_e2e.sh DRIVER PLUGIN DOCS_METRICS_MD
set -euo pipefail
driver=$1 plugin=$2 docs=$3
here=$(cd "$(dirname "$0")" && pwd)
[ -d "$here/node_modules/@opentelemetry/otlp-proto-exporter-base" ] ||
  { echo "FAIL: run 'npm ci' in tests/metrics first (scripts/test.sh does)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-otlp-XXXXXX")
cleanup() { kill "${recv_pid:-}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
N=25

# run_phase NAME [VAR=VALUE...]: one receiver, one driver run with those
# variables; the receiver's report lands in $work/NAME.json.
run_phase() {
  local name=$1
  shift
  rm -f "$work/port"
  env EXPECT_ENCODING="$name" ${EXPECT_GZIP:+EXPECT_GZIP=$EXPECT_GZIP} \
    node "$here/otlp_receiver.mjs" "$work/port" "$work/$name.json" &
  recv_pid=$!
  for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
  [ -s "$work/port" ] || { echo "FAIL: the receiver did not start"; exit 1; }
  local port
  port=$(cat "$work/port")
  env CCLSCOPE_MODE=metrics CCLSCOPE_METRICS_WINDOW=0.2 CCLSCOPE_DIR="$work/out" \
    METRICS_DRIVER_P2P=1 \
    CCLSCOPE_OTLP_ENDPOINT="http://127.0.0.1:$port/v1/metrics" \
    OTEL_EXPORTER_OTLP_HEADERS="x-test-header=present" \
    OTEL_RESOURCE_ATTRIBUTES="deployment.environment=ci,team=ml%20infra" \
    "$@" "$driver" "$plugin" $N 0.8 2>"$work/$name.log" ||
    { echo "FAIL: driver ($name)"; cat "$work/$name.log"; exit 1; }
  kill -TERM "$recv_pid"
  wait "$recv_pid" || true
  recv_pid=""
}

run_phase json OTEL_EXPORTER_OTLP_PROTOCOL=http/json
# The default protocol is http/protobuf; the _METRICS_ variables win.
EXPECT_GZIP=1 run_phase protobuf OTEL_EXPORTER_OTLP_COMPRESSION=none \
  OTEL_EXPORTER_OTLP_METRICS_COMPRESSION=gzip \
  SLURM_JOB_ID=4242 SLURM_JOB_NAME=train SLURM_PROCID=3 SLURM_LOCALID=1 \
  KUBERNETES_SERVICE_HOST=10.0.0.1 POD_NAME=trainer-0 POD_NAMESPACE=ml \
  K8S_NODE_NAME=gpu-node-7 OTEL_SERVICE_NAME=llm-train NCCL_DEBUG=INFO
grep -q "OTLP/HTTP protobuf, gzip" "$work/protobuf.log" ||
  { echo "FAIL: the plugin did not say it pushes protobuf with gzip"; cat "$work/protobuf.log"; exit 1; }

node - "$work/json.json" "$work/protobuf.json" "$N" "$docs" <<'JS'
const fs = require("fs");
const [jsonFile, protoFile, nText, docsFile] = process.argv.slice(2);
const n = Number(nText);
const reports = { json: JSON.parse(fs.readFileSync(jsonFile)), protobuf: JSON.parse(fs.readFileSync(protoFile)) };
const fail = (m) => { console.log("FAIL: " + m); console.log(JSON.stringify(reports, null, 1)); process.exit(1); };
for (const [name, r] of Object.entries(reports)) {
  if (r.errors.length) fail(`${name}: invalid payloads: ` + r.errors.slice(0, 3).join("; "));
  if (r.valid < 2) fail(`${name}: expected several pushes, got ` + r.valid);
  const d = r.metrics["cclscope.collective.duration"];
  if (!d || !d.kinds.includes("histogram")) fail(`${name}: no duration histogram`);
  if (d.counts?.["AllReduce/8MiB"] !== n) fail(`${name}: AllReduce counts ${JSON.stringify(d.counts)}, expected ${n}`);
  // 3 Sends of each size, each 2 channels x 2 steps of a quarter of its
  // size (metrics_driver.c); the AllReduces have no network transfers.
  const t = r.metrics["cclscope.collective.transfers"]?.values;
  const tb = r.metrics["cclscope.collective.transfer.bytes"]?.values;
  if (t?.["AllReduce/8MiB"] !== 0) fail(`${name}: AllReduce transfers ${JSON.stringify(t)}`);
  for (const kib of [64, 128, 256, 512]) {
    const key = `Send/${kib}KiB`;
    if (d.counts?.[key] !== 3) fail(`${name}: ${key} count ${d.counts?.[key]}, expected 3`);
    if (t?.[key] !== 12) fail(`${name}: ${key} transfers ${t?.[key]}, expected 12`);
    if (tb?.[key] !== 3 * kib * 1024) fail(`${name}: ${key} transfer bytes ${tb?.[key]}`);
  }
  for (const key of ["nccl.comm.id", "nccl.rank", "nccl.collective", "cclscope.size_bucket"])
    if (!d.attributes.includes(key)) fail(`${name}: duration lacks attribute ${key}`);
  if (d.attributes.includes("gpu.uuid")) fail(`${name}: gpu.uuid sent though unknown`);
  const bw = r.metrics["cclscope.collective.bus_bandwidth"];
  const allreduce = bw?.values?.["AllReduce/8MiB"];
  if (!(Math.abs(allreduce - 14680064000) / 14680064000 <= 0.01)) fail(`${name}: AllReduce bus bandwidth ${allreduce}`);
  if (r.resource["deployment.environment"] !== "ci") fail(`${name}: OTEL_RESOURCE_ATTRIBUTES not applied`);
  if (r.resource["team"] !== "ml infra") fail(`${name}: percent-decoding of resource attributes`);
  if (!r.resource["host.name"] || !r.resource["process.pid"]) fail(`${name}: host/pid attributes`);
  if (r.resource["process.executable.name"] !== "metrics_driver") fail(`${name}: process.executable.name`);
  if ("cclscope.global_rank" in r.resource) fail(`${name}: cclscope.global_rank without CCLSCOPE_METRICS_GLOBAL_RANK`);
}
// The same metrics, kinds, units, attribute keys and values both ways.
const a = reports.json.metrics, b = reports.protobuf.metrics;
// The rank span points carry the job rank when the launcher gave one
// (SLURM_PROCID in the protobuf phase) and leave it out when unknown.
for (const k of ["cclscope.rank.collective.time", "cclscope.rank.collectives"]) {
  if (!b[k]?.attributes.includes("cclscope.global_rank")) fail(`${k}: no cclscope.global_rank though SLURM_PROCID is set`);
  if (a[k]?.attributes.includes("cclscope.global_rank")) fail(`${k}: cclscope.global_rank sent though unknown`);
  b[k].attributes = b[k].attributes.filter((key) => key !== "cclscope.global_rank");
}
if (JSON.stringify(Object.keys(a).sort()) !== JSON.stringify(Object.keys(b).sort()))
  fail("JSON and protobuf carry different metrics");
for (const k of Object.keys(a)) {
  for (const f of ["kinds", "unit", "attributes", "counts"])
    if (JSON.stringify(a[k][f]) !== JSON.stringify(b[k][f])) fail(`${k}: ${f} differs between JSON and protobuf`);
}
// Values that do not depend on timing: the same both ways.
for (const k of ["cclscope.collective.bytes",
                 "cclscope.collective.transfers", "cclscope.collective.transfer.bytes",
                 "cclscope.link.bytes", "cclscope.link.transfers", "cclscope.channel.transfers",
                 "cclscope.channel.bytes"]) {
  if (!(k in a)) fail(`${k} missing`);
  if (Math.abs(a[k].last - b[k].last) > 1e-6 * Math.abs(a[k].last))
    fail(`${k}: last value ${a[k].last} (JSON) vs ${b[k].last} (protobuf)`);
}
const res = reports.protobuf.resource;
const want = { "service.name": "llm-train", "slurm.job.id": "4242", "slurm.job.name": "train",
  "slurm.procid": "3", "slurm.localid": "1", "k8s.pod.name": "trainer-0", "k8s.namespace.name": "ml",
  "k8s.node.name": "gpu-node-7" };
for (const [k, v] of Object.entries(want)) if (res[k] !== v) fail(`resource ${k} = ${res[k]}, expected ${v}`);
if (reports.json.resource["service.name"] !== "cclscope") fail("default service.name");
if ("slurm.job.id" in reports.json.resource || "k8s.pod.name" in reports.json.resource)
  fail("SLURM/K8s attributes without their variables");
// The names the docs promise: the metric table's OTLP column, and every
// cclscope.* name in the OTel profiler design's table.
const docs = fs.readFileSync(docsFile, "utf8");
const promised = new Set();
for (const line of docs.split("\n")) {
  const cells = line.split("|");
  if (cells.length > 7 && /^\s*`cclscope_/.test(cells[1])) {
    const otlp = cells[6].replace(/[` ]/g, "");
    if (otlp !== "—") promised.add(otlp);
  }
}
const design = docs.split("### The OTel profiler design's metrics")[1]?.split("\n## ")[0] ?? "";
for (const m of design.matchAll(/`(cclscope\.[a-z_.]+)`/g)) promised.add(m[1]);
if (promised.size < 30) fail(`read only ${promised.size} OTLP names from ${docsFile}`);
for (const [name, r] of Object.entries(reports))
  for (const m of promised) if (!(m in r.metrics)) fail(`${name}: ${m} is documented but not exported`);
console.log(`PASS: ${reports.json.valid} JSON and ${reports.protobuf.valid} protobuf+gzip pushes agree on ${Object.keys(a).length} metrics; all ${promised.size} documented names present`);
JS
