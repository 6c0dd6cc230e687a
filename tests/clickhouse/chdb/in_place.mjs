// SPDX-License-Identifier: Apache-2.0
// tests/clickhouse/chdb/in_place.mjs — the shipped SQL (cclscope sql) run
// by chdb on trace files read in place gives `cclscope summary --json`'s
// numbers, field by field: the collectives table and the straggler tables
// by (communicator, rank) and by GPU, own and inherited wait included.
//
//   node in_place.mjs --cclscope BIN --traces DIR [--glob PATTERN]
//                     [--summary-of DIR]
// --glob: the files of DIR the SQL reads (default *.jsonl*); --summary-of:
// the folder summary reads when it is not DIR (the same run). Exits 0 when
// every field agrees, 1 listing the differences; fails loudly when chdb is
// not installed (`npm ci` in this folder).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import fs from 'node:fs';
import {
  compareRows, collectiveFields, collectiveKey, rankFields, rankKey,
  gpuFields, gpuKey,
} from './compare.mjs';

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  if (fallback === undefined) {
    console.error(`in_place.mjs: ${name} is required`);
    process.exit(2);
  }
  return fallback;
}
const cclscope = arg('--cclscope');
const traces = path.resolve(arg('--traces'));
const glob = arg('--glob', '*.jsonl*');
const summaryOf = path.resolve(arg('--summary-of', traces));

let chdb;
try {
  chdb = await import('chdb');
} catch (e) {
  console.error('FAIL: chdb is not installed: run `npm ci` in tests/clickhouse/chdb ' +
                `(scripts/test.sh does): ${e.message}`);
  process.exit(1);
}

const files = fs.readdirSync(traces).filter((f) => /\.jsonl(\.zst)?$/.test(f));
if (files.length === 0) {
  console.error(`FAIL: no trace files in ${traces}`);
  process.exit(1);
}

// The SQL reads format version 2 (one schema for every line); older
// traces are for the CLI only.
const versions = chdb.query(
  `SELECT DISTINCT formatVersion FROM file('${path.join(traces, glob)}', 'JSONEachRow', ` +
  `'recordType String, formatVersion UInt32') WHERE recordType = 'process' ` +
  'SETTINGS input_format_skip_unknown_fields = 1', 'TSVRaw').trim().split('\n');
if (versions.length !== 1 || versions[0] !== '2') {
  console.error(`FAIL: the traces in ${traces} are of format version ${versions.join(', ')}, ` +
                'not 2: the shipped SQL reads format version 2');
  process.exit(1);
}

const summary = JSON.parse(execFileSync(cclscope, ['-q', 'summary', '--json', summaryOf],
                                        { maxBuffer: 1 << 30 }).toString());
if (summary.stragglers.basis !== 'timing') {
  console.error(`FAIL: summary's straggler basis is ${summary.stragglers.basis}, not timing`);
  process.exit(1);
}
if (summary.stragglers.gapsOutOfOrder !== 0 || summary.stragglers.duplicates !== 0) {
  console.error('FAIL: summary read records out of its window or duplicated: ' +
                `gapsOutOfOrder ${summary.stragglers.gapsOutOfOrder}, ` +
                `duplicates ${summary.stragglers.duplicates}`);
  process.exit(1);
}

function run(query) {
  const sql = execFileSync(cclscope, ['sql', query, '--source',
                                      `file:${path.join(traces, glob)}`]).toString();
  const out = chdb.query(sql, 'JSONEachRow');
  return out.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

const version = chdb.query('SELECT version()', 'TSVRaw').trim();
const checks = [
  ['collectives', summary.collectives.rows, run('collectives'), collectiveKey, collectiveFields],
  ['stragglers_ranks', summary.stragglers.ranks, run('stragglers_ranks'), rankKey, rankFields],
  ['stragglers_gpus', summary.stragglers.gpus, run('stragglers_gpus'), gpuKey, gpuFields],
];
let failed = 0;
for (const [what, cli, sql, key, fields] of checks) {
  const diffs = compareRows(what, cli, sql, key, fields);
  const nfields = Object.keys(fields).length;
  if (cli.length === 0) diffs.push(`${what}: summary has no rows: nothing compared`);
  if (diffs.length) {
    failed++;
    console.log(`FAIL ${what}: ${diffs.length} differences`);
    for (const d of diffs.slice(0, 40)) console.log(`  ${d}`);
  } else {
    console.log(`ok ${what}: ${cli.length} rows x ${nfields} fields equal`);
  }
}
const own = summary.stragglers.ranks.reduce((s, r) => s + r.ownWaitUs, 0);
const inherited = summary.stragglers.ranks.reduce((s, r) => s + r.inheritedWaitUs, 0);
console.log(`chdb ${version}, ${files.length} files (${glob}); own ${own.toFixed(3)} us, ` +
            `inherited ${inherited.toFixed(3)} us in all`);
console.log(`${checks.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
