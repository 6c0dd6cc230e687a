/* web/layout.js — where things are on the timeline. Tracks (cclscope's
 * lanes: file x communicator context x thread x lane, so that the events of
 * a track nest) are grouped host -> process -> communicator rank -> thread;
 * each track is as many rows as its events nest deep. A row holds item
 * numbers sorted by start; items of one row never overlap, so their ends
 * are sorted too and a time range is found by binary search. Filters build
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
    if (A.completion !== B.completion) return A.completion ? 1 : -1;
    if (A.tid !== B.tid) return (A.tid || 0) - (B.tid || 0);
    return A.lane - B.lane;
  });
  return idx;
}

/* Rows of the items that pass `keep` (null: all): per track, by depth. */
function buildRows(M, keep) {
  const perTrack = M.tracks.map(() => []);
  /* Events, then timing records, each in start order as written; no
   * track holds both kinds, so every track sees its items in start order
   * (the order the lanes were built in). */
  const depthOf = new Int16Array(M.n);
  const stacks = M.tracks.map(() => []);
  for (let i = 0; i < M.n; i++) {
    if (keep && !keep(i)) continue;
    const st = stacks[M.track[i]];
    while (st.length && st[st.length - 1] <= M.start[i]) st.pop();
    depthOf[i] = st.length;
    st.push(M.end[i]);
    perTrack[M.track[i]].push(i);
  }
  const rows = [];
  const rowOf = new Int32Array(M.n).fill(-1);
  const trackRows = M.tracks.map(() => []);
  for (let t = 0; t < M.tracks.length; t++) {
    const items = perTrack[t];
    let maxDepth = -1;
    for (const i of items) if (depthOf[i] > maxDepth) maxDepth = depthOf[i];
    const byDepth = [];
    for (let d = 0; d <= maxDepth; d++) byDepth.push([]);
    for (const i of items) byDepth[depthOf[i]].push(i);
    for (let d = 0; d <= maxDepth; d++) {
      const r = { track: t, depth: d, items: Int32Array.from(byDepth[d]), ends: null, starts: null };
      r.starts = new Float64Array(r.items.length);
      r.ends = new Float64Array(r.items.length);
      for (let k = 0; k < r.items.length; k++) {
        rowOf[r.items[k]] = rows.length;
        r.starts[k] = M.start[r.items[k]];
        r.ends[k] = M.end[r.items[k]];
      }
      trackRows[t].push(rows.length);
      rows.push(r);
    }
  }
  return { rows, trackRows, depthOf, rowOf };
}

function commLabel(tk) {
  if (tk.ctx < 0) return 'no communicator (PXN / unknown)';
  const name = tk.comm || (tk.commId ? tk.commId : 'ctx ' + tk.ctx);
  return name + ' · rank ' + tk.rank + (tk.nranks > 0 ? ' of ' + tk.nranks : '');
}

function threadLabel(tk) {
  const lane = tk.lane > 0 ? ' · lane ' + (tk.lane + 1) : '';
  if (tk.completion) return 'completion (timing records)' + lane;
  return (tk.thread || 'tid') + ' (' + tk.tid + ')' + lane;
}

/* Lines from top to bottom: group headers and rows, with y positions. */
function buildLines(M, R, collapsed) {
  const lines = [];
  const fileSpan = M.files.map(() => null); /* [y0, y1) of each process */
  let y = 0;
  let last = { host: null, file: -1, comm: null, thread: null };
  for (const t of M.order) {
    const tk = M.tracks[t];
    const rowsOfT = R.trackRows[t];
    if (!rowsOfT.length) continue;
    const f = M.files[tk.file];
    const host = f.host || '(unknown host)';
    const hostKey = 'h:' + host;
    const procKey = 'p:' + tk.file;
    const commKey = procKey + ':c:' + tk.ctx;
    const threadKey = commKey + ':t:' + (tk.completion ? 'c' : tk.tid);
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
