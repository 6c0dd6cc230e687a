// SPDX-License-Identifier: Apache-2.0
// tests/metrics/otlp_receiver.mjs — an OTLP/HTTP metrics receiver for tests.
// Every POST /v1/metrics body must be an ExportMetricsServiceRequest, as
// its Content-Type says:
//  - application/json (the protobuf JSON mapping): decoded with the
//    OpenTelemetry schema (protobufjs code generated from the official
//    .proto files), verified, encoded to the binary format, and converted
//    back to JSON; any key the schema does not know, or any value that does
//    not survive the round trip, is an error;
//  - application/x-protobuf: decoded with the same schema, verified, and
//    encoded again: a body whose re-encoding is not byte for byte as long
//    (fields the schema does not know, which a decoder skips silently, or
//    non-minimal varints) is an error.
// Content-Encoding: gzip is gunzipped first; EXPECT_ENCODING=json|protobuf
// and EXPECT_GZIP=1 in the environment make any other body an error.
// Histogram invariants are checked too. On SIGTERM it writes a report
// (JSON: per metric its kinds, points, last value and the attribute keys
// seen; the resource attributes) and exits.
//
// usage: node otlp_receiver.mjs PORTFILE REPORTFILE
import http from 'node:http';
import fs from 'node:fs';
import zlib from 'node:zlib';
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

// "AllReduce/8MiB": a point's operation and size bucket, or null.
function opKey(p) {
  const attr = (k) => (p.attributes ?? []).find((a) => a.key === k)?.value.stringValue;
  const op = attr('nccl.collective');
  return op ? `${op}/${attr('cclscope.size_bucket')}` : null;
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

function checkJson(body) {
  let json;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (e) {
    return [`not JSON: ${e.message}`, null];
  }
  const msg = Request.fromObject(json);
  const err = Request.verify(msg);
  if (err) return [`verify: ${err}`, null];
  const back = Request.decode(Request.encode(msg).finish());
  const obj = Request.toObject(back, { longs: String, enums: Number, defaults: false });
  const d = diff(prune(json), prune(obj), '$');
  if (d) return [d, null];
  return [null, json];
}

function checkProtobuf(body) {
  let msg;
  try {
    msg = Request.decode(body);
  } catch (e) {
    return [`not an ExportMetricsServiceRequest: ${e.message}`, null];
  }
  const err = Request.verify(msg);
  if (err) return [`verify: ${err}`, null];
  const again = Request.encode(msg).finish();
  if (again.length !== body.length)
    return [`re-encoded to ${again.length} bytes, received ${body.length}: unknown or malformed fields`, null];
  // The JSON mapping of what was decoded, as the JSON path reports it.
  const json = Request.toObject(msg, { longs: String, enums: Number, defaults: false });
  return [null, JSON.parse(JSON.stringify(json))];
}

function record(json) {
  for (const rm of json.resourceMetrics ?? []) {
    const seen = new Set();
    for (const a of rm.resource?.attributes ?? []) {
      if (seen.has(a.key)) return `resource attribute ${a.key} twice`;
      seen.add(a.key);
      const v = a.value.stringValue ?? a.value.intValue;
      if (v === '' || v === undefined) return `empty resource attribute ${a.key}`;
      report.resource[a.key] = String(v);
    }
    for (const sm of rm.scopeMetrics ?? []) {
      for (const m of sm.metrics ?? []) {
        const entry = (report.metrics[m.name] ??= { points: 0, kinds: [], attributes: [], unit: m.unit ?? '' });
        for (const kind of ['sum', 'gauge', 'histogram']) {
          if (!m[kind]) continue;
          if (!entry.kinds.includes(kind)) entry.kinds.push(kind);
          for (const p of m[kind].dataPoints ?? []) {
            entry.points++;
            for (const a of p.attributes ?? []) {
              if (!entry.attributes.includes(a.key)) entry.attributes.push(a.key);
              const v = a.value.stringValue ?? a.value.intValue;
              if (v === '' || v === undefined) return `${m.name}: empty attribute ${a.key}`;
            }
            if (kind === 'histogram') {
              const counts = p.bucketCounts.map(Number);
              if (counts.length !== p.explicitBounds.length + 1)
                return `${m.name}: ${counts.length} buckets for ${p.explicitBounds.length} bounds`;
              const total = counts.reduce((x, y) => x + y, 0);
              if (total !== Number(p.count))
                return `${m.name}: buckets sum to ${total}, count is ${p.count}`;
              entry.lastCount = Number(p.count);
              // The latest count per operation and size bucket.
              const op = opKey(p);
              if (op) (entry.counts ??= {})[op] = Number(p.count);
            } else {
              entry.last = p.asDouble ?? Number(p.asInt);
              const op = opKey(p);
              if (op) (entry.values ??= {})[op] = entry.last;
            }
          }
        }
      }
    }
  }
  return null;
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body = Buffer.concat(chunks);
    report.requests++;
    if (req.method !== 'POST' || req.url !== '/v1/metrics') {
      report.errors.push(`unexpected ${req.method} ${req.url}`);
      res.writeHead(404).end();
      return;
    }
    const type = String(req.headers['content-type']);
    const protobuf = type.startsWith('application/x-protobuf');
    if (!protobuf && !type.startsWith('application/json'))
      report.errors.push(`content-type ${type}`);
    const expected = process.env.EXPECT_ENCODING;
    if (expected && expected !== (protobuf ? 'protobuf' : 'json'))
      report.errors.push(`${type} body, expected ${expected}`);
    const gzip = req.headers['content-encoding'] === 'gzip';
    if (process.env.EXPECT_GZIP === '1' && !gzip) report.errors.push('body not gzipped');
    if (req.headers['x-test-header'] !== 'present')
      report.errors.push('OTEL_EXPORTER_OTLP_HEADERS not sent');
    let e = null, json = null;
    try {
      if (gzip) body = zlib.gunzipSync(body);
      [e, json] = protobuf ? checkProtobuf(body) : checkJson(body);
    } catch (x) {
      e = `gunzip: ${x.message}`;
    }
    if (!e) e = record(json);
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
