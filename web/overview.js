// SPDX-License-Identifier: Apache-2.0
/* web/overview.js — the overview of ranks x time: one row per GPU (by
 * global rank), its collectives coloured by arrival lateness (this GPU's
 * start minus the earliest start of the same collective on any rank; green
 * on time, red the latest of the trace), the straggler's row marked: the
 * GPU the straggler verdict of `cclscope summary` names (O.straggler, with
 * O.verdict; the page takes that verdict and judges nothing itself, so it
 * never names another GPU than the summary). Two levels of detail come from
 * the page's data (web/README.md, "overview"): per-row time buckets, drawn
 * when zoomed out (shade = how busy, colour = the most lateness in the
 * bucket), and the collectives one by one when zoomed in enough and the
 * page holds them. Rows share the height of the canvas (2 to 16 px each);
 * clicking a row opens that GPU's lanes (main.js). */
'use strict';

const OV_MIN_ROW_H = 2;
const OV_MAX_ROW_H = 24;

/* Per-row ranges of the instance and bucket columns (both sorted by row). */
function buildOverview(M) {
  const O = M.raw.overview;
  if (!O || !O.rows.length) return null;
  const nr = O.rows.length;
  const ranges = (rowCol) => {
    const off = new Int32Array(nr + 1);
    for (const r of rowCol) off[r + 1]++;
    for (let r = 0; r < nr; r++) off[r + 1] += off[r];
    return off;
  };
  const ov = { O, nr, cellOff: ranges(O.cells.row), inst: null, instOff: null, maxDur: null };
  ov.cellB = Int32Array.from(O.cells.b);
  if (O.instances) {
    const I = O.instances;
    ov.inst = { start: Float64Array.from(I.start), dur: Float64Array.from(I.dur), late: Float64Array.from(I.late), func: I.func };
    ov.instOff = ranges(I.row);
    ov.maxDur = new Float64Array(nr);
    for (let r = 0; r < nr; r++) {
      for (let k = ov.instOff[r]; k < ov.instOff[r + 1]; k++) if (I.dur[k] > ov.maxDur[r]) ov.maxDur[r] = I.dur[k];
    }
  }
  ov.lateScale = Math.max(1000, O.lateMax);
  ov.labels = O.rows.map((r) => (r.globalRank != null ? 'rank ' + r.globalRank : 'pid ' + r.pid) +
    (r.host ? ' · ' + r.host : '') + (r.device != null ? ' · dev ' + r.device : ''));
  return ov;
}

/* Lateness to a colour: green (on time) through yellow to red (the
 * latest); the square root shows small lateness too. */
function lateColor(ov, late) {
  const t = Math.sqrt(Math.min(1, Math.max(0, late) / ov.lateScale));
  return 'hsl(' + Math.round(120 * (1 - t)) + ',75%,' + Math.round(42 + 8 * (1 - t)) + '%)';
}

function ovRowH(V) {
  const h = Math.floor((V.height - AXIS_H) / V.ov.nr);
  return Math.max(OV_MIN_ROW_H, Math.min(OV_MAX_ROW_H, h));
}

function ovHeight(V) {
  return V.ov.nr * ovRowH(V);
}

/* The overview row at canvas y, or -1. */
function ovRowAt(V, y) {
  if (y < AXIS_H) return -1;
  const r = Math.floor((y - AXIS_H + V.scrollY) / ovRowH(V));
  return r >= 0 && r < V.ov.nr ? r : -1;
}

function drawOvBuckets(V, ctx, r, y, h, stats) {
  const { O, cellOff, cellB } = V.ov;
  const C = O.cells;
  const w = O.bucketWidth;
  /* the first bucket that may be visible, by binary search */
  const b0 = Math.floor((V.t0 - O.bucketT0) / w);
  let k = lowerBound(cellB, null, cellOff[r], cellOff[r + 1], b0);
  for (; k < cellOff[r + 1]; k++) {
    const ts = O.bucketT0 + cellB[k] * w;
    if (ts > V.t1) break;
    const x0 = Math.max(LABEL_W, timeToX(V, ts));
    const x1 = Math.min(V.width, timeToX(V, ts + w));
    if (x1 <= LABEL_W) continue;
    ctx.globalAlpha = Math.max(0.35, Math.min(1, C.busy[k] / w));
    ctx.fillStyle = lateColor(V.ov, C.late[k]);
    ctx.fillRect(x0, y, Math.max(1, x1 - x0), h);
    stats.buckets++;
  }
  ctx.globalAlpha = 1;
}

/* The collectives of row r one by one; those narrower than a pixel share
 * their pixel, which takes the most lateness among them. */
function drawOvInstances(V, ctx, r, y, h, stats) {
  const { inst, instOff, maxDur } = V.ov;
  const lo = instOff[r];
  const hi = instOff[r + 1];
  let k = lowerBound(inst.start, null, lo, hi, V.t0 - maxDur[r]);
  let px = -1;
  let pxLate = -1;
  const flush = () => {
    if (px < 0) return;
    ctx.fillStyle = lateColor(V.ov, pxLate);
    ctx.fillRect(px, y, 1, h);
    stats.instances++;
  };
  for (; k < hi && inst.start[k] <= V.t1; k++) {
    const x0 = timeToX(V, inst.start[k]);
    const x1 = timeToX(V, inst.start[k] + inst.dur[k]);
    if (x1 < LABEL_W) continue;
    if (x1 - x0 >= 1.5) {
      const xa = Math.max(LABEL_W, x0);
      ctx.fillStyle = lateColor(V.ov, inst.late[k]);
      ctx.fillRect(xa, y, Math.min(V.width, x1) - xa, h);
      stats.instances++;
      continue;
    }
    const p = Math.floor(Math.max(LABEL_W, x0));
    if (p !== px) { flush(); px = p; pxLate = -1; }
    if (inst.late[k] > pxLate) pxLate = inst.late[k];
  }
  flush();
}

