// SPDX-License-Identifier: Apache-2.0
/* web/panels.js — everything around the canvas, built from DOM elements
 * whose text is set with textContent only: the hover tooltip, the details
 * panel (every field of the record, states with their times, the timing
 * record's source and bandwidth, links to the parent, the children and the
 * same collective on the other ranks), the legend, the filter menus and the
 * summary panel (the tables of `cclscope summary`, from its JSON). */
'use strict';

// Time keys, sent as ns since the page's base: trace-format version 1's
// microsecond keys and version 2's integer-ns keys of timing records.
const TIME_KEYS = new Set(['ts', 'lastTs', 'apiTs', 'start', 'stop', 'endTs',
  'apiNs', 'enqueueStartNs', 'enqueueStopNs', 'startNs', 'stopNs']);

function fullTypeName(M, i) {
  const t = typeName(M, i);
  if (t === 'timing' || t === 'unknown' || t === 'ProfilerLifecycle' || t === 'GpuActivity') return t;
  return 'ncclProfile' + t;
}

/* ---- tooltip ---- */

function showTooltip(V, i, cx, cy) {
  const tip = document.getElementById('tooltip');
  if (i < 0) { tip.hidden = true; return; }
  const M = V.M;
  clearNode(tip);
  tip.appendChild(el('div', 't-name', itemName(M, i)));
  const tk = M.tracks[M.track[i]];
  const lines = [
    typeName(M, i) + (i < M.nEv && M.raw.events.id[i] >= 0 ? ' ' + hex(M.raw.events.id[i]) : ''),
    'duration ' + fmtDur(M.end[i] - M.start[i]) + (i < M.nEv && M.endKind[i] ? ' (' + END_NAMES[M.endKind[i]] + ')' : ''),
    'start ' + fmtTime(M.start[i] - M.tMin),
    commLabel(tk),
  ];
  if (i < M.nEv && M.raw.events.seq[i] >= 0) lines.push('seqNumber ' + M.raw.events.seq[i]);
  const tm = i < M.nEv ? M.timingOf[i] : -1;
  if (tm >= 0) lines.push('ran ' + fmtDur(M.end[tm] - M.start[tm]) + ' (' + itemName(M, tm) + ')');
  for (const s of lines) tip.appendChild(el('div', 't-row', s));
  tip.hidden = false;
  const w = tip.offsetWidth;
  const h = tip.offsetHeight;
  tip.style.left = Math.min(window.innerWidth - w - 8, cx + 14) + 'px';
  tip.style.top = Math.min(window.innerHeight - h - 8, cy + 14) + 'px';
}

/* ---- exact JSON values as DOM ---- */

function renderJson(V, node, key, base) {
  if (!node) return el('span', 'jl', 'null');
  if (node.t === 'num') {
    if (TIME_KEYS.has(key)) {
      const ns = Number(node.v);
      const span = el('span', 'jt', fmtTime(ns - V.M.tMin) + (base !== undefined ? '  (' + (ns >= base ? '+' : '') + fmtDur(ns - base) + ')' : ''));
      span.title = fmtEpochUs(V.M.baseUs, ns) + ' µs since the epoch';
      return span;
    }
    return el('span', 'jn', node.v);
  }
  if (node.t === 'str') return el('span', 'js', JSON.stringify(node.v));
  if (node.t === 'lit') return el('span', 'jl', node.v);
  const box = el('div', 'indent');
  if (node.t === 'obj') {
    for (const [k, v] of node.members) {
      const row = el('div');
      row.appendChild(el('span', 'jk', k + ': '));
      row.appendChild(renderJson(V, v, k, base));
      box.appendChild(row);
    }
  } else {
    node.items.forEach((v, n) => {
      const row = el('div');
      row.appendChild(el('span', 'jk', '[' + n + '] '));
      row.appendChild(renderJson(V, v, key, base));
      box.appendChild(row);
    });
  }
  return box;
}

function kvTable() {
  return el('table', 'kv');
}

function kvRow(table, k, v) {
  const tr = el('tr');
  tr.appendChild(el('td', 'k', k));
  const td = el('td', 'v');
  if (v instanceof Node) td.appendChild(v); else td.textContent = String(v);
  tr.appendChild(td);
  table.appendChild(tr);
  return tr;
}

function itemLink(V, i, text) {
  const a = el('a', 'link', text);
  a.dataset.item = String(i);
  a.addEventListener('click', (e) => {
    e.preventDefault();
    V.select(i, true);
  });
  return a;
}

