// SPDX-License-Identifier: Apache-2.0
// tests/browser/tiles_check.mjs — the tiles of `cclscope view` without a
// browser: the page's own detail and its tiles together hold every event
// and every timing record of the trace exactly once.
//
//   node tiles_check.mjs --cclscope BIN --trace DIR --out DIR [--from S]
//
// Writes the page with a small budget (--detail-mb 1), so that most of the
// detail goes to tiles, then reads the page's data and runs each tile file
// in a sandbox (node:vm) with its registration function. Checks: the global
// numbers of the page's run and of the tiles cover 0 .. N-1 once, for events
// and timing records apart; N is the number of event (timing) records in the
// trace; the events' (file, id) pairs are the trace's, each once; each
// tile's index entry (count, first and last start, size) is what the file
// holds, and it has one extra line per record; parents point inside 0 .. N-1;
// the marks are in the page or a tile once (--step-marks trace);
// a stale tile of an earlier page is removed. With --from S the page's own
// detail starts S seconds in (--detail-from; 'third': where the trace's
// first third of events ends): the records before it are in tiles too. Prints "N passed, M failed".
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';

import { parseArgs, tally } from './harness.mjs';

const args = parseArgs(['cclscope', 'trace', 'out'], 'tiles_check.mjs --cclscope BIN --trace DIR --out DIR');
const { check, finish } = tally(600);

/* The trace: per file name, its event (file, id) keys, and the counts. */
function readTrace(dir) {
  const truth = { events: 0, timing: 0, marks: [], keys: [], withParent: 0, starts: [], firstTs: Infinity };
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.jsonl')).sort()) {
    const ids = new Set();
    const parents = [];
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      if (!line) continue;
      const r = JSON.parse(line);
      if (typeof r.ts === 'number') truth.firstTs = Math.min(truth.firstTs, r.ts);
      if (r.recordType === 'event' && r.start && r.start.ts !== undefined) {
        truth.events++;
        truth.starts.push(r.start.ts);
        truth.firstTs = Math.min(truth.firstTs, r.start.ts);
        truth.keys.push(f + '|' + (r.id === undefined ? -1 : parseInt(r.id, 16)));
        if (r.id !== undefined) ids.add(r.id);
        if (typeof r.parentId === 'string') parents.push(r.parentId);
      } else if (r.recordType === 'timing') {
        truth.timing++;
      } else if (r.recordType === 'mark') {
        truth.marks.push([f, r.kind, r.label || '', r.step === undefined ? null : r.step].join('|'));
      }
    }
    truth.withParent += parents.filter((p) => ids.has(p)).length; /* its parent is in the file */
  }
  truth.keys.sort();
  return truth;
}

function pageData(html) {
  const text = fs.readFileSync(html, 'utf8');
  const m = /<script type="application\/json" id="cclscope-data">([\s\S]*?)<\/script>/.exec(text);
  return JSON.parse(m[1]);
}

function runTile(file) {
  let got = null;
  vm.runInNewContext(fs.readFileSync(file, 'utf8'), { cclscopeTile: (k, text, cols) => { got = { k, text, cols }; } });
  return got;
}

/* Runs [first, first + count) sorted by first: do they cover 0 .. n-1 once? */
function covers(runs, n) {
  const sorted = runs.filter((r) => r.count > 0).sort((a, b) => a.first - b.first);
  let at = 0;
  for (const r of sorted) {
    if (r.first !== at) return false;
    at += r.count;
  }
  return at === n;
}

fs.mkdirSync(args.out, { recursive: true });
const html = path.join(args.out, 'tiles-cli.html');
const dir = path.join(args.out, 'tiles-cli.files');
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, 'tile-999999.js'), 'stale'); /* from an "earlier run" */
fs.writeFileSync(path.join(dir, 'notes.txt'), 'the user\'s'); /* not ours: kept */
const truth = readTrace(args.trace);
/* --from third: the start of the trace's first third of events, in seconds
 * after its first record (a fixed number of seconds lands anywhere in a run
 * whose speed depends on the machine's load). */
if (args.from === 'third') {
  const sorted = truth.starts.slice().sort((a, b) => a - b);
  args.from = ((sorted[Math.floor(sorted.length / 3)] - truth.firstTs) / 1e6).toFixed(6);
}
execFileSync(args.cclscope, ['-q', 'view', '--detail-mb', '1', ...(args.from ? ['--detail-from', args.from] : []), '-o', html, args.trace]);
const D = pageData(html);
const T = D.tiles;
const det = D.detail;
check(T && T.count > 1 && T.dir === 'tiles-cli.files', 'the page has an index of several tiles in tiles-cli.files', T && { count: T.count, dir: T.dir });
check(!fs.existsSync(path.join(dir, 'tile-999999.js')) && fs.existsSync(path.join(dir, 'notes.txt')),
  'a stale tile of an earlier page is removed, other files are kept');
