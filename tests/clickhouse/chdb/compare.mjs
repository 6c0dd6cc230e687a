// SPDX-License-Identifier: Apache-2.0
// tests/clickhouse/chdb/compare.mjs — field-by-field comparison of the
// shipped SQL's rows (share/clickhouse/queries/, run by chdb) with
// `cclscope summary --json`. Exported for in_place.mjs.

// The CLI prints microseconds with 3 decimals and bandwidths with 4 (C's
// printf: the double's exact value rounded, an exact tie to even): the
// SQL's Float64 rounded the same way must give the same number. JS's
// toFixed rounds a tie up, so ties are rounded here from the exact digits.
export function rounded(v, decimals) {
  if (v === null || v === undefined) return null;
  const x = Number(v);
  const exact = Math.abs(x).toFixed(100); // every digit of the double
  const dot = exact.indexOf('.');
  const rest = exact.slice(dot + 1 + decimals);
  if (!/^50*$/.test(rest)) return Number(x.toFixed(decimals));
  const kept = exact.slice(0, dot + 1 + decimals).replace('.', '');
  const last = Number(kept[kept.length - 1]);
  const up = last % 2 === 1; // a tie: to the even neighbour
  const units = BigInt(kept) + (up ? 1n : 0n);
  const s = units.toString().padStart(decimals + 1, '0');
  const text = `${s.slice(0, s.length - decimals)}.${s.slice(s.length - decimals)}`;
  return (x < 0 ? -1 : 1) * Number(text);
}

// Compare `fields` ({name: decimals, or -1 for exact}) of the rows matched
// by `key`; returns a list of differences (empty when equal). Every CLI row
// must have an SQL row and the other way round.
export function compareRows(what, cliRows, sqlRows, key, fields) {
  const diffs = [];
  const sqlByKey = new Map();
  for (const r of sqlRows) {
    const k = key(r);
    if (sqlByKey.has(k)) diffs.push(`${what}: SQL has two rows for ${k}`);
    sqlByKey.set(k, r);
  }
  const seen = new Set();
  for (const c of cliRows) {
    const k = key(c);
    seen.add(k);
    const s = sqlByKey.get(k);
    if (!s) {
      diffs.push(`${what}: ${k} is in summary --json, not in the SQL's rows`);
      continue;
    }
    for (const [name, decimals] of Object.entries(fields)) {
      const want = c[name];
      const got = decimals < 0 ? s[name] : rounded(s[name], decimals);
      const same = decimals < 0 ? String(want) === String(got)
                                : rounded(want, decimals) === got;
      if (!same)
        diffs.push(`${what} ${k}: ${name} summary=${JSON.stringify(want)} sql=${JSON.stringify(s[name])}`);
    }
  }
  for (const k of sqlByKey.keys())
    if (!seen.has(k)) diffs.push(`${what}: ${k} is in the SQL's rows, not in summary --json`);
  return diffs;
}

export const collectiveFields = {
  commName: -1, nranks: -1, count: -1, p50Us: 3, p90Us: 3, p99Us: 3,
  meanUs: 3, minUs: 3, maxUs: 3, algBwGBs: 4, busBwGBs: 4,
};
export const collectiveKey = (r) => `${r.commId}/${r.func}/${r.bytes}/${r.source}`;

export const rankFields = {
  commName: -1, instances: -1, timesLast: -1, lastFraction: 4, meanWaitUs: 3,
  maxWaitUs: 3, meanArrivalOffsetUs: 3, meanCompletionOffsetUs: 3,
  waitCausedUs: 3, ownWaitUs: 3, inheritedWaitUs: 3, unattributedWaitUs: 3,
  host: -1, pid: -1, device: -1,
};
export const rankKey = (r) => `${r.commId}/${r.rank}`;

export const gpuFields = {
  comms: -1, instances: -1, timesLast: -1, waitCausedUs: 3, ownWaitUs: 3,
  inheritedWaitUs: 3, unattributedWaitUs: 3, maxWaitUs: 3,
};
export const gpuKey = (r) => `${r.host}/${r.pid}/${r.device}`;
