// SPDX-License-Identifier: Apache-2.0
/* web/render.js — drawing the timeline on one canvas: the time axis, group
 * headers, rows of events (colour per type; reclaimed and in-flight events
 * faded with a dashed outline; states as red dots when there is room), step
 * and label marks as vertical lines, the links of the selected event
 * (parent: blue dotted; the same collective on the other ranks: red), and
 * the label column. Level of detail: in each row the first visible item is
 * found by binary search, and items narrower than a pixel are merged with
 * their neighbours into one block, skipping ahead by binary search, so a
 * frame costs about (visible rows x pixels x log n) whatever the number of
 * events. */
'use strict';

const LABEL_W = 300;
const AXIS_H = 26;

function plotWidth(V) {
  return Math.max(10, V.width - LABEL_W);
}

function timeToX(V, t) {
  return LABEL_W + ((t - V.t0) * plotWidth(V)) / (V.t1 - V.t0);
}

function xToTime(V, x) {
  return V.t0 + ((x - LABEL_W) * (V.t1 - V.t0)) / plotWidth(V);
}

/* Rectangle of item i in canvas CSS pixels, or null (filtered out or in a
 * collapsed group). Not clipped to the visible area. */
function itemRect(V, i) {
  const r = V.R.rowOf[i];
  if (r < 0) return null;
  const ly = V.rowY[r];
  if (ly < 0) return null;
  const x0 = timeToX(V, V.M.start[i]);
  const x1 = timeToX(V, V.M.end[i]);
  return { x: x0, y: AXIS_H + ly - V.scrollY + 1, w: Math.max(1, x1 - x0), h: ROW_H - 2 };
}

function niceStep(ns) {
  const p = Math.pow(10, Math.floor(Math.log10(ns)));
  for (const m of [1, 2, 5, 10]) if (m * p >= ns) return m * p;
  return 10 * p;
}

function fitText(ctx, text, w) {
  const cw = 6.2; /* average width of a character of the 11px font */
  const max = Math.floor((w - 6) / cw);
  if (max < 2) return '';
  return text.length <= max ? text : text.slice(0, max - 1) + '…';
}

const stateCache = new Map();
function stateTimes(M, i) {
  let s = stateCache.get(i);
  if (s) return s;
  s = [];
  const x = itemExtra(M, i);
  const st = jsonGet(x, 'states');
  if (st && st.t === 'arr') {
    for (const o of st.items) {
      const ts = jsonGet(o, 'ts');
      if (ts && ts.t === 'num') s.push(Number(ts.v));
    }
  }
  if (stateCache.size > 20000) stateCache.clear();
  stateCache.set(i, s);
  return s;
}