const files = fs.readdirSync(dir).filter((x) => /^tile-\d{6}\.js$/.test(x)).sort();
check(files.length === T.count, `one file per tile (${T.count})`, files.length);

const evRuns = [{ first: det.eventBase, count: D.events.start.length }];
const tmRuns = [{ first: det.timingBase, count: D.timing.start.length }];
const keys = [];
let linked = D.events.parent.filter((p) => p >= 0).length;
const marks = D.marks.map((m) => [D.files[m.file].path, m.kind, m.label, m.step].join('|'));
let marksOk = true;
const fileOf = (track) => D.files[D.tracks[track].file].path;
D.events.id.forEach((id, j) => keys.push(fileOf(D.events.track[j]) + '|' + id));
let indexOk = true;
let linesOk = true;
let parentsOk = true;
let total = 0;
const tiledEvents = { n: 0 };
for (let k = 0; k < T.count; k++) {
  const file = path.join(dir, files[k]);
  const t = runTile(file);
  const E = t.cols.events;
  const M = t.cols.timing;
  const starts = E.start.concat(M.start, t.cols.marks.ts);
  const lines = t.text.split('\n').length - 2; /* an empty first line, a newline after each */
  if (t.k !== k || E.start.length !== T.nev[k] || M.start.length !== T.ntm[k] || Math.min(...starts) !== T.t0[k] ||
      Math.max(...starts) !== T.t1[k] || fs.statSync(file).size !== T.size[k]) {
    indexOk = false;
    console.log('# tile ' + k + ': index ' + JSON.stringify({ nev: T.nev[k], ntm: T.ntm[k], t0: T.t0[k], t1: T.t1[k], size: T.size[k] }));
  }
  if (lines !== E.start.length + M.start.length || E.line.some((l) => l < 0 || l >= lines)) linesOk = false;
  for (const p of E.parent) if (p < -1 || p >= truth.events) parentsOk = false;
  linked += E.parent.filter((p) => p >= 0).length;
  const K = t.cols.marks;
  K.ts.forEach((ts, j) => marks.push([D.files[K.file[j]].path, D.strings[K.kind[j]], D.strings[K.label[j]], K.step[j]].join('|')));
  if (K.ts.length !== T.nmk[k] || K.ts.some((ts) => ts < T.t0[k] || ts > T.t1[k])) marksOk = false;
  evRuns.push({ first: T.ev0[k], count: E.start.length });
  tmRuns.push({ first: T.tm0[k], count: M.start.length });
  E.id.forEach((id, j) => keys.push(fileOf(E.track[j]) + '|' + id));
  tiledEvents.n += E.start.length;
  total += T.size[k];
}
check(indexOk, 'each tile\'s index entry (number, counts, first and last start, size) matches its file');
check(linesOk, 'each tile has one extra line per record, and its records point inside them');
check(parentsOk, 'parents are global event numbers within the trace');
check(truth.withParent > 0 && linked === truth.withParent,
  `every event whose parent is in its file has its parent linked across page and tiles (${truth.withParent})`, { linked, truth: truth.withParent });
check(det.tiledEvents === tiledEvents.n && tiledEvents.n > D.events.start.length,
  `most events are in the tiles (${tiledEvents.n}), the page's detail says how many`, { det, tiled: tiledEvents.n });
if (args.from) {
  check(det.eventBase > 0 && evRuns.some((r, i) => i > 0 && r.first < det.eventBase && r.count > 0) &&
    evRuns.some((r, i) => i > 0 && r.first > det.eventBase),
    `--detail-from ${args.from}: tiles before and after the page's own run (from event ${det.eventBase})`, det);
}
check(covers(evRuns, truth.events), `the page and the tiles hold events 0 .. ${truth.events - 1} once each`, evRuns.slice(0, 6));
check(covers(tmRuns, truth.timing), `… and timing records 0 .. ${truth.timing - 1}`, tmRuns.slice(0, 6));
marks.sort();
truth.marks.sort();
check(truth.marks.length > 0 && marks.length === truth.marks.length && marks.every((m, i) => m === truth.marks[i]) &&
  det.tiledMarks > 0 && det.tiledMarks === marks.length - D.marks.length && marksOk,
  `the marks of the trace (${truth.marks.length}: file, kind, label, step) are in the page or a tile once, ${det.tiledMarks} in tiles`,
  { page: D.marks.length, total: marks.length, truth: truth.marks.length, tiled: det.tiledMarks, marksOk });
keys.sort();
check(keys.length === truth.keys.length && keys.every((x, i) => x === truth.keys[i]),
  `every event of the trace (file, id) is in the page or a tile exactly once (${truth.keys.length})`,
  { page: keys.length, trace: truth.keys.length });
const size = fs.statSync(html).size;
console.log(`# page ${size} bytes, ${T.count} tiles ${total} bytes`);
check(size < total, 'the page is smaller than its tiles', { size, total });
finish();