function drawOverview(V) {
  const t0 = performance.now();
  const ctx = V.ctx;
  const ov = V.ov;
  ctx.setTransform(V.dpr, 0, 0, V.dpr, 0, 0);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, V.width, V.height);
  const rh = ovRowH(V);
  const gap = rh >= 6 ? 1 : 0;
  const stats = { rows: 0, buckets: 0, instances: 0, level: 'buckets' };
  /* one level for the whole frame: collectives one by one once a bucket
   * is wider than 4 px and the page holds them */
  const bucketPx = (ov.O.bucketWidth * plotWidth(V)) / (V.t1 - V.t0);
  const oneByOne = ov.inst !== null && bucketPx > 4;
  stats.level = oneByOne ? 'instances' : 'buckets';
  const first = Math.max(0, Math.floor(V.scrollY / rh));
  ctx.save();
  ctx.beginPath();
  ctx.rect(LABEL_W, AXIS_H, plotWidth(V), V.height - AXIS_H);
  ctx.clip();
  for (let r = first; r < ov.nr; r++) {
    const y = AXIS_H + r * rh - V.scrollY;
    if (y > V.height) break;
    if (r === ov.O.straggler) {
      ctx.fillStyle = 'rgba(211,47,47,0.18)';
      ctx.fillRect(LABEL_W, y, plotWidth(V), rh);
    } else if (r === V.ovHover) {
      ctx.fillStyle = 'rgba(38,50,56,0.08)';
      ctx.fillRect(LABEL_W, y, plotWidth(V), rh);
    }
    if (oneByOne) drawOvInstances(V, ctx, r, y, rh - gap, stats);
    else drawOvBuckets(V, ctx, r, y, rh - gap, stats);
    stats.rows++;
  }
  ctx.restore();
  drawAxis(V, ctx);
  /* labels: every row when there is room, else every n-th and the
   * straggler's */
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, AXIS_H, LABEL_W, V.height - AXIS_H);
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, AXIS_H, LABEL_W, V.height - AXIS_H);
  ctx.clip();
  const every = Math.max(1, Math.ceil(13 / rh));
  ctx.font = '11px system-ui, sans-serif';
  for (let r = first; r < ov.nr; r++) {
    const y = AXIS_H + r * rh - V.scrollY;
    if (y > V.height) break;
    const strag = r === ov.O.straggler;
    if (strag) {
      ctx.fillStyle = '#d32f2f';
      ctx.fillRect(0, y, 6, Math.max(rh, 2));
    }
    if (r % every && !strag) continue;
    ctx.fillStyle = strag ? '#b71c1c' : '#37474f';
    ctx.font = (strag ? 'bold ' : '') + '11px system-ui, sans-serif';
    const text = (strag ? '⚠ ' + verdictKind(ov) + verdictConfidence(ov) + ' · ' : '') + ov.labels[r];
    ctx.fillText(fitText(ctx, text, LABEL_W - 10), 10, y + rh / 2 + 4);
  }
  ctx.restore();
  ctx.strokeStyle = '#b0bec5';
  ctx.beginPath();
  ctx.moveTo(LABEL_W - 0.5, AXIS_H);
  ctx.lineTo(LABEL_W - 0.5, V.height);
  ctx.stroke();
  /* the colour key, on the right of the time axis */
  const kx = V.width - 300;
  ctx.fillStyle = '#eceff1';
  ctx.fillRect(kx - 8, 0, 308, AXIS_H - 1);
  ctx.font = '10px system-ui, sans-serif';
  ctx.fillStyle = '#37474f';
  ctx.fillText('lateness 0', kx, 16);
  for (let i = 0; i < 80; i++) {
    ctx.fillStyle = lateColor(ov, (ov.lateScale * i * i) / 6241);
    ctx.fillRect(kx + 52 + i, 7, 1, 11);
  }
  ctx.fillStyle = '#37474f';
  ctx.fillText(fmtDur(ov.O.lateMax) + (stats.level === 'buckets' ? ' · buckets' : ' · collectives'), kx + 136, 16);
  V.ovStats = stats;
  const ms = performance.now() - t0;
  V.frameTimes.push(ms);
  if (V.frameTimes.length > 600) V.frameTimes.shift();
}

/* "late host", "slow GPU": what kind of straggler the verdict named
 * (`cclscope summary`'s kind), "straggler" when it does not say. */
function verdictKind(ov) {
  const v = ov.O.verdict;
  return v && v.kind && v.kind !== 'none' ? v.kind : 'straggler';
}

/* " (high)": the confidence of the verdict that named the straggler. */
function verdictConfidence(ov) {
  const v = ov.O.verdict;
  return v && v.confidence ? ' (' + v.confidence + ')' : '';
}

/* One line about row r for the status bar. */
function ovRowText(V, r) {
  const row = V.ov.O.rows[r];
  const mean = row.count ? row.lateSum / row.count : 0;
  const strag = r === V.ov.O.straggler ? ' · straggler (' + verdictKind(V.ov) + '), confidence ' + V.ov.O.verdict.confidence : '';
  return V.ov.labels[r] + ' · ' + row.count + ' collectives · mean lateness ' + fmtDur(mean) +
    ' · most ' + fmtDur(row.lateMax) + strag + ' · click: its lanes';
}