function drawRow(V, ctx, row, y, stats) {
  const M = V.M;
  const n = row.items.length;
  if (!n) return;
  const { starts, ends, items } = row;
  const pxNs = (V.t1 - V.t0) / plotWidth(V);
  const right = V.width;
  let k = row.overlap ? lowerBound(starts, null, 0, n, V.t0 - row.maxDur) : lowerBound(ends, null, 0, n, V.t0);
  const h = ROW_H - 2;
  ctx.font = '11px system-ui, sans-serif';
  while (k < n) {
    const s = starts[k];
    if (s > V.t1) break;
    const x0 = timeToX(V, s);
    const x1 = timeToX(V, ends[k]);
    const i = items[k];
    const color = typeColor(typeName(M, i));
    if (x1 - x0 >= 1) {
      const xa = Math.max(LABEL_W, x0);
      const xb = Math.min(right, x1);
      const faded = M.endKind[i] !== 0 && i < M.nEv;
      ctx.globalAlpha = faded ? 0.45 : 1;
      ctx.fillStyle = color;
      ctx.fillRect(xa, y + 1, xb - xa, h);
      ctx.globalAlpha = 1;
      if (faded) {
        ctx.setLineDash([3, 2]);
        ctx.strokeStyle = '#b71c1c';
        ctx.strokeRect(xa + 0.5, y + 1.5, Math.max(0, xb - xa - 1), h - 1);
        ctx.setLineDash([]);
      }
      if (xb - xa > 30) {
        const label = fitText(ctx, itemName(M, i), xb - xa);
        if (label) {
          ctx.fillStyle = '#102027';
          ctx.fillText(label, xa + 3, y + 12);
        }
      }
      if (xb - xa > 24 && i < M.nEv) {
        ctx.fillStyle = STATE_DOT;
        for (const t of stateTimes(M, i)) {
          const sx = timeToX(V, t);
          if (sx >= xa && sx <= xb) {
            ctx.beginPath();
            ctx.arc(sx, y + 2.5, 2, 0, 2 * Math.PI);
            ctx.fill();
          }
        }
      }
      stats.drawn++;
      stats.fromTiles += M.fromTile[i];
      k++;
      continue;
    }
    /* a run of sub-pixel items: one block */
    stats.fromTiles += M.fromTile[i];
    let runEnd = Math.max(x1, x0 + 1);
    let count = 0;
    for (;;) {
      const tNext = V.t0 + (runEnd - LABEL_W) * pxNs;
      const k2 = Math.max(k + 1, lowerBound(starts, null, k + 1, n, tNext));
      count += k2 - k;
      runEnd = Math.max(runEnd, timeToX(V, ends[k2 - 1]));
      k = k2;
      if (k >= n) break;
      const nx0 = timeToX(V, starts[k]);
      const nx1 = timeToX(V, ends[k]);
      if (nx0 >= runEnd + 1 || nx1 - nx0 >= 1 || starts[k] > V.t1) break;
      /* nx0 >= runEnd: each round moves on by a pixel at least */
      runEnd = Math.max(runEnd, nx0 + 1, nx1);
    }
    /* zoomed out: the block's shade says how many items it stands for
     * per pixel, so a busy stretch and a sparse one look different */
    const xa = Math.max(LABEL_W, x0);
    const wpx = Math.max(1, Math.min(right, runEnd) - xa);
    ctx.fillStyle = color;
    ctx.globalAlpha = 0.25 + 0.6 * Math.min(1, Math.log2(1 + count / wpx) / 4);
    ctx.fillRect(xa, y + 1, wpx, h);
    ctx.globalAlpha = 1;
    stats.merged++;
    stats.mergedItems += count;
  }
}

function drawAxis(V, ctx) {
  ctx.fillStyle = '#eceff1';
  ctx.fillRect(0, 0, V.width, AXIS_H);
  ctx.strokeStyle = '#b0bec5';
  ctx.beginPath();
  ctx.moveTo(0, AXIS_H - 0.5);
  ctx.lineTo(V.width, AXIS_H - 0.5);
  ctx.stroke();
  const step = niceStep(((V.t1 - V.t0) * 110) / plotWidth(V));
  const first = Math.ceil((V.t0 - V.M.tMin) / step) * step + V.M.tMin;
  ctx.fillStyle = '#37474f';
  ctx.font = '11px system-ui, sans-serif';
  for (let t = first; t <= V.t1; t += step) {
    const x = Math.round(timeToX(V, t)) + 0.5;
    ctx.strokeStyle = '#90a4ae';
    ctx.beginPath();
    ctx.moveTo(x, AXIS_H - 6);
    ctx.lineTo(x, AXIS_H);
    ctx.stroke();
    ctx.strokeStyle = 'rgba(144,164,174,.25)';
    ctx.beginPath();
    ctx.moveTo(x, AXIS_H);
    ctx.lineTo(x, V.height);
    ctx.stroke();
    ctx.fillText(fmtDur(t - V.M.tMin), x + 3, 12);
  }
}

/* Marks of a process are drawn over that process's rows (each process
 * marks its own steps), labelled at the top of them. Per process they are
 * sorted by time: the first visible one is found by binary search, and
 * marks closer than 2 px to the last one drawn are skipped (by binary
 * search too), so a trace with a mark per step stays fast. */
