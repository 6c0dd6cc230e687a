// SPDX-License-Identifier: Apache-2.0
/* web/layout.js — where things are on the timeline. Tracks (cclscope's
 * lanes: file x communicator context x thread x lane, so that the events of
 * a track nest) are grouped host -> process -> communicator rank -> thread;
 * the lanes of a thread are packed into as few rows as its events overlap
 * (buildRows). A row holds item numbers sorted by start; items of one row
 * never overlap (but for the timing records' row), so their ends are
 * sorted too and a time range is found by binary search. Filters build
 * new rows from the items they keep. Groups can be collapsed. */
'use strict';

const ROW_H = 16;
const HEAD_H = 18;

function trackOrder(M) {
  const idx = M.tracks.map((_, k) => k);
  const f = M.files;
  idx.sort((a, b) => {
    const A = M.tracks[a];
    const B = M.tracks[b];
    const ha = f[A.file].host;
    const hb = f[B.file].host;
    if (ha !== hb) return ha < hb ? -1 : 1;
    if (A.file !== B.file) return A.file - B.file;
    const ca = A.ctx < 0 ? 1e9 : A.ctx;
    const cb = B.ctx < 0 ? 1e9 : B.ctx;
    if (ca !== cb) return ca - cb;
    /* threads, then GPU lanes, then the completion lane */
    const ka = A.completion ? 2 : A.gpu ? 1 : 0;
    const kb = B.completion ? 2 : B.gpu ? 1 : 0;
    if (ka !== kb) return ka - kb;
    if (A.gpu && A.gpu !== B.gpu) return A.gpu < B.gpu ? -1 : 1;
    if (A.tid !== B.tid) return (A.tid || 0) - (B.tid || 0);
    return A.lane - B.lane;
  });
  return idx;
}

/* Groups of tracks: the lanes of one (process, communicator context,
 * thread), those of one GPU lane (GPU activity, per GPU and stream), and
 * the timing records of one communicator rank, each become one group
 * whose items are packed together (buildRows), in track order. */
function laneKey(tk) {
  return tk.completion ? 'c' : tk.gpu ? 'g:' + tk.gpu : tk.tid;
}

function buildGroups(M) {
  const groups = [];
  const byKey = new Map();
  const groupOf = new Int32Array(M.tracks.length);
  for (const t of M.order) {
    const tk = M.tracks[t];
    const key = tk.file + ':' + tk.ctx + ':' + laneKey(tk);
    let g = byKey.get(key);
    if (g === undefined) {
      g = groups.length;
      byKey.set(key, g);
      groups.push({ key, tk, tracks: [] });
    }
    groups[g].tracks.push(t);
    groupOf[t] = g;
  }
  M.groups = groups;
  M.groupOf = groupOf;
}

/* Rows of the items that pass `keep` (null: all), packed: in each group,
 * items in start order go to the first row that is free by then (greedy
 * interval partitioning: as few rows as items overlap at most, so no
 * near-empty lanes; a nested event lands below its parent). The timing
 * records of a communicator rank share one row (`overlap`: their ends are
 * not sorted, so a time is searched by start - maxDur). */
function buildRows(M, keep) {
  if (!M.groups) buildGroups(M);
  const ng = M.groups.length;
  /* Events, then timing records, each in start order as written; no
   * group holds both kinds, so every group sees its items in start order. */
  const rowEnds = M.groups.map(() => []);
  const rowItems = M.groups.map(() => []);
  const depthOf = new Int16Array(M.n);
  for (let i = 0; i < M.n; i++) {
    if (keep && !keep(i)) continue;
    const g = M.groupOf[M.track[i]];
    const ends = rowEnds[g];
    let d = 0;
    /* timing records are folded into one row per communicator rank */
    if (!M.groups[g].tk.completion) while (d < ends.length && ends[d] > M.start[i]) d++;
    if (d === ends.length) { ends.push(0); rowItems[g].push([]); }
    ends[d] = Math.max(ends[d], M.end[i]);
    rowItems[g][d].push(i);
    depthOf[i] = d;
  }
  const rows = [];
  const rowOf = new Int32Array(M.n).fill(-1);
  const groupRows = [];
  for (let g = 0; g < ng; g++) {
    groupRows.push([]);
    for (let d = 0; d < rowItems[g].length; d++) {
      const items = rowItems[g][d];
      const r = { group: g, track: M.groups[g].tracks[0], depth: d, items: Int32Array.from(items), ends: null, starts: null,
        overlap: !!M.groups[g].tk.completion, maxDur: 0 };
      r.starts = new Float64Array(items.length);
      r.ends = new Float64Array(items.length);
      for (let k = 0; k < items.length; k++) {
        rowOf[items[k]] = rows.length;
        r.starts[k] = M.start[items[k]];
        r.ends[k] = M.end[items[k]];
        if (r.ends[k] - r.starts[k] > r.maxDur) r.maxDur = r.ends[k] - r.starts[k];
      }
      groupRows[g].push(rows.length);
      rows.push(r);
    }
  }
  return { rows, groupRows, depthOf, rowOf };
}

