// SPDX-License-Identifier: Apache-2.0
/* web/data.js — reads the data blocks that `cclscope view` embedded
 * (layout: web/README.md) into typed arrays. Events and timing records
 * become one list of "items" (events first, then timing records), each with
 * a start, an end, a track, a type and a name; parents and timing records
 * point at item numbers. The extra block (one JSON line per item: the
 * record's other fields) is indexed by line but only parsed when an item is
 * shown; there is one block per 64 MiB of lines. The tiles the page loads
 * (web/tiles.js) are merged in the same way: assemble() builds the items
 * again from the page's detail and the tiles loaded. */
'use strict';

const TIMING_TYPE = 255; /* the type code of timing-record items */
const END_NAMES = ['stopped', 'reclaimed', 'inflight', '?'];
const PARENT_KINDS = ['none', 'local', 'foreign', 'unknown', 'bad'];

/* One run of items with its extra text: the page's own detail, or a tile
 * (web/tiles.js). `ev0`, `tm0`: the global numbers of its first event and
 * timing record (every event and timing record of the trace is numbered in
 * start order; parents and timing links are global numbers). */
function makeChunk(E, T, texts, ev0, tm0, tile, marks) {
  const starts = [];
  const blocks = [];
  texts.forEach((text, b) => {
    /* line starts (the first line of each block is empty) */
    let p = text.indexOf('\n') + 1;
    while (p > 0 && p < text.length) {
      starts.push(p);
      blocks.push(b);
      p = text.indexOf('\n', p) + 1;
    }
  });
  return { E, T, texts, ev0, tm0, nev: E.start.length, ntm: T.start.length, tile, marks: marks || [],
    lineStart: Float64Array.from(starts), lineBlock: Uint16Array.from(blocks) };
}

const EVENT_COLUMNS = ['track', 'start', 'dur', 'type', 'name', 'func', 'end', 'id', 'parent', 'pk', 'rank', 'seq', 'line'];

/* The items of `chunks` (in start order) as M's arrays: events first, then
 * timing records, each run after run; parents and timing links from global
 * numbers to item numbers (-1 when that run is not loaded). */