function drawMarks(V, ctx) {
  const M = V.M;
  if (!M.marksByFile) {
    M.marksByFile = M.files.map(() => []);
    for (const m of M.marks) M.marksByFile[m.file].push(m);
    M.marksByFile = M.marksByFile.map((list) => {
      list.sort((a, b) => a.ts - b.ts);
      return { list, ts: Float64Array.from(list, (m) => m.ts) };
    });
  }
  ctx.save();
  ctx.beginPath();
  ctx.rect(LABEL_W, 0, plotWidth(V), V.height);
  ctx.clip();
  ctx.font = '10px system-ui, sans-serif';
  const pxNs = (V.t1 - V.t0) / plotWidth(V);
  for (let f = 0; f < M.files.length; f++) {
    const { list, ts } = M.marksByFile[f];
    const span = V.L.fileSpan[f];
    if (!list.length || !span) continue;
    const y0 = Math.max(AXIS_H, AXIS_H + span[0] - V.scrollY);
    const y1 = Math.min(V.height, AXIS_H + span[1] - V.scrollY);
    let k = lowerBound(ts, null, 0, ts.length, V.t0);
    let lastLabel = -Infinity;
    while (k < ts.length && ts[k] <= V.t1) {
      const m = list[k];
      const x = Math.round(timeToX(V, m.ts)) + 0.5;
      ctx.fillStyle = MARK_COLOR;
      ctx.fillRect(x - 3, AXIS_H - 4, 6, 4); /* a tick on the axis */
      if (y1 > y0) {
        ctx.strokeStyle = MARK_COLOR;
        ctx.globalAlpha = m.kind === 'step' ? 0.9 : 0.6;
        ctx.setLineDash(m.kind === 'step' ? [] : [4, 3]);
        ctx.beginPath();
        ctx.moveTo(x, y0);
        ctx.lineTo(x, y1);
        ctx.stroke();
        ctx.setLineDash([]);
        ctx.globalAlpha = 1;
        if (x - lastLabel > 60) {
          const text = m.kind === 'step' ? 'step ' + m.step : m.kind + (m.label ? ' ' + m.label : '');
          ctx.fillText(text, x + 3, y0 + 11);
          lastLabel = x;
        }
      }
      k = Math.max(k + 1, lowerBound(ts, null, k + 1, ts.length, m.ts + 2 * pxNs));
    }
  }
  ctx.restore();
}

function linkPoint(V, i) {
  const r = itemRect(V, i);
  if (!r) return null;
  return { x: Math.max(LABEL_W, Math.min(V.width, r.x + Math.min(3, r.w / 2))), y: r.y + r.h / 2 };
}

function drawLink(ctx, a, b, color, dash) {
  ctx.strokeStyle = color;
  ctx.setLineDash(dash);
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.moveTo(a.x, a.y);
  const mx = Math.max(a.x, b.x) + 12;
  ctx.bezierCurveTo(mx, a.y, mx, b.y, b.x, b.y);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.lineWidth = 1;
  ctx.fillStyle = color;
  ctx.beginPath();
  ctx.arc(b.x, b.y, 2.5, 0, 2 * Math.PI);
  ctx.fill();
}

function drawLinks(V, ctx) {
  const i = V.selected;
  if (i < 0) return;
  const M = V.M;
  ctx.save();
  ctx.beginPath();
  ctx.rect(LABEL_W, AXIS_H, plotWidth(V), V.height - AXIS_H);
  ctx.clip();
  V.linksDrawn = { parent: 0, children: 0, collective: 0 };
  const p = M.parent[i];
  const me = linkPoint(V, i);
  if (p >= 0 && me) {
    const pp = linkPoint(V, p);
    if (pp) { drawLink(ctx, pp, me, LINK_PARENT, [2, 3]); V.linksDrawn.parent++; }
  }
  const kids = childrenOf(M, i);
  if (me && kids.length <= 256) {
    for (const c of kids) {
      const cp = linkPoint(V, c);
      if (cp) { drawLink(ctx, me, cp, LINK_PARENT, [2, 3]); V.linksDrawn.children++; }
    }
  }
  const coll = collectiveOf(M, i).slice().sort((a, b) => M.start[a] - M.start[b]);
  for (let k = 1; k < coll.length; k++) {
    const a = linkPoint(V, coll[k - 1]);
    const b = linkPoint(V, coll[k]);
    if (a && b) { drawLink(ctx, a, b, LINK_COLL, []); V.linksDrawn.collective++; }
  }
  ctx.restore();
}

