// SPDX-License-Identifier: Apache-2.0
// tests/clickhouse/queries/compare_rows.mjs — the rows a server returned
// for the shipped queries (PREFIX.QUERY.rows, JSONEachRow) against
// `summary --json` (SUMMARY), field by field, with tests/clickhouse/chdb/
// compare.mjs. Exit 0 when equal, 1 listing the differences.
// usage: node compare_rows.mjs SUMMARY PREFIX
import fs from 'node:fs';
import {
  compareRows, collectiveFields, collectiveKey, rankFields, rankKey,
  gpuFields, gpuKey,
} from '../chdb/compare.mjs';

const [summaryPath, prefix] = process.argv.slice(2);
const summary = JSON.parse(fs.readFileSync(summaryPath, 'utf8'));
const rows = (q) => fs.readFileSync(`${prefix}.${q}.rows`, 'utf8').split('\n')
  .filter((l) => l.trim()).map((l) => JSON.parse(l));
if (summary.stragglers.gapsOutOfOrder !== 0 || summary.stragglers.duplicates !== 0) {
  console.error('FAIL: summary read records out of its window or duplicated');
  process.exit(1);
}
let failed = 0;
for (const [what, cli, key, fields] of [
  ['collectives', summary.collectives.rows, collectiveKey, collectiveFields],
  ['stragglers_ranks', summary.stragglers.ranks, rankKey, rankFields],
  ['stragglers_gpus', summary.stragglers.gpus, gpuKey, gpuFields],
]) {
  const diffs = compareRows(what, cli, rows(what), key, fields);
  if (cli.length === 0) diffs.push(`${what}: summary has no rows: nothing compared`);
  if (diffs.length) {
    failed++;
    console.log(`FAIL ${what}: ${diffs.length} differences`);
    for (const d of diffs.slice(0, 40)) console.log(`  ${d}`);
  } else {
    console.log(`ok ${what}: ${cli.length} rows x ${Object.keys(fields).length} fields equal`);
  }
}
process.exit(failed ? 1 : 0);