function commLabel(tk) {
  if (tk.ctx < 0) return 'no communicator (PXN / unknown)';
  const name = tk.comm || (tk.commId ? tk.commId : 'ctx ' + tk.ctx);
  return name + ' · rank ' + tk.rank + (tk.nranks > 0 ? ' of ' + tk.nranks : '');
}

function threadLabel(tk) {
  if (tk.completion) return 'completion (timing records)';
  if (tk.gpu) return tk.gpu + ' (GPU activity)';
  return (tk.thread || 'tid') + ' (' + tk.tid + ')';
}

/* Lines from top to bottom: group headers and rows, with y positions. */
function buildLines(M, R, collapsed) {
  const lines = [];
  const fileSpan = M.files.map(() => null); /* [y0, y1) of each process */
  let y = 0;
  let last = { host: null, file: -1, comm: null, thread: null };
  for (let g = 0; g < M.groups.length; g++) {
    const tk = M.groups[g].tk;
    const rowsOfT = R.groupRows[g];
    if (!rowsOfT.length) continue;
    const f = M.files[tk.file];
    const host = f.host || '(unknown host)';
    const hostKey = 'h:' + host;
    const procKey = 'p:' + tk.file;
    const commKey = procKey + ':c:' + tk.ctx;
    const threadKey = commKey + ':t:' + laneKey(tk);
    if (host !== last.host) {
      lines.push({ kind: 'host', key: hostKey, y, h: HEAD_H, label: 'host ' + host, depth: 0 });
      y += HEAD_H;
      last = { host, file: -1, comm: null, thread: null };
    }
    if (collapsed.has(hostKey)) continue;
    if (tk.file !== last.file) {
      lines.push({ kind: 'proc', key: procKey, y, h: HEAD_H, file: tk.file,
        label: (f.globalRank != null ? 'rank ' + f.globalRank + ' · ' : '') +
          'pid ' + f.pid + ' · ' + f.path, depth: 1 });
      fileSpan[tk.file] = [y, y + HEAD_H];
      y += HEAD_H;
      last.file = tk.file;
      last.comm = null;
      last.thread = null;
    }
    if (collapsed.has(procKey)) continue;
    if (commKey !== last.comm) {
      lines.push({ kind: 'comm', key: commKey, y, h: HEAD_H, label: commLabel(tk), depth: 2 });
      y += HEAD_H;
      last.comm = commKey;
      last.thread = null;
      fileSpan[tk.file][1] = y;
    }
    if (collapsed.has(commKey)) continue;
    let first = true;
    for (const r of rowsOfT) {
      const label = first ? threadLabel(tk) : '';
      lines.push({ kind: 'row', key: threadKey, y, h: ROW_H, row: r, label, depth: 3 });
      y += ROW_H;
      first = false;
    }
    last.thread = threadKey;
    fileSpan[tk.file][1] = y;
  }
  return { lines, height: y, fileSpan };
}

/* The line at content height y (binary search), or -1. */
function lineAt(L, y) {
  let lo = 0;
  let hi = L.lines.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const l = L.lines[mid];
    if (y < l.y) hi = mid - 1;
    else if (y >= l.y + l.h) lo = mid + 1;
    else return mid;
  }
  return -1;
}
