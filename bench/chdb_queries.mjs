// SPDX-License-Identifier: Apache-2.0
// bench/chdb_queries.mjs — times SQL files in chdb (the ClickHouse engine
// that npm's chdb package embeds, installed in tests/clickhouse/chdb by
// `npm ci`), for bench/clickhouse_queries.sh: each file ROUNDS times, in
// this one process, after a `SELECT 1` that pays the engine's start.
//
//   node chdb_queries.mjs ROUNDS NAME=FILE.sql...
//
// Prints one line per query: NAME, the rows of its answer, then the median
// wall seconds and the median CPU seconds (user + sys of this process, all
// of chdb's threads included: process.cpuUsage) of its rounds. Each round
// reads the trace files again (chdb keeps no cache of file()).
import { createRequire } from 'node:module';
import fs from 'node:fs';

const require = createRequire(new URL('../tests/clickhouse/chdb/package.json', import.meta.url));
let chdb;
try {
  chdb = require('chdb');
} catch (e) {
  console.error('chdb_queries.mjs: chdb is not installed: run `npm ci --no-audit --no-fund` ' +
                `in tests/clickhouse/chdb: ${e.message}`);
  process.exit(1);
}

const rounds = Number(process.argv[2]);
const queries = process.argv.slice(3);
if (!(rounds >= 1) || queries.length === 0) {
  console.error('usage: node chdb_queries.mjs ROUNDS NAME=FILE.sql...');
  process.exit(2);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

chdb.query('SELECT 1', 'TSVRaw');
for (const spec of queries) {
  const eq = spec.indexOf('=');
  const name = spec.slice(0, eq);
  const sql = fs.readFileSync(spec.slice(eq + 1), 'utf8');
  const walls = [];
  const cpus = [];
  let rows = -1;
  for (let r = 0; r < rounds; r++) {
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const out = chdb.query(sql, 'JSONEachRow');
    const t1 = process.hrtime.bigint();
    const cpu = process.cpuUsage(cpu0);
    walls.push(Number(t1 - t0) / 1e9);
    cpus.push((cpu.user + cpu.system) / 1e6);
    const n = out.split('\n').filter((l) => l.trim()).length;
    if (rows >= 0 && n !== rows) {
      console.error(`chdb_queries.mjs: ${name} gave ${rows} rows, then ${n}`);
      process.exit(1);
    }
    rows = n;
  }
  console.log(`${name} ${rows} ${median(walls).toFixed(3)} ${median(cpus).toFixed(3)}`);
}