function assemble(M, chunks) {
  chunks.sort((a, b) => a.ev0 - b.ev0 || a.tm0 - b.tm0);
  const nEv = chunks.reduce((a, c) => a + c.nev, 0);
  const nTm = chunks.reduce((a, c) => a + c.ntm, 0);
  const n = nEv + nTm;
  let E = chunks.length === 1 ? chunks[0].E : null;
  if (!E) {
    E = {};
    for (const k of EVENT_COLUMNS) E[k] = [].concat(...chunks.map((c) => c.E[k]));
  }
  /* marks: the page's, then those of the tiles loaded */
  M.marks = chunks.length === 1 ? chunks[0].marks : [].concat(...chunks.map((c) => c.marks));
  M.marksByFile = null; /* render.js builds it again */
  Object.assign(M, {
    nEv, nTm, n, chunks,
    start: new Float64Array(n), end: new Float64Array(n),
    track: new Int32Array(n), type: new Uint8Array(n), name: new Int32Array(n),
    endKind: new Uint8Array(n), parent: new Int32Array(n), timingOf: new Int32Array(nEv),
    line: new Int32Array(n), fromTile: new Uint8Array(n), children: null,
  });
  M.raw.events = E;
  /* global number -> item number, by binary search over the runs */
  const evAt = chunks.map((c) => c.ev0);
  const tmAt = chunks.map((c) => c.tm0);
  const evOff = [];
  const tmOff = [];
  const lineOff = [];
  let eo = 0;
  let to = nEv;
  let lo = 0;
  for (const c of chunks) {
    evOff.push(eo);
    tmOff.push(to);
    lineOff.push(lo);
    eo += c.nev;
    to += c.ntm;
    lo += c.lineStart.length;
  }
  const local = (g, at, off, count) => {
    if (g < 0) return -1;
    let k = lowerBound(at, null, 0, at.length, g + 1) - 1;
    while (k >= 0 && count(chunks[k]) === 0) k--;
    if (k < 0 || g >= at[k] + count(chunks[k])) return -1;
    return off[k] + g - at[k];
  };
  M.evItem = (g) => local(g, evAt, evOff, (c) => c.nev);
  M.globalOf = (i) => {
    const off = i < nEv ? evOff : tmOff;
    const k = lowerBound(off, null, 0, off.length, i + 1) - 1;
    let kk = k;
    while (kk > 0 && (i < nEv ? chunks[kk].nev : chunks[kk].ntm) === 0) kk--;
    return i < nEv ? ['e', chunks[kk].ev0 + i - off[kk]] : ['t', chunks[kk].tm0 + i - off[kk]];
  };
  M.itemOf = (id) => (id[0] === 'e' ? M.evItem(id[1]) : local(id[1], tmAt, tmOff, (c) => c.ntm));
  chunks.forEach((c, k) => {
    const fromTile = c.tile >= 0 ? 1 : 0;
    for (let j = 0; j < c.nev; j++) {
      const i = evOff[k] + j;
      M.start[i] = c.E.start[j];
      M.end[i] = c.E.start[j] + c.E.dur[j];
      M.track[i] = c.E.track[j];
      M.type[i] = c.E.type[j];
      M.name[i] = c.E.name[j];
      M.endKind[i] = c.E.end[j];
      M.line[i] = lineOff[k] + c.E.line[j];
      M.fromTile[i] = fromTile;
    }
    for (let j = 0; j < c.ntm; j++) {
      const i = tmOff[k] + j;
      M.start[i] = c.T.start[j];
      M.end[i] = c.T.start[j] + c.T.dur[j];
      M.track[i] = c.T.track[j];
      M.type[i] = TIMING_TYPE;
      M.name[i] = c.T.name[j];
      M.line[i] = lineOff[k] + c.T.line[j];
      M.fromTile[i] = fromTile;
    }
  });
  /* most parents are in their child's own run: no search for those */
  chunks.forEach((c, k) => {
    for (let j = 0; j < c.nev; j++) {
      const g = c.E.parent[j];
      const i = evOff[k] + j;
      M.parent[i] = g >= c.ev0 && g < c.ev0 + c.nev ? evOff[k] + g - c.ev0 : M.evItem(g);
      M.timingOf[i] = -1;
    }
  });
  chunks.forEach((c, k) => {
    for (let j = 0; j < c.ntm; j++) {
      const i = tmOff[k] + j;
      const ev = M.evItem(c.T.ev[j]);
      M.parent[i] = ev;
      if (ev >= 0) M.timingOf[ev] = i;
    }
  });
  /* the extra lines of every run, numbered across them */
  M.extraTexts = [];
  const starts = [];
  const blocks = [];
  for (const c of chunks) {
    const b0 = M.extraTexts.length;
    M.extraTexts.push(...c.texts);
    starts.push(c.lineStart);
    const lb = new Uint16Array(c.lineBlock.length);
    for (let j = 0; j < lb.length; j++) lb[j] = c.lineBlock[j] + b0;
    blocks.push(lb);
  }
  M.lineStart = new Float64Array(lo);
  M.lineBlock = new Uint16Array(lo);
  starts.forEach((s, k) => { M.lineStart.set(s, lineOff[k]); M.lineBlock.set(blocks[k], lineOff[k]); });
  /* children lists are built on demand; collective instances now */
  M.collKey = new Map();
  for (let i = 0; i < nEv; i++) {
    const s = E.seq[i];
    if (s < 0) continue;
    const tk = M.tracks[E.track[i]];
    const key = (tk.commId || '') + '|' + M.strings[E.func[i]] + '|' + s;
    let list = M.collKey.get(key);
    if (!list) M.collKey.set(key, (list = []));
    list.push(i);
  }
  stateCache.clear(); /* render.js: states by item number */
}

function loadData() {
  const t0 = performance.now();
  const D = JSON.parse(document.getElementById('cclscope-data').textContent);
  const extraTexts = [...document.querySelectorAll('script.cclscope-extra')].map((b) => b.textContent);
  const det = D.detail || {};
  const M = {
    raw: D, strings: D.strings, types: D.types, files: D.files, tracks: D.tracks,
    baseUs: D.baseUs, summary: D.summary,
  };
  M.base = makeChunk(D.events, D.timing, extraTexts, det.eventBase || 0, det.timingBase || 0, -1, D.marks);
  assemble(M, [M.base]);
  const n = M.n;
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
  /* the overview and the tiles cover the whole trace, also beyond the
   * detail in the page */
  const O = D.overview;
  if (O && O.instancesTotal > 0) {
    if (O.bucketT0 < M.tMin) M.tMin = O.bucketT0;
    if (O.bucketT0 + O.buckets * O.bucketWidth > M.tMax) M.tMax = O.bucketT0 + O.buckets * O.bucketWidth;
  }
  const TI = D.tiles;
  if (TI && TI.count > 0) {
    if (TI.t0[0] < M.tMin) M.tMin = TI.t0[0];
    if (TI.t1[TI.count - 1] > M.tMax) M.tMax = TI.t1[TI.count - 1];
  }
  if (!isFinite(M.tMin)) { M.tMin = 0; M.tMax = 1e6; }
  if (M.tMax <= M.tMin) M.tMax = M.tMin + 1000;
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