function statesTable(V, node, startNs) {
  const t = el('table', 'kv');
  for (const s of node.items) {
    const name = jsonGet(s, 'name');
    const ts = jsonGet(s, 'ts');
    const rest = [];
    if (s.t === 'obj') {
      for (const [k, v] of s.members) {
        if (k === 'name' || k === 'ts' || k === 'id') continue;
        rest.push(k + '=' + (TIME_KEYS.has(k) && v.t === 'num' ? '+' + fmtDur(Number(v.v) - startNs) : v.t === 'str' ? v.v : v.v));
      }
    }
    const id = jsonGet(s, 'id');
    const label = (name && name.t === 'str' ? name.v : '?') + (id ? ' (' + id.v + ')' : '');
    const when = ts && ts.t === 'num' ? '+' + fmtDur(Number(ts.v) - startNs) : '';
    kvRow(t, label, when + (rest.length ? '  ' + rest.join(' ') : ''));
  }
  return t;
}

function section(body, title) {
  body.appendChild(el('h3', null, title));
}

function showDetails(V, i) {
  const body = document.getElementById('details-body');
  clearNode(body);
  const M = V.M;
  if (i < 0) {
    body.appendChild(el('p', 'hint', 'Click an event to see every field of its record.'));
    return;
  }
  const E = M.raw.events;
  const tk = M.tracks[M.track[i]];
  const f = M.files[tk.file];
  body.appendChild(el('h2', null, itemName(M, i)));
  const t = kvTable();
  body.appendChild(t);
  const extra = itemExtra(M, i);
  const startNs = M.start[i];
  if (i < M.nEv) {
    kvRow(t, 'type', fullTypeName(M, i));
    if (E.id[i] >= 0) kvRow(t, 'id', hex(E.id[i]));
    const p = M.parent[i];
    const pk = PARENT_KINDS[E.pk[i]];
    if (p >= 0) {
      const pf = M.files[M.tracks[M.track[p]].file];
      const where = pk === 'foreign' ? ' in pid ' + pf.pid + ' (PXN)' : '';
      kvRow(t, 'parentId', itemLink(V, p, hex(E.id[p]) + ' · ' + itemName(M, p) + where));
    } else {
      kvRow(t, 'parentId', pk === 'none' ? 'null' : 'null (' + pk + (pk === 'foreign' ? ': its process is not among the inputs' : '') + ')');
    }
    kvRow(t, 'ctx', tk.ctx < 0 ? 'null' : tk.ctx);
    kvRow(t, 'commId', tk.commId || 'null');
    kvRow(t, 'commName', tk.comm);
    kvRow(t, 'rank', E.rank[i]);
    if (E.func[i]) kvRow(t, 'func', M.strings[E.func[i]]);
    if (E.seq[i] >= 0) kvRow(t, 'seqNumber', E.seq[i]);
    const st = el('span', 'jt', fmtTime(startNs - M.tMin));
    st.title = fmtEpochUs(M.baseUs, startNs) + ' µs since the epoch';
    kvRow(t, 'start.ts', st);
    kvRow(t, 'start.ts (epoch µs)', fmtEpochUs(M.baseUs, startNs));
    kvRow(t, M.endKind[i] === 0 ? 'stop.ts' : 'endTs', fmtEpochUs(M.baseUs, M.end[i]));
    kvRow(t, 'duration', fmtDur(M.end[i] - startNs));
    kvRow(t, 'end', END_NAMES[M.endKind[i]]);
  } else {
    kvRow(t, 'type', 'timing record');
    const ev = M.parent[i];
    if (ev >= 0) kvRow(t, 'of', itemLink(V, ev, hex(E.id[ev]) + ' · ' + itemName(M, ev)));
    kvRow(t, 'duration', fmtDur(M.end[i] - startNs));
  }
  kvRow(t, 'process', 'host ' + f.host + ' · pid ' + f.pid);
  kvRow(t, 'file', f.path);
  kvRow(t, 'thread', threadLabel(tk));
  if (extra && extra.t === 'obj') {
    for (const [k, v] of extra.members) {
      if (k === 'states' && v.t === 'arr') {
        section(body, 'states (' + v.items.length + ')');
        body.appendChild(statesTable(V, v, startNs));
      } else if (v.t === 'obj' || v.t === 'arr') {
        section(body, k);
        const box = el('div', 'json-tree');
        box.appendChild(renderJson(V, v, k, startNs));
        body.appendChild(box);
      } else {
        const tv = el('span', 'json-tree');
        tv.appendChild(renderJson(V, v, k, startNs));
        kvRow(t, k, tv);
      }
    }
  }
  const tm = i < M.nEv ? M.timingOf[i] : -1;
  if (tm >= 0) {
    section(body, 'when it ran (timing record)');
    const tt = kvTable();
    body.appendChild(tt);
    const tx = itemExtra(M, tm);
    for (const key of ['source', 'duration', 'durationNs', 'algBw', 'busBw', 'bytes', 'nranks', 'algo', 'proto', 'incomplete']) {
      const v = jsonGet(tx, key);
      if (!v) continue;
      let text = v.v;
      if (key === 'duration') text = v.v + ' µs';
      if (key === 'durationNs') text = fmtDur(Number(v.v));
      if (key === 'algBw' || key === 'busBw') text = v.v === 'null' ? '- (host-only span)' : v.v + ' GB/s';
      if (key === 'bytes') text = v.v + ' (' + fmtBytes(Number(v.v)) + ')';
      kvRow(tt, key, text);
    }
    kvRow(tt, 'span', itemLink(V, tm, fmtTime(M.start[tm] - M.tMin) + ' … ' + fmtDur(M.end[tm] - M.start[tm])));
    const box = el('div', 'json-tree');
    box.appendChild(renderJson(V, tx, '', startNs));
    const det = el('details');
    det.appendChild(el('summary', null, 'every field'));
    det.appendChild(box);
    body.appendChild(det);
  }
  const coll = collectiveOf(M, i);
  if (coll.length > 1) {
    section(body, 'same collective on ' + coll.length + ' ranks (' + M.strings[E.func[i]] + ' #' + E.seq[i] + ')');
    const ct = kvTable();
    body.appendChild(ct);
    const sorted = coll.slice().sort((a, b) => M.start[a] - M.start[b]);
    const firstStart = M.start[sorted[0]];
    for (const c of sorted) {
      const row = kvRow(ct, 'rank ' + E.rank[c], '');
      const txt = (c === i ? '▶ ' : '') + 'arrived +' + fmtDur(M.start[c] - firstStart);
      row.lastChild.appendChild(itemLink(V, c, txt));
    }
  }
  const kids = childrenOf(M, i);
  if (kids.length) {
    section(body, 'children (' + kids.length + ')');
    const list = el('div');
    for (const c of kids.slice(0, 100)) {
      list.appendChild(itemLink(V, c, itemName(M, c) + ' ' + (c < M.nEv ? hex(E.id[c]) : '')));
      list.appendChild(document.createTextNode('  '));
    }
    if (kids.length > 100) list.appendChild(el('span', 'hint', '… ' + (kids.length - 100) + ' more'));
    body.appendChild(list);
  }
}