function outline(V, ctx, i, color, width) {
  const r = itemRect(V, i);
  if (!r || r.y + r.h < AXIS_H || r.y > V.height) return;
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  const x = Math.max(LABEL_W - 2, r.x);
  ctx.strokeRect(x - 0.5, r.y - 0.5, Math.max(2, Math.min(V.width, r.x + r.w) - x) + 1, r.h + 1);
  ctx.lineWidth = 1;
}

function drawLabels(V, ctx, first, last) {
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, AXIS_H, LABEL_W, V.height - AXIS_H);
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, AXIS_H, LABEL_W, V.height - AXIS_H);
  ctx.clip();
  for (let k = first; k <= last && k < V.L.lines.length; k++) {
    const l = V.L.lines[k];
    const y = AXIS_H + l.y - V.scrollY;
    if (l.kind !== 'row') {
      ctx.fillStyle = ['#cfd8dc', '#dfe6e9', '#eef2f3'][l.depth];
      ctx.fillRect(0, y, LABEL_W, l.h);
      ctx.fillStyle = '#263238';
      ctx.font = (l.depth === 0 ? 'bold ' : '') + '12px system-ui, sans-serif';
      const sign = V.collapsed.has(l.key) ? '▸ ' : '▾ ';
      ctx.fillText(sign + l.label, 4 + l.depth * 10, y + 13);
    } else if (l.label) {
      ctx.fillStyle = '#37474f';
      ctx.font = '11px system-ui, sans-serif';
      ctx.fillText(fitText(ctx, l.label, LABEL_W - 34), 34, y + 12);
    }
  }
  ctx.restore();
  ctx.strokeStyle = '#b0bec5';
  ctx.beginPath();
  ctx.moveTo(LABEL_W - 0.5, AXIS_H);
  ctx.lineTo(LABEL_W - 0.5, V.height);
  ctx.stroke();
}

function draw(V) {
  const t0 = performance.now();
  const ctx = V.ctx;
  ctx.setTransform(V.dpr, 0, 0, V.dpr, 0, 0);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, V.width, V.height);
  const stats = { drawn: 0, merged: 0, mergedItems: 0, fromTiles: 0 };
  const L = V.L;
  let first = Math.max(0, lineAt(L, V.scrollY));
  let last = first;
  ctx.save();
  ctx.beginPath();
  ctx.rect(LABEL_W, AXIS_H, plotWidth(V), V.height - AXIS_H);
  ctx.clip();
  for (let k = first; k < L.lines.length; k++) {
    const l = L.lines[k];
    const y = AXIS_H + l.y - V.scrollY;
    if (y > V.height) break;
    last = k;
    if (l.kind !== 'row') {
      ctx.fillStyle = ['#eceff1', '#f3f6f7', '#f8fafa'][l.depth];
      ctx.fillRect(LABEL_W, y, plotWidth(V), l.h);
      continue;
    }
    drawRow(V, ctx, V.R.rows[l.row], y, stats);
  }
  ctx.restore();
  drawAxis(V, ctx);
  drawMarks(V, ctx);
  drawLinks(V, ctx);
  for (const i of V.matches.slice(0, 2000)) outline(V, ctx, i, '#ff6f00', 1.5);
  if (V.hover >= 0) outline(V, ctx, V.hover, '#263238', 1);
  if (V.selected >= 0) outline(V, ctx, V.selected, '#000000', 2);
  drawLabels(V, ctx, first, last);
  if (!L.lines.length) {
    ctx.fillStyle = '#546e7a';
    ctx.font = '14px system-ui, sans-serif';
    ctx.fillText(V.M.n ? 'Every event is filtered out.' : 'No events in these traces.', LABEL_W + 20, AXIS_H + 30);
  }
  V.stats = stats;
  const ms = performance.now() - t0;
  V.frameTimes.push(ms);
  if (V.frameTimes.length > 600) V.frameTimes.shift();
}
