// SPDX-License-Identifier: Apache-2.0
/* web/tiles.js — the detail beyond the page's own: `cclscope view` wrote it
 * as tiles next to the page (PAGE.files/tile-000000.js, ...; the index is
 * the data's `tiles`, web/README.md), each a stretch of the trace's events
 * and timing records in start order, with the marks of that stretch. On the
 * lanes, before each frame, the tiles whose starts fall in the window
 * (widened by a quarter of it on each side) are loaded with <script src> (which works from file://, where fetch
 * does not): each calls cclscopeTile(k, extra lines, columns). When they
 * have all arrived the page merges them with its own detail (data.js
 * assemble) and draws again; tiles far from the window are dropped once
 * more than `loadBytes` are loaded. A window that needs more than that
 * says "zoom in"; a tile that fails to load (the folder was not copied
 * with the page) is said on screen, and the window is drawn from the
 * overview instead. */
'use strict';

const TILE_MARGIN = 0.25;

function tileFile(T, k) {
  return T.dir + '/tile-' + String(k).padStart(6, '0') + '.js';
}

/* The page's tiles, or null when it has none; `onChange` runs after a
 * batch of tiles arrived or failed. */
function initTiles(M, onChange) {
  const I = M.raw.tiles;
  if (!I || !I.count) return null;
  const T = {
    I, dir: I.dir, count: I.count, strings: M.strings, t0: Float64Array.from(I.t0), t1: Float64Array.from(I.t1),
    loadBytes: I.loadBytes, loaded: new Map(), pending: new Map(), arrived: new Map(), missing: new Set(),
    want: [], state: 'idle', note: '', batches: 0, onChange,
  };
  window.cclscopeTile = (k, text, cols) => {
    if (T.pending.has(k)) T.arrived.set(k, { text, cols });
  };
  return T;
}

/* Tiles whose starts fall within [a, b] widened by the margin. */
function tilesFor(T, a, b) {
  const m = (b - a) * TILE_MARGIN;
  const out = [];
  for (let k = lowerBound(T.t1, null, 0, T.count, a - m); k < T.count && T.t0[k] <= b + m; k++) out.push(k);
  return out;
}

function loadedBytes(T) {
  let b = 0;
  for (const k of T.loaded.keys()) b += T.I.size[k];
  return b;
}

/* Drop loaded tiles the window does not need, farthest first, until no
 * more than loadBytes are loaded. */
function evictTiles(T, center) {
  const wanted = new Set(T.want);
  const spare = [...T.loaded.keys()].filter((k) => !wanted.has(k));
  spare.sort((a, b) => Math.abs((T.t0[b] + T.t1[b]) / 2 - center) - Math.abs((T.t0[a] + T.t1[a]) / 2 - center));
  let bytes = loadedBytes(T);
  for (const k of spare) {
    if (bytes <= T.loadBytes) break;
    T.loaded.delete(k);
    bytes -= T.I.size[k];
  }
}

function settleTile(T, k, ok, center) {
  const s = T.pending.get(k);
  T.pending.delete(k);
  if (s) s.remove();
  const got = T.arrived.get(k);
  T.arrived.delete(k);
  if (ok && got && got.cols && got.cols.events && got.cols.timing) {
    const K = got.cols.marks;
    const marks = K ? K.ts.map((ts, j) => ({ file: K.file[j], ts, kind: T.strings[K.kind[j]], label: T.strings[K.label[j]],
      step: K.step[j] })) : [];
    T.loaded.set(k, makeChunk(got.cols.events, got.cols.timing, [got.text], T.I.ev0[k], T.I.tm0[k], k, marks));
  } else {
    T.missing.add(k);
  }
  if (T.pending.size) return;
  evictTiles(T, center);
  T.batches++;
  T.onChange();
}

function requestTile(T, k, center) {
  const s = document.createElement('script');
  s.src = tileFile(T, k);
  s.onload = () => settleTile(T, k, true, center);
  s.onerror = () => settleTile(T, k, false, center);
  T.pending.set(k, s);
  document.head.appendChild(s);
}

/* Before a frame of the lanes: ask for the tiles of the window and say
 * what is missing. */
function tilesUpdate(V) {
  const T = V.tiles;
  if (!T) return;
  const want = tilesFor(T, V.t0, V.t1);
  let bytes = 0;
  for (const k of want) bytes += T.I.size[k];
  T.want = want;
  if (bytes > T.loadBytes) {
    T.state = 'zoom';
    T.note = 'Zoom in to load the detail here (' + fmtBytes(bytes) + ' in ' + want.length + ' tiles; the page loads up to ' +
      fmtBytes(T.loadBytes) + ' at a time)';
    return;
  }
  const center = (V.t0 + V.t1) / 2;
  for (const k of want) if (!T.loaded.has(k) && !T.pending.has(k) && !T.missing.has(k)) requestTile(T, k, center);
  const missing = want.filter((k) => T.missing.has(k));
  if (T.pending.size) {
    T.state = 'loading';
    T.note = 'loading detail… (' + T.pending.size + ' tiles from ' + T.dir + '/)';
  } else if (missing.length) {
    T.state = 'missing';
    T.note = 'Detail missing: ' + missing.length + ' tile file(s) not in ' + T.dir + '/ (keep it next to the page); ' +
      'the overview instead';
  } else {
    T.state = want.length ? 'loaded' : 'idle';
    T.note = '';
  }
}

/* The note over the top of the plot. */
function drawTileNote(V, ctx) {
  const T = V.tiles;
  if (!T || !T.note) return;
  ctx.font = '12px system-ui, sans-serif';
  const w = Math.min(plotWidth(V) - 20, ctx.measureText(T.note).width + 20);
  const x = LABEL_W + (plotWidth(V) - w) / 2;
  const y = AXIS_H + 6;
  ctx.fillStyle = T.state === 'missing' ? '#ffebee' : '#fff8e1';
  ctx.strokeStyle = T.state === 'missing' ? '#d32f2f' : '#ffb300';
  ctx.fillRect(x, y, w, 22);
  ctx.strokeRect(x + 0.5, y + 0.5, w - 1, 21);
  ctx.fillStyle = '#263238';
  ctx.fillText(fitText(ctx, T.note, w), x + 10, y + 15);
}