/* ---- legend and filter menus ---- */

function buildLegend(V) {
  const M = V.M;
  const counts = new Map();
  for (let i = 0; i < M.n; i++) {
    const t = typeName(M, i);
    counts.set(t, (counts.get(t) || 0) + 1);
  }
  const legend = document.getElementById('legend');
  clearNode(legend);
  for (const [t, c] of [...counts.entries()].sort((a, b) => b[1] - a[1])) {
    const item = el('span', 'item');
    item.dataset.type = t;
    const sw = el('span', 'swatch');
    sw.style.background = typeColor(t);
    item.appendChild(sw);
    item.appendChild(el('span', null, t === 'timing' ? 'timing (when it ran)' : t));
    item.appendChild(el('span', 'count', String(c)));
    item.title = 'click to hide or show ' + t;
    item.addEventListener('click', () => {
      if (V.hiddenTypes.has(t)) V.hiddenTypes.delete(t); else V.hiddenTypes.add(t);
      item.classList.toggle('off', V.hiddenTypes.has(t));
      V.refilter();
    });
    legend.appendChild(item);
  }
  const keys = [['line', LINK_PARENT, 'parent link (dotted)'], ['line', LINK_COLL, 'same collective, other ranks'],
    ['line', MARK_COLOR, 'step / mark'], ['dot', STATE_DOT, 'state']];
  for (const [kind, color, text] of keys) {
    const item = el('span', 'item');
    const sw = el('span', kind === 'line' ? 'line' : 'swatch');
    if (kind === 'line') sw.style.borderTopColor = color; else { sw.style.background = color; sw.style.borderRadius = '6px'; }
    item.appendChild(sw);
    item.appendChild(el('span', null, text));
    legend.appendChild(item);
  }
  const fill = (id, values) => {
    const s = document.getElementById(id);
    for (const v of values) {
      const o = el('option', null, v);
      o.value = v;
      s.appendChild(o);
    }
  };
  fill('f-type', [...counts.keys()].sort());
  const funcs = new Set();
  const ranks = new Set();
  for (let i = 0; i < M.nEv; i++) {
    if (M.raw.events.func[i]) funcs.add(M.strings[M.raw.events.func[i]]);
    if (M.raw.events.rank[i] >= 0) ranks.add(M.raw.events.rank[i]);
  }
  fill('f-func', [...funcs].sort());
  fill('f-rank', [...ranks].sort((a, b) => a - b).map(String));
}

