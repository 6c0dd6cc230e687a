/* web/data.js — reads the data blocks that `cclscope view` embedded
 * (layout: web/README.md) into typed arrays. Events and timing records
 * become one list of "items" (events first, then timing records), each with
 * a start, an end, a track, a type and a name; parents and timing records
 * point at item numbers. The extra block (one JSON line per item: the
 * record's other fields) is indexed by line but only parsed when an item is
 * shown; there is one block per 64 MiB of lines. */
'use strict';

const TIMING_TYPE = 255; /* the type code of timing-record items */
const END_NAMES = ['stopped', 'reclaimed', 'inflight', '?'];
const PARENT_KINDS = ['none', 'local', 'foreign', 'unknown', 'bad'];

function loadData() {
  const t0 = performance.now();
  const D = JSON.parse(document.getElementById('cclscope-data').textContent);
  const extraTexts = [...document.querySelectorAll('script.cclscope-extra')].map((b) => b.textContent);
  const E = D.events;
  const T = D.timing;
  const nEv = E.start.length;
  const nTm = T.start.length;
  const n = nEv + nTm;
  const M = {
    raw: D, strings: D.strings, types: D.types, files: D.files, tracks: D.tracks,
    baseUs: D.baseUs, nEv, nTm, n, marks: D.marks, summary: D.summary,
    start: new Float64Array(n), end: new Float64Array(n),
    track: new Int32Array(n), type: new Uint8Array(n), name: new Int32Array(n),
    endKind: new Uint8Array(n), parent: new Int32Array(n), timingOf: new Int32Array(nEv),
    line: new Int32Array(n), extraTexts, lineStart: null, lineBlock: null,
  };
  for (let i = 0; i < nEv; i++) {
    M.start[i] = E.start[i];
    M.end[i] = E.start[i] + E.dur[i];
    M.track[i] = E.track[i];
    M.type[i] = E.type[i];
    M.name[i] = E.name[i];
    M.endKind[i] = E.end[i];
    M.parent[i] = E.parent[i];
    M.line[i] = E.line[i];
    M.timingOf[i] = -1;
  }
  for (let j = 0; j < nTm; j++) {
    const i = nEv + j;
    M.start[i] = T.start[j];
    M.end[i] = T.start[j] + T.dur[j];
    M.track[i] = T.track[j];
    M.type[i] = TIMING_TYPE;
    M.name[i] = T.name[j];
    M.parent[i] = T.ev[j];
    M.line[i] = T.line[j];
    if (T.ev[j] >= 0) M.timingOf[T.ev[j]] = i;
  }
  M.tMin = Infinity;
  M.tMax = -Infinity;
  for (let i = 0; i < n; i++) {
    if (M.start[i] < M.tMin) M.tMin = M.start[i];
    if (M.end[i] > M.tMax) M.tMax = M.end[i];
  }
  for (const m of M.marks) {
    if (m.ts < M.tMin) M.tMin = m.ts;
    if (m.ts > M.tMax) M.tMax = m.ts;
  }
  /* the overview covers the whole trace, also beyond the embedded detail */
  const O = D.overview;
  if (O && O.instancesTotal > 0) {
    if (O.bucketT0 < M.tMin) M.tMin = O.bucketT0;
    if (O.bucketT0 + O.buckets * O.bucketWidth > M.tMax) M.tMax = O.bucketT0 + O.buckets * O.bucketWidth;
  }
  if (!isFinite(M.tMin)) { M.tMin = 0; M.tMax = 1e6; }
  if (M.tMax <= M.tMin) M.tMax = M.tMin + 1000;
  /* line starts in the extra blocks (the first line of each is empty) */
  const starts = [];
  const blocks = [];
  extraTexts.forEach((text, b) => {
    let p = text.indexOf('\n') + 1;
    while (p > 0 && p < text.length) {
      starts.push(p);
      blocks.push(b);
      p = text.indexOf('\n', p) + 1;
    }
  });
  M.lineStart = Float64Array.from(starts);
  M.lineBlock = Uint16Array.from(blocks);
  /* children lists are built on demand; collective instances now */
  M.collKey = new Map();
  for (let i = 0; i < nEv; i++) {
    const s = E.seq[i];
    if (s < 0) continue;
    const tk = D.tracks[E.track[i]];
    const key = (tk.commId || '') + '|' + D.strings[E.func[i]] + '|' + s;
    let list = M.collKey.get(key);
    if (!list) M.collKey.set(key, (list = []));
    list.push(i);
  }
  M.loadMs = performance.now() - t0;
  return M;
}

function typeName(M, i) {
  return M.type[i] === TIMING_TYPE ? 'timing' : M.types[M.type[i]];
}

function itemName(M, i) {
  return M.strings[M.name[i]];
}

/* The item's extra JSON line, parsed exactly (numbers as text). */
function itemExtra(M, i) {
  const l = M.line[i];
  if (l < 0 || l >= M.lineStart.length) return null;
  const text = M.extraTexts[M.lineBlock[l]];
  const s = M.lineStart[l];
  let e = text.indexOf('\n', s);
  if (e < 0) e = text.length;
  try {
    return parseJsonExact(text.slice(s, e));
  } catch (err) {
    return null;
  }
}

/* The same collective on every rank (items), or [] */
function collectiveOf(M, i) {
  if (i >= M.nEv) return [];
  const E = M.raw.events;
  if (E.seq[i] < 0) return [];
  const tk = M.tracks[E.track[i]];
  return M.collKey.get((tk.commId || '') + '|' + M.strings[E.func[i]] + '|' + E.seq[i]) || [];
}

function childrenOf(M, i) {
  if (!M.children) {
    const count = new Int32Array(M.n + 1);
    for (let k = 0; k < M.n; k++) if (M.parent[k] >= 0) count[M.parent[k] + 1]++;
    for (let k = 1; k <= M.n; k++) count[k] += count[k - 1];
    const list = new Int32Array(count[M.n]);
    const fill = count.slice(0, M.n);
    for (let k = 0; k < M.n; k++) if (M.parent[k] >= 0) list[fill[M.parent[k]]++] = k;
    M.children = { off: count, list };
  }
  return Array.from(M.children.list.subarray(M.children.off[i], M.children.off[i + 1]));
}
