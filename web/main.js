// SPDX-License-Identifier: Apache-2.0
/* web/main.js — the page's state and input: zoom (wheel, + and -), pan
 * (drag, arrow keys), reset (0, Home), vertical scroll (wheel with Shift,
 * Page Up/Down, drag), hover and click on events, collapsing groups by
 * clicking their headers, following links, filters and search. Draws on
 * the next animation frame after a change. Exposes a small read-only debug
 * API as window.cclscopeView for tests (counts, screen rectangles of
 * items, frame times). */
'use strict';

(function main() {
  const M = loadData();
  M.order = trackOrder(M);
  const canvas = document.getElementById('canvas');
  const box = document.getElementById('timeline');
  const V = {
    M, R: null, L: null, rowY: null, ctx: canvas.getContext('2d', { alpha: false }),
    t0: M.tMin, t1: M.tMax, scrollY: 0, width: 0, height: 0, dpr: 1,
    hover: -1, selected: -1, collapsed: new Set(), hiddenTypes: new Set(),
    filter: { type: '', func: '', rank: '' }, search: '', matches: [], matchAt: -1,
    frameTimes: [], stats: { drawn: 0, merged: 0, mergedItems: 0, fromTiles: 0 }, linksDrawn: null,
    pending: false, frames: 0,
    ov: buildOverview(M), mode: 'lanes', ovHover: -1, ovStats: null, savedScroll: { overview: 0, lanes: 0 },
  };
  /* tiles arrived (or failed): the items again, the selection kept */
  V.tiles = initTiles(M, () => {
    const t0 = performance.now();
    const sel = V.selected >= 0 ? M.globalOf(V.selected) : null;
    assemble(M, [M.base, ...V.tiles.loaded.values()]);
    V.selected = sel ? M.itemOf(sel) : -1;
    V.hover = -1;
    V.refilter();
    /* the panel's links are item numbers: shown again (or cleared when
     * the selected event's tile was dropped) */
    if (sel) showDetails(V, V.selected);
    V.tiles.mergeMs = performance.now() - t0;
    updateStatus();
  });
  /* the overview first whenever there are GPUs to compare */
  if (V.ov && V.ov.nr >= 2) V.mode = 'overview';

  function requestDraw() {
    if (V.pending) return;
    V.pending = true;
    requestAnimationFrame(() => {
      V.pending = false;
      if (V.mode === 'lanes') tilesUpdate(V);
      /* a window whose tiles are missing is drawn from the overview */
      const fallback = V.mode === 'lanes' && V.tiles && V.tiles.state === 'missing' && V.ov;
      if (V.mode === 'overview' || fallback) drawOverview(V); else draw(V);
      if (V.mode === 'lanes') drawTileNote(V, V.ctx);
      V.frames++;
    });
  }
  V.requestDraw = requestDraw;

  function relayout() {
    V.L = buildLines(M, V.R, V.collapsed);
    V.rowY = new Float64Array(V.R.rows.length).fill(-1);
    for (const l of V.L.lines) if (l.kind === 'row') V.rowY[l.row] = l.y;
    clampScroll();
    requestDraw();
  }

  function keep(i) {
    const t = typeName(M, i);
    if (V.hiddenTypes.has(t)) return false;
    if (V.filter.type && t !== V.filter.type) return false;
    const ev = i < M.nEv ? i : M.parent[i];
    if (V.filter.func) {
      if (ev < 0 || M.strings[M.raw.events.func[ev]] !== V.filter.func) return false;
    }
    if (V.filter.rank !== '') {
      if (ev < 0 || String(M.raw.events.rank[ev]) !== V.filter.rank) return false;
    }
    return true;
  }

  V.refilter = function refilter() {
    const any = V.hiddenTypes.size || V.filter.type || V.filter.func || V.filter.rank !== '';
    V.R = buildRows(M, any ? keep : null);
    relayout();
    runSearch();
  };

  function resize() {
    const r = box.getBoundingClientRect();
    V.dpr = window.devicePixelRatio || 1;
    V.width = Math.max(100, Math.floor(r.width));
    V.height = Math.max(100, Math.floor(r.height));
    canvas.width = Math.floor(V.width * V.dpr);
    canvas.height = Math.floor(V.height * V.dpr);
    canvas.style.width = V.width + 'px';
    canvas.style.height = V.height + 'px';
    clampScroll();
    requestDraw();
  }

  function clampScroll() {
    if (!V.L) return;
    const h = V.mode === 'overview' ? ovHeight(V) : V.L.height + 20;
    const max = Math.max(0, h - (V.height - AXIS_H));
    V.scrollY = Math.max(0, Math.min(max, V.scrollY));
  }

  /* ---- view window ---- */

  function setWindow(a, b) {
    const span = M.tMax - M.tMin;
    const minSpan = 10; /* ns */
    if (b - a < minSpan) {
      const c = (a + b) / 2;
      a = c - minSpan / 2;
      b = c + minSpan / 2;
    }
    const pad = span * 0.05;
    if (b - a > span + 2 * pad) { a = M.tMin - pad; b = M.tMax + pad; }
    if (a < M.tMin - pad) { b += M.tMin - pad - a; a = M.tMin - pad; }
    if (b > M.tMax + pad) { a -= b - M.tMax - pad; b = M.tMax + pad; }
    V.t0 = a;
    V.t1 = b;
    requestDraw();
  }

  function zoom(factor, x) {
    const t = xToTime(V, x === undefined ? LABEL_W + plotWidth(V) / 2 : x);
    setWindow(t - (t - V.t0) * factor, t + (V.t1 - t) * factor);
  }

  function pan(fraction) {
    const d = (V.t1 - V.t0) * fraction;
    setWindow(V.t0 + d, V.t1 + d);
  }

  function reset() {
    const pad = (M.tMax - M.tMin) * 0.01;
    V.t0 = M.tMin - pad;
    V.t1 = M.tMax + pad;
    V.scrollY = 0;
    requestDraw();
  }

  /* ---- overview and lanes ---- */

  const modeButton = document.getElementById('btn-mode');
  function setMode(mode) {
    if (mode === 'overview' && !V.ov) return;
    V.savedScroll[V.mode] = V.scrollY;
    V.mode = mode;
    V.scrollY = V.savedScroll[mode];
    V.ovHover = -1;
    modeButton.textContent = mode === 'overview' ? 'Lanes' : 'Overview';
    modeButton.title = mode === 'overview' ? 'every event of every rank, on its lanes (o)' : 'one row per GPU (o)';
    modeButton.hidden = !V.ov;
    document.body.dataset.mode = mode;
    showTooltip(V, -1);
    clampScroll();
    requestDraw();
  }

  /* The lanes of overview row r: every other process and this process's
   * other communicators collapsed, scrolled to its header. */
  function expandRow(r) {
    const row = V.ov.O.rows[r];
    V.collapsed = new Set();
    const mine = new Set(row.ctxs);
    const seen = new Set();
    for (const tk of M.tracks) {
      if (tk.file !== row.file) V.collapsed.add('p:' + tk.file);
      else if (tk.ctx >= 0 && !mine.has(tk.ctx) && mine.size) {
        const key = 'p:' + tk.file + ':c:' + tk.ctx;
        if (!seen.has(key)) { seen.add(key); V.collapsed.add(key); }
      }
    }
    V.savedScroll.lanes = 0;
    setMode('lanes');
    relayout();
    const span = V.L.fileSpan[row.file];
    V.scrollY = span ? span[0] : 0;
    clampScroll();
    V.expanded = r;
    requestDraw();
  }

  /* ---- hit testing ---- */

  function itemAt(x, y) {
    if (V.mode !== 'lanes' || x < LABEL_W || y < AXIS_H) return -1;
    const k = lineAt(V.L, y - AXIS_H + V.scrollY);
    if (k < 0) return -1;
    const l = V.L.lines[k];
    if (l.kind !== 'row') return -1;
    const row = V.R.rows[l.row];
    const t = xToTime(V, x);
    const tol = (3 * (V.t1 - V.t0)) / plotWidth(V);
    let j = row.overlap ? lowerBound(row.starts, null, 0, row.items.length, t - tol - row.maxDur)
      : lowerBound(row.ends, null, 0, row.items.length, t - tol);
    let best = -1;
    let bestD = Infinity;
    for (; j < row.items.length && row.starts[j] <= t + tol; j++) {
      const d = t < row.starts[j] ? row.starts[j] - t : t > row.ends[j] ? t - row.ends[j] : 0;
      /* on the timing records' row the one drawn last is on top */
      if (d < bestD || (row.overlap && d === 0)) { bestD = d; best = row.items[j]; }
      if (d === 0 && !row.overlap) break;
    }
    return best;
  }

  function headerAt(x, y) {
    if (V.mode !== 'lanes' || y < AXIS_H) return null;
    const k = lineAt(V.L, y - AXIS_H + V.scrollY);
    if (k < 0) return null;
    const l = V.L.lines[k];
    return l.kind !== 'row' ? l : null;
  }

  /* Bring item i into view (keeping the zoom unless it does not fit). */
  function reveal(i) {
    const r = V.R.rowOf[i];
    if (r < 0) return;
    let ly = V.rowY[r];
    if (ly < 0) {
      /* inside a collapsed group: open its groups */
      const tk = M.tracks[M.track[i]];
      const host = M.files[tk.file].host || '(unknown host)';
      V.collapsed.delete('h:' + host);
      V.collapsed.delete('p:' + tk.file);
      V.collapsed.delete('p:' + tk.file + ':c:' + tk.ctx);
      relayout();
      ly = V.rowY[r];
    }
    const view = V.height - AXIS_H;
    if (ly < V.scrollY || ly + ROW_H > V.scrollY + view) V.scrollY = ly - view / 3;
    clampScroll();
    const dur = M.end[i] - M.start[i];
    let span = V.t1 - V.t0;
    if (dur > span * 0.9) span = dur / 0.6;
    if (M.start[i] < V.t0 || M.end[i] > V.t1 || dur > span * 0.9) {
      const c = (M.start[i] + M.end[i]) / 2;
      setWindow(c - span / 2, c + span / 2);
    }
    requestDraw();
  }

  V.select = function select(i, follow) {
    V.selected = i;
    showDetails(V, i);
    if (follow && i >= 0) reveal(i);
    requestDraw();
  };

  /* ---- search ---- */

  const searchBox = document.getElementById('search');
  const searchCount = document.getElementById('search-count');

  function runSearch() {
    const q = V.search.trim().toLowerCase();
    V.matches = [];
    V.matchAt = -1;
    if (q) {
      const E = M.raw.events;
      const rankQ = /^r(\d+)$/.exec(q);
      const idQ = /^0x[0-9a-f]+$/.test(q) ? parseInt(q, 16) : -1;
      const nameHit = new Uint8Array(M.strings.length);
      M.strings.forEach((s, k) => { if (s && s.toLowerCase().includes(q)) nameHit[k] = 1; });
      const typeHit = M.types.map((t) => t.toLowerCase().includes(q));
      for (let i = 0; i < M.n; i++) {
        if (V.R.rowOf[i] < 0) continue;
        let hit;
        if (rankQ) hit = i < M.nEv && E.rank[i] === Number(rankQ[1]);
        else if (idQ >= 0) hit = i < M.nEv && E.id[i] === idQ;
        else hit = nameHit[M.name[i]] || (M.type[i] !== TIMING_TYPE ? typeHit[M.type[i]] : 'timing'.includes(q)) ||
          (i < M.nEv && nameHit[E.func[i]]);
        if (hit) V.matches.push(i);
      }
    }
    searchCount.textContent = q ? V.matches.length + ' found' + (V.matches.length ? ' (Enter: next)' : '') : '';
    requestDraw();
  }

  searchBox.addEventListener('input', () => { V.search = searchBox.value; runSearch(); });
  searchBox.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && V.matches.length) {
      V.matchAt = (V.matchAt + (e.shiftKey ? V.matches.length - 1 : 1)) % V.matches.length;
      V.select(V.matches[V.matchAt], true);
      searchCount.textContent = (V.matchAt + 1) + ' of ' + V.matches.length;
    } else if (e.key === 'Escape') {
      searchBox.blur();
      box.focus();
    }
    e.stopPropagation();
  });

  for (const [id, key] of [['f-type', 'type'], ['f-func', 'func'], ['f-rank', 'rank']]) {
    document.getElementById(id).addEventListener('change', (e) => {
      V.filter[key] = e.target.value;
      V.refilter();
    });
  }

  /* ---- mouse ---- */

  let drag = null;
  canvas.addEventListener('mousedown', (e) => {
    box.focus();
    drag = { x: e.clientX, y: e.clientY, t0: V.t0, t1: V.t1, sy: V.scrollY, moved: false };
  });
  window.addEventListener('mousemove', (e) => {
    const r = canvas.getBoundingClientRect();
    const x = e.clientX - r.left;
    const y = e.clientY - r.top;
    if (drag) {
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) {
        box.classList.add('dragging');
        const dt = (dx * (drag.t1 - drag.t0)) / plotWidth(V);
        setWindow(drag.t0 - dt, drag.t1 - dt);
        V.scrollY = drag.sy - dy;
        clampScroll();
        showTooltip(V, -1);
        return;
      }
    }
    if (e.target !== canvas) { if (V.hover >= 0) { V.hover = -1; showTooltip(V, -1); requestDraw(); } return; }
    if (V.mode === 'overview') {
      const r = ovRowAt(V, y);
      if (r !== V.ovHover) {
        V.ovHover = r;
        setStatus(r >= 0 ? ovRowText(V, r) : statusText);
        requestDraw();
      }
      return;
    }
    const i = itemAt(x, y);
    if (i !== V.hover) { V.hover = i; requestDraw(); }
    showTooltip(V, i, e.clientX, e.clientY);
  });
  window.addEventListener('mouseup', (e) => {
    if (!drag) return;
    const moved = drag.moved;
    drag = null;
    box.classList.remove('dragging');
    if (moved || e.target !== canvas) return;
    const r = canvas.getBoundingClientRect();
    const x = e.clientX - r.left;
    const y = e.clientY - r.top;
    if (V.mode === 'overview') {
      const row = ovRowAt(V, y);
      if (row >= 0) expandRow(row);
      return;
    }
    const h = headerAt(x, y);
    if (h && x < LABEL_W) {
      if (V.collapsed.has(h.key)) V.collapsed.delete(h.key); else V.collapsed.add(h.key);
      relayout();
      return;
    }
    V.select(itemAt(x, y), false);
  });
  canvas.addEventListener('mouseleave', () => {
    V.hover = -1;
    if (V.ovHover >= 0) setStatus(statusText);
    V.ovHover = -1;
    showTooltip(V, -1);
    requestDraw();
  });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = canvas.getBoundingClientRect();
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      if (e.shiftKey) { V.scrollY += e.deltaY; clampScroll(); requestDraw(); } else pan(e.deltaX / plotWidth(V));
      return;
    }
    zoom(Math.pow(1.0015, e.deltaY), Math.max(LABEL_W, e.clientX - r.left));
  }, { passive: false });

  /* ---- keyboard ---- */

  window.addEventListener('keydown', (e) => {
    if (e.target === searchBox || e.target.tagName === 'SELECT') return;
    const k = e.key;
    let done = true;
    if (k === '+' || k === '=') zoom(1 / 1.5);
    else if (k === '-' || k === '_') zoom(1.5);
    else if (k === 'ArrowLeft') pan(-0.15);
    else if (k === 'ArrowRight') pan(0.15);
    else if (k === 'ArrowUp') { V.scrollY -= ROW_H * 3; clampScroll(); requestDraw(); }
    else if (k === 'ArrowDown') { V.scrollY += ROW_H * 3; clampScroll(); requestDraw(); }
    else if (k === 'PageUp') { V.scrollY -= V.height * 0.8; clampScroll(); requestDraw(); }
    else if (k === 'PageDown') { V.scrollY += V.height * 0.8; clampScroll(); requestDraw(); }
    else if (k === '0' || k === 'Home') reset();
    else if (k === '/') searchBox.focus();
    else if (k === 'o') setMode(V.mode === 'overview' ? 'lanes' : 'overview');
    else if (k === 'Escape') { V.select(-1); document.getElementById('summary').hidden = true; }
    else if (k === 'p' && V.selected >= 0 && M.parent[V.selected] >= 0) V.select(M.parent[V.selected], true);
    else done = false;
    if (done) e.preventDefault();
  });

  /* ---- buttons ---- */

  document.getElementById('btn-reset').addEventListener('click', () => reset());
  modeButton.addEventListener('click', () => setMode(V.mode === 'overview' ? 'lanes' : 'overview'));
  const summary = document.getElementById('summary');
  document.getElementById('btn-summary').addEventListener('click', () => { summary.hidden = !summary.hidden; });
  document.getElementById('btn-summary-close').addEventListener('click', () => { summary.hidden = true; });

  /* ---- start ---- */

  const t0 = performance.now();
  V.R = buildRows(M, null);
  buildLegend(V);
  buildSummary(V);
  window.addEventListener('resize', resize);
  resize();
  relayout();
  setMode(V.mode);
  reset();
  V.layoutMs = performance.now() - t0;
  const status = document.getElementById('status');
  let statusText = '';
  /* the status shows one line, cut to the bar's room; its title the whole */
  function setStatus(text) {
    status.textContent = text;
    status.title = text;
  }
  /* the status line: what the page holds now (tiles loaded included) */
  function updateStatus() {
    let text = (V.ov ? V.ov.nr + ' GPUs · ' : '') + M.nEv + ' events · ' + M.nTm + ' timing records · ' +
      V.R.rows.length + ' rows · ' + M.files.length + ' processes · ' + M.marks.length + ' marks';
    if (M.raw.inputs.unplaced) text += ' · ' + M.raw.inputs.unplaced + ' events left out (too many overlaps)';
    const det = M.raw.detail;
    const TI = M.raw.tiles;
    if (det && !det.complete && !(TI && TI.count)) {
      const from = det.firstRecord;
      text += ' · detail for ' + fmtTime(det.from - from) + ' … ' + fmtTime(det.to - from) +
        ' after the first record only (' + (det.droppedEvents + det.droppedTiming) +
        ' records in the overview only; cclscope view --detail-from S or --detail-mb N for more)';
    }
    if (TI && TI.count) {
      text += ' · the rest of the detail (' + (det.tiledEvents + det.tiledTiming) + ' records) in ' + TI.count +
        ' tiles in ' + TI.dir + '/, loaded as you zoom in on the lanes (' + V.tiles.loaded.size + ' loaded)';
    }
    statusText = text;
    setStatus(text);
  }
  updateStatus();
  const first = M.files.find((f) => f.host);
  document.title = 'cclscope timeline' + (first ? ' — ' + first.host + (M.files.length > 1 ? ' +' + (M.files.length - 1) : '') : '');

  /* ---- debug API (read-only) for tests ---- */

  function rectOnPage(i) {
    const r = itemRect(V, i);
    if (!r) return null;
    const c = canvas.getBoundingClientRect();
    const x0 = Math.max(LABEL_W, r.x);
    const x1 = Math.min(V.width, r.x + r.w);
    const visible = x1 > x0 && r.y >= AXIS_H && r.y + r.h <= V.height;
    return { x: c.left + x0, y: c.top + r.y, w: Math.max(0, x1 - x0), h: r.h, visible };
  }
  function countParents(kind) {
    let c = 0;
    for (let i = 0; i < M.nEv; i++) if (M.raw.events.pk[i] === kind && M.parent[i] >= 0) c++;
    return c;
  }
  window.cclscopeView = Object.freeze({
    counts: () => ({
      events: M.nEv, timing: M.nTm, items: M.n, tracks: M.tracks.length, rows: V.R.rows.length,
      shownItems: V.R.rowOf.reduce((a, r) => a + (r >= 0 ? 1 : 0), 0), marks: M.marks.length,
      files: M.files.length, unplaced: M.raw.inputs.unplaced,
      parents: countParents(1), foreignParents: countParents(2),
    }),
    countByType: () => {
      const c = {};
      for (let i = 0; i < M.n; i++) { const t = typeName(M, i); c[t] = (c[t] || 0) + 1; }
      return c;
    },
    lastFrame: () => ({ drawn: V.stats.drawn, merged: V.stats.merged, mergedItems: V.stats.mergedItems, frames: V.frames,
      fromTiles: V.stats.fromTiles,
      ms: V.frameTimes[V.frameTimes.length - 1], links: V.linksDrawn ? { ...V.linksDrawn } : null }),
    frameTimes: () => V.frameTimes.slice(),
    headers: (kind) => V.L.lines.filter((l) => l.kind === kind).map((l) => l.label),
    loadTimes: () => ({ parseMs: M.loadMs, layoutMs: V.layoutMs }),
    view: () => ({ t0: V.t0, t1: V.t1, scrollY: V.scrollY, selected: V.selected, hover: V.hover, matches: V.matches.length }),
    find: (q) => {
      const out = [];
      for (let i = 0; i < M.nEv && out.length < (q.limit || 1e9); i++) {
        if (q.type && typeName(M, i) !== q.type) continue;
        if (q.func && M.strings[M.raw.events.func[i]] !== q.func) continue;
        if (q.rank !== undefined && M.raw.events.rank[i] !== q.rank) continue;
        if (q.hasParent && M.parent[i] < 0) continue;
        out.push(i);
      }
      return out;
    },
    item: (i) => (i < 0 || i >= M.n ? null : {
      index: i, type: typeName(M, i), name: itemName(M, i), id: i < M.nEv ? M.raw.events.id[i] : -1,
      parent: M.parent[i], rank: i < M.nEv ? M.raw.events.rank[i] : -1, startNs: M.start[i], endNs: M.end[i],
      track: M.track[i], row: V.R.rowOf[i], file: M.tracks[M.track[i]].file, host: M.files[M.tracks[M.track[i]].file].host,
      nranks: M.tracks[M.track[i]].nranks,
    }),
    rect: rectOnPage,
    mode: () => V.mode,
    overview: () => (V.ov ? {
      rows: V.ov.nr, labels: V.ov.labels.slice(), straggler: V.ov.O.straggler,
      stragglerRank: V.ov.O.straggler >= 0 ? V.ov.O.rows[V.ov.O.straggler].globalRank : null,
      verdict: V.ov.O.verdict,
      rowH: ovRowH(V), instances: V.ov.O.instancesTotal, embedded: V.ov.inst !== null,
      stats: V.ovStats ? { ...V.ovStats } : null, expanded: V.expanded === undefined ? -1 : V.expanded,
      firstStart: V.ov.inst ? V.ov.inst.start[0] : null,
    } : null),
    /* row r of the overview in page pixels (scrolled as now) */
    ovRowRect: (r) => {
      const c = canvas.getBoundingClientRect();
      const h = ovRowH(V);
      return { x: c.left + LABEL_W, y: c.top + AXIS_H + r * h - V.scrollY, w: plotWidth(V), h };
    },
    detail: () => ({ ...M.raw.detail }),
    /* the tiles beside the page: how many, which are loaded, what the
     * window needs, the note on screen */
    tiles: () => (V.tiles ? {
      count: V.tiles.count, loaded: [...V.tiles.loaded.keys()].sort((a, b) => a - b), pending: V.tiles.pending.size,
      missing: [...V.tiles.missing].sort((a, b) => a - b), want: V.tiles.want.slice(), state: V.tiles.state,
      note: V.tiles.note, batches: V.tiles.batches, loadBytes: V.tiles.loadBytes, loadedBytes: loadedBytes(V.tiles),
      mergeMs: V.tiles.mergeMs,
    } : null),
    /* events (not timing records) held now whose start is in [t0, t1] */
    eventsIn: (t0, t1) => {
      let c = 0;
      for (let i = 0; i < M.nEv; i++) if (M.start[i] >= t0 && M.start[i] <= t1) c++;
      return c;
    },
  });
  document.body.dataset.ready = '1';
})();