/* ---- summary panel ---- */

function gridTable(cols, rows) {
  const t = el('table', 'grid');
  const head = el('tr');
  for (const [title, , align] of cols) head.appendChild(el('th', align === 'l' ? 'l' : null, title));
  t.appendChild(head);
  for (const r of rows) {
    const tr = el('tr');
    for (const [title, get, align] of cols) {
      let v = get(r);
      /* times and rates with their decimals, as `cclscope summary` prints them */
      if (typeof v === 'number' && (!Number.isInteger(v) || /µs|GB\/s|imbalance/.test(title))) v = v.toFixed(3);
      tr.appendChild(el('td', align === 'l' ? 'l' : null, v === null || v === undefined ? '–' : v));
    }
    t.appendChild(tr);
  }
  return t;
}

function commOf(r) {
  return r.commName || r.commId || '(unknown)';
}

/* "rank 5 · node1:4242 · dev 1": a GPU of the summary's straggler tables */
function gpuName(r) {
  return (r.globalRank !== null && r.globalRank !== undefined ? 'rank ' + r.globalRank : 'rank ?') +
    (r.host ? ' · ' + r.host + (r.pid !== null && r.pid !== undefined ? ':' + r.pid : '') : '') +
    (r.device !== null && r.device !== undefined ? ' · dev ' + r.device : '');
}

