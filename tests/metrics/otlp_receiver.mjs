// tests/metrics/otlp_receiver.mjs — an OTLP/HTTP metrics receiver for tests.
// Every POST /v1/metrics body must be an ExportMetricsServiceRequest in the
// protobuf JSON mapping: it is decoded with the OpenTelemetry schema
// (protobufjs code generated from the official .proto files), verified,
// encoded to the binary format, and converted back to JSON; any key the
// schema does not know, or any value that does not survive the round trip,
// is an error. Histogram invariants are checked too. On SIGTERM it writes
// a report (JSON) and exits.
//
// usage: node otlp_receiver.mjs PORTFILE REPORTFILE
import http from 'node:http';
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = require('@opentelemetry/otlp-proto-exporter-base/build/src/generated/root.js');
const Request =
    root.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;

const [portFile, reportFile] = process.argv.slice(2);
const report = { requests: 0, valid: 0, errors: [], metrics: {}, resource: {} };

// Drop empty arrays/objects: the round trip omits defaults.
function prune(v) {
  if (Array.isArray(v)) {
    const a = v.map(prune).filter((x) => x !== undefined);
    return a.length ? a : undefined;
  }
  if (v && typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v)) {
      const p = prune(x);
      if (p !== undefined) o[k] = p;
    }
    return Object.keys(o).length ? o : undefined;
  }
  return v;
}

// Compare JSON values, treating numeric strings and numbers as one.
function diff(a, b, path) {
  if (typeof a === 'number' || typeof b === 'number') {
    if (Number(a) !== Number(b)) return `${path}: ${a} != ${b}`;
    return null;
  }
  if (Array.isArray(a) !== Array.isArray(b) || typeof a !== typeof b)
    return `${path}: shape differs`;
  if (a && typeof a === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      if (!(k in a)) return `${path}.${k}: missing in the request`;
      if (!(k in b)) return `${path}.${k}: not in the OTLP schema`;
      const d = diff(a[k], b[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return a === b ? null : `${path}: ${a} != ${b}`;
}

function check(body) {
  let json;
  try {
    json = JSON.parse(body);
  } catch (e) {
    return `not JSON: ${e.message}`;
  }
  const msg = Request.fromObject(json);
  const err = Request.verify(msg);
  if (err) return `verify: ${err}`;
  const back = Request.decode(Request.encode(msg).finish());
  const obj = Request.toObject(back, { longs: String, enums: Number, defaults: false });
  const d = diff(prune(json), prune(obj), '$');
  if (d) return d;
  for (const rm of json.resourceMetrics ?? []) {
    for (const a of rm.resource?.attributes ?? [])
      report.resource[a.key] = a.value.stringValue ?? a.value.intValue;
    for (const sm of rm.scopeMetrics ?? []) {
      for (const m of sm.metrics ?? []) {
        const entry = (report.metrics[m.name] ??= { points: 0, kinds: [] });
        for (const kind of ['sum', 'gauge', 'histogram']) {
          if (!m[kind]) continue;
          if (!entry.kinds.includes(kind)) entry.kinds.push(kind);
          for (const p of m[kind].dataPoints ?? []) {
            entry.points++;
            if (kind === 'histogram') {
              const counts = p.bucketCounts.map(Number);
              if (counts.length !== p.explicitBounds.length + 1)
                return `${m.name}: ${counts.length} buckets for ${p.explicitBounds.length} bounds`;
              const total = counts.reduce((x, y) => x + y, 0);
              if (total !== Number(p.count))
                return `${m.name}: buckets sum to ${total}, count is ${p.count}`;
              entry.lastCount = Number(p.count);
            } else {
              entry.last = p.asDouble ?? Number(p.asInt);
            }
          }
        }
      }
    }
  }
  return null;
}

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    report.requests++;
    if (req.method !== 'POST' || req.url !== '/v1/metrics') {
      report.errors.push(`unexpected ${req.method} ${req.url}`);
      res.writeHead(404).end();
      return;
    }
    if (!String(req.headers['content-type']).startsWith('application/json'))
      report.errors.push(`content-type ${req.headers['content-type']}`);
    if (req.headers['x-test-header'] !== 'present')
      report.errors.push('OTEL_EXPORTER_OTLP_HEADERS not sent');
    const e = check(body);
    if (e) report.errors.push(e);
    else report.valid++;
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
  });
});
server.listen(0, '127.0.0.1', () => {
  fs.writeFileSync(portFile, String(server.address().port));
});
process.on('SIGTERM', () => {
  fs.writeFileSync(reportFile, JSON.stringify(report, null, 1));
  process.exit(0);
});