function buildSummary(V) {
  const S = V.M.summary;
  const body = document.getElementById('summary-body');
  clearNode(body);
  if (!S) {
    body.appendChild(el('p', 'note', 'No summary in this page (written with --no-summary, or the analysis failed).'));
    return;
  }
  const add = (title, note, table) => {
    body.appendChild(el('h3', null, title));
    if (note) body.appendChild(el('p', 'note', note));
    if (table) body.appendChild(table);
  };
  const I = S.inputs || {};
  add('Inputs', I.files + ' files, ' + I.records + ' records, ' + fmtBytes(I.bytes || 0) + ', ' + (I.invalidLines || 0) + ' invalid lines', null);
  add('Communicators', null, gridTable([['commId', (r) => r.commId, 'l'], ['name', (r) => r.commName, 'l'], ['ranks', (r) => r.nranks]], S.comms || []));
  const C = S.collectives || { rows: [] };
  const noBw = (C.noBandwidthFrom || []).join(', ');
  add('Collectives', (C.basis === 'timing'
    ? 'Durations from timing records (' + C.timingRecords + ').'
    : 'NO timing records: durations are the host-side enqueue spans of ' + C.collEvents + ' Coll/P2p events, not completion.') +
    (noBw ? ' No bandwidth ("-") from a host-only span (source ' + noBw + ').' : ''),
  gridTable([['comm', commOf, 'l'], ['func', (r) => r.func, 'l'], ['bytes', (r) => fmtBytes(r.bytes)], ['source', (r) => r.source, 'l'],
    ['ranks', (r) => r.nranks], ['count', (r) => r.count], ['p50 µs', (r) => r.p50Us], ['p90 µs', (r) => r.p90Us], ['p99 µs', (r) => r.p99Us],
    ['mean µs', (r) => r.meanUs], ['min µs', (r) => r.minUs], ['max µs', (r) => r.maxUs], ['algBw GB/s', (r) => r.algBwGBs ?? '-'],
    ['busBw GB/s', (r) => r.busBwGBs ?? '-'], ['algo', (r) => r.algo, 'l'], ['proto', (r) => r.proto, 'l']], C.rows || []));
  const G = S.stragglers || {};
  const Vd = G.verdict;
  if (Vd) {
    const L = Vd.link;
    const linkText = L ? 'comm rank ' + L.from + ' (g' + L.fromGlobalRank + ') → rank ' + L.to + ' (g' + L.toGlobalRank + '), ' +
      L.bandwidthGBs + ' GB/s against the median ' + L.medianGBs + ' GB/s' +
      (L.evidence === 'steps' ? ' per ' + L.stepBytes + '-byte step, slower in ' + L.operationsSlower + ' of ' +
        L.operations + ' operations' : '') : '';
    const kindText = Vd.kind && Vd.kind !== 'none' ? ' Kind: ' + Vd.kind + ' — ' + Vd.kindReason +
      (Vd.kind === 'slow link' ? ': ' + linkText : Vd.compute ? ' (compute ' + Vd.compute.computeRatio + '× the median; final_sync ' +
        Vd.compute.finalSyncUs + ' µs, peers ' + Vd.compute.peerFinalSyncUs + ' µs)' : '') + '.' : '';
    add('Straggler verdict', (Vd.verdict === 'gpu' && Vd.gpu
      ? gpuName(Vd.gpu) + ' is the straggler (confidence ' + Vd.confidence + '): '
      : Vd.verdict === 'link' ? 'A slow link (confidence ' + Vd.confidence + '); no GPU stands out by its arrivals: '
        : 'No GPU stands out (confidence ' + Vd.confidence + '): ') + Vd.reason + '.' + kindText, null);
  }
  add('Stragglers (by GPU)', 'Most wait caused first (a first operation\'s wait is startup skew, not counted); own = late by itself, ' +
    'inherited = late because its previous operation ended late.',
  gridTable([['GPU', gpuName, 'l'], ['comms', (r) => r.comms], ['instances', (r) => r.instances], ['times last', (r) => r.timesLast],
    ['wait caused µs', (r) => r.waitCausedUs], ['own µs', (r) => r.ownWaitUs], ['inherited µs', (r) => r.inheritedWaitUs],
    ['startup µs', (r) => r.unattributedWaitUs], ['max wait µs', (r) => r.maxWaitUs]], G.gpus || []));
  add('Stragglers (by rank)', (G.instances || 0) + ' instances matched across ranks (' + (G.basis || '?') + '), ' + (G.incomplete || 0) + ' incomplete, ' + (G.singleRank || 0) + ' seen on one rank.',
    gridTable([['comm', commOf, 'l'], ['rank', (r) => r.rank], ['instances', (r) => r.instances], ['times last', (r) => r.timesLast],
      ['% last', (r) => (100 * r.lastFraction).toFixed(1)], ['mean wait µs', (r) => r.meanWaitUs], ['max wait µs', (r) => r.maxWaitUs],
      ['arrival offset µs', (r) => r.meanArrivalOffsetUs], ['completion offset µs', (r) => r.meanCompletionOffsetUs]], G.ranks || []));
  add('Worst instances', null, gridTable([['comm', commOf, 'l'], ['func', (r) => r.func, 'l'], ['seqNumber', (r) => r.seqNumber],
    ['bytes', (r) => fmtBytes(r.bytes)], ['ranks', (r) => r.ranks], ['last rank', (r) => r.lastRank], ['spread µs', (r) => r.spreadUs],
    ['wait µs', (r) => r.waitUs]], G.worst || []));
  const N = S.network || {};
  const fit = (f) => (!f ? null : f.status === 'ok' ? f.bandwidthGBs.toFixed(3) + ' GB/s, ' + f.latencyUs.toFixed(1) + ' µs'
    : 'not fitted (' + f.reason + ')');
  add('Network links', (N.stepsUsed || 0) + ' ProxySteps used, ' + (N.stepsWithoutSize || 0) + ' without a size.',
    gridTable([['comm', commOf, 'l'], ['from', (r) => r.from], ['to', (r) => r.to], ['PXN', (r) => (r.pxn ? 'yes' : ''), 'l'],
      ['transfers', (r) => r.transfers], ['bytes', (r) => fmtBytes(r.bytes)], ['p50 GB/s', (r) => r.p50StepGBs],
      ['fit (fastest per size)', (r) => fit(r.fit), 'l'], ['slow', (r) => (r.slow ? 'slow' : ''), 'l']], N.links || []));
  add('Channels', null, gridTable([['comm', commOf, 'l'], ['rank', (r) => r.rank], ['channels', (r) => r.channels],
    ['bytes min', (r) => fmtBytes(r.bytesMin)], ['bytes max', (r) => fmtBytes(r.bytesMax)], ['busy min µs', (r) => r.busyMinUs],
    ['busy max µs', (r) => r.busyMaxUs], ['imbalance', (r) => r.imbalance]], N.channels || []));
  add('Drops and reclaims', null, gridTable([['file', (r) => r.file, 'l'], ['host', (r) => r.host, 'l'], ['pid', (r) => r.pid],
    ['processEnd', (r) => (r.processEnd ? 'yes' : 'no (killed?)'), 'l'], ['started', (r) => r.eventsStarted],
    ['dropped starts', (r) => r.droppedStarts], ['dropped states', (r) => r.droppedStates], ['dropped stops', (r) => r.droppedStops],
    ['reclaimed', (r) => r.reclaimed], ['in flight', (r) => r.inflight], ['lines lost', (r) => r.linesLost]], S.health || []));
}
