// SPDX-License-Identifier: Apache-2.0
// tests/browser/view_test.mjs — the page of `cclscope view` in a real browser
// (Debian chromium driven by playwright-core), offline, against the traces it
// was made from.
//
//   node view_test.mjs --cclscope BIN --trace DIR --pxn DIR --out DIR
//
// --trace: a trace written by the real plugin under ncclemu with step marks
// (mixed scenario); --pxn: one with PXN parents across processes. Checks:
// every network request is blocked and none is attempted; as many events,
// timing records, marks and resolved parents are drawn as the trace holds;
// hovering an event shows its tooltip, clicking shows its details, the
// parent link is drawn and following it selects the parent; the same
// collective is linked on every rank; zoom, pan and reset by keyboard and
// wheel; filter and search; the summary panel; a comm name, thread name and
// mark label made of HTML stay text (no dialog, no element created); frame
// times stay small. Screenshots go to --out. Prints "N passed, M failed".
//
// Exit 77 (ctest SKIP) only when chromium cannot be installed on this system
// (no apt candidate); a chromium that could be installed but is missing, or
// missing node_modules, fails loudly.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { chromiumOrExit, launchBrowser, parseArgs, tally } from './harness.mjs';

const args = parseArgs(['cclscope', 'trace', 'pxn', 'out'], 'view_test.mjs --cclscope BIN --trace DIR --pxn DIR --out DIR');
const { chromium, executable: CHROMIUM } = await chromiumOrExit();

// ---- the truth, from the trace files ----
function readTrace(dir) {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort();
  const t = { events: 0, timing: 0, marks: 0, withParent: 0, foreign: 0, byType: {}, colls: new Map(), files: files.length };
  const tags = new Set();
  const recs = [];
  for (const f of files) {
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      if (!line) continue;
      const r = JSON.parse(line);
      recs.push(r);
      if (r.recordType === 'process') tags.add(r.handleTag);
    }
  }
  for (const r of recs) {
    if (r.recordType === 'timing') t.timing++;
    else if (r.recordType === 'mark') t.marks++;
    else if (r.recordType === 'event' && r.start) {
      t.events++;
      const ty = r.type.replace(/^ncclProfile/, '');
      t.byType[ty] = (t.byType[ty] || 0) + 1;
      if (r.parentId) t.withParent++;
      if (r.parentStatus === 'foreign' && tags.has('0x' + (BigInt(r.parentRaw) >> 48n).toString(16))) t.foreign++;
      if ((ty === 'Coll' || ty === 'CeColl') && r.details && r.details.seqNumber !== undefined) {
        const key = r.commId + '|' + r.func + '|' + r.details.seqNumber;
        t.colls.set(key, (t.colls.get(key) || 0) + 1);
      }
    }
  }
  return t;
}

// ---- a tiny test harness ----
const { check, finish } = tally();

function makePage(trace, html, extra = []) {
  execFileSync(args.cclscope, ['-q', 'view', ...extra, trace, '-o', html], { stdio: 'inherit' });
  return html;
}

const browser = await launchBrowser(chromium, CHROMIUM);

/* Opens `html` with every request but the page itself blocked and
 * recorded; returns { page, requests, dialogs, errors }. */
async function open(html, viewport = { width: 1600, height: 900 }, lanes = true) {
  const context = await browser.newContext({ viewport, offline: true });
  const url = 'file://' + html;
  const requests = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u === url) return route.continue();
    requests.push(u);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('request', (r) => { if (r.url() !== url) requests.push(r.url()); });
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 120000 });
  await page.waitForTimeout(100);
  /* the page opens on the overview when it has GPUs to compare; the
   * checks of the lanes switch to them with the page's own button */
  if (lanes && (await page.evaluate(() => window.cclscopeView.mode())) === 'overview') {
    await page.click('#btn-mode');
    await page.waitForTimeout(100);
  }
  return { page, context, requests, dialogs, errors };
}

const api = (page, expr, arg) => page.evaluate(expr, arg);
fs.mkdirSync(args.out, { recursive: true });

// ================= the mixed scenario with step marks =================
{
  const truth = readTrace(args.trace);
  const html = makePage(args.trace, path.join(args.out, 'mixed.html'));
  const { page, context, requests, dialogs, errors } = await open(html);
  const counts = await api(page, () => window.cclscopeView.counts());
  check(counts.events === truth.events, `events drawn = event records in the trace (${truth.events})`, counts);
  check(counts.timing === truth.timing, `timing records drawn = timing records (${truth.timing})`, counts);
  check(counts.shownItems === truth.events + truth.timing, 'every item is on a row', counts);
  check(counts.marks === truth.marks && truth.marks > 0, `step marks = mark records (${truth.marks})`, counts);
  check(counts.parents === truth.withParent, `parent links resolved = events with a parentId (${truth.withParent})`, counts);
  check(counts.files === truth.files && counts.unplaced === 0, 'one process per file, nothing left out', counts);
  const byType = await api(page, () => window.cclscopeView.countByType());
  check(Object.entries(truth.byType).every(([t, n]) => byType[t] === n), 'per-type counts match the trace', { byType, truth: truth.byType });

  // hover: a visible Coll event with a parent
  const pick = await api(page, () => {
    const v = window.cclscopeView;
    for (const i of v.find({ type: 'Coll', hasParent: true })) {
      const r = v.rect(i);
      if (r && r.visible && r.w >= 4) return { i, r, item: v.item(i) };
    }
    return null;
  });
  if (check(pick !== null, 'a Coll event with a parent is visible at first')) {
    const { i, r, item } = pick;
    await page.mouse.move(r.x + r.w / 2, r.y + r.h / 2);
    await page.waitForTimeout(100);
    const tip = await page.evaluate(() => { const t = document.getElementById('tooltip'); return { hidden: t.hidden, text: t.textContent }; });
    check(!tip.hidden && tip.text.includes(item.name) && tip.text.includes('Coll 0x' + item.id.toString(16)), 'hover shows the tooltip of the event', tip);
    check((await api(page, () => window.cclscopeView.view().hover)) === i, 'hover highlights that event');
    await page.mouse.click(r.x + r.w / 2, r.y + r.h / 2);
    await page.waitForTimeout(100);
    const det = await page.evaluate(() => document.getElementById('details-body').textContent);
    check(det.includes('ncclProfileColl') && det.includes('0x' + item.id.toString(16)) && det.includes('seqNumber') &&
      det.includes('nChannels') && det.includes('when it ran'), 'click shows every field: type, id, seqNumber, details, timing', det.slice(0, 400));
    const frame = await api(page, () => window.cclscopeView.lastFrame());
    check(frame.links && frame.links.parent === 1, 'the parent link is drawn', frame);
    const sel = await api(page, (k) => { const v = window.cclscopeView; const it = v.item(k); return it; }, i);
    const key = await page.evaluate(() => {
      const rows = [...document.querySelectorAll('#details-body table.kv tr')];
      const get = (k) => { const tr = rows.find((x) => x.firstChild.textContent === k); return tr ? tr.lastChild.textContent : null; };
      return { commId: get('commId'), func: get('func'), seq: get('seqNumber') };
    });
    const ranks = truth.colls.get(key.commId + '|' + key.func + '|' + key.seq) || 0;
    check(ranks > 1 && frame.links.collective === ranks - 1, `the same collective is linked across its ${ranks} ranks`, { key, frame });
    // follow the parent link in the details panel
    await page.click('#details-body td.v a.link');
    await page.waitForTimeout(150);
    const after = await api(page, () => window.cclscopeView.view().selected);
    check(after === sel.parent && after >= 0, 'following the parent link selects the parent', { after, parent: sel.parent });
    const det2 = await page.evaluate(() => document.getElementById('details-body').textContent);
    check(/ncclProfile(CollApi|Group)/.test(det2), 'the details now show the parent (CollApi or Group)', det2.slice(0, 200));
    await page.screenshot({ path: path.join(args.out, 'selected.png') });
  }

  // keyboard and wheel
  await page.focus('#timeline');
  const v0 = await api(page, () => window.cclscopeView.view());
  await page.keyboard.press('+');
  await page.waitForTimeout(50);
  const v1 = await api(page, () => window.cclscopeView.view());
  check(v1.t1 - v1.t0 < (v0.t1 - v0.t0) * 0.7, '"+" zooms in', { v0, v1 });
  await page.keyboard.press('ArrowRight');
  await page.waitForTimeout(50);
  const v2 = await api(page, () => window.cclscopeView.view());
  check(v2.t0 > v1.t0, 'arrow right pans', { v1, v2 });
  await page.keyboard.press('-');
  await page.keyboard.press('0');
  await page.waitForTimeout(50);
  const v3 = await api(page, () => window.cclscopeView.view());
  check(Math.abs((v3.t1 - v3.t0) - (v0.t1 - v0.t0)) < 1, '"0" resets the view', { v0, v3 });
  await page.mouse.move(900, 400);
  await page.mouse.wheel(0, -400);
  await page.waitForTimeout(100);
  const v4 = await api(page, () => window.cclscopeView.view());
  check(v4.t1 - v4.t0 < (v3.t1 - v3.t0) * 0.8, 'the mouse wheel zooms', { v3, v4 });
  await page.keyboard.press('Home');

  // every process header names the process's job rank (ncclemu launches
  // as torchrun does: RANK per process)
  const procHeaders = await api(page, () => window.cclscopeView.headers('proc'));
  check(procHeaders.length > 0 && procHeaders.every((l) => /^rank \d+ · pid \d+ · /.test(l)),
    'process headers say "rank N · pid P · file"', procHeaders.slice(0, 4));

  // collapse the first host by clicking its header, then open it again
  await page.keyboard.press('0');
  const box = await page.evaluate(() => { const r = document.getElementById('canvas').getBoundingClientRect(); return { x: r.left, y: r.top }; });
  const someItem = await api(page, () => {
    const v = window.cclscopeView;
    const colls = v.find({ type: 'Coll' }).map((k) => v.item(k));
    const first = colls.map((x) => x.host).sort()[0];
    return colls.find((x) => x.host === first).index;
  });
  const before = await api(page, (k) => window.cclscopeView.rect(k), someItem);
  await page.mouse.click(box.x + 20, box.y + 26 + 8); /* the first line: host header */
  await page.waitForTimeout(100);
  const collapsed = await api(page, (k) => window.cclscopeView.rect(k), someItem);
  await page.mouse.click(box.x + 20, box.y + 26 + 8);
  await page.waitForTimeout(100);
  const reopened = await api(page, (k) => window.cclscopeView.rect(k), someItem);
  check(before !== null && collapsed === null && reopened !== null && reopened.y === before.y,
    'clicking a host header collapses and reopens its lanes', { before, collapsed, reopened });

  // filter and search
  await page.selectOption('#f-type', 'Coll');
  await page.waitForTimeout(100);
  const shown = (await api(page, () => window.cclscopeView.counts())).shownItems;
  check(shown === truth.byType.Coll, `the type filter shows only the ${truth.byType.Coll} Coll events`, shown);
  await page.selectOption('#f-type', '');
  await page.fill('#search', 'AllReduce');
  await page.press('#search', 'Enter');
  await page.waitForTimeout(150);
  const found = await api(page, () => { const v = window.cclscopeView; return { m: v.view().matches, s: v.view().selected, item: v.item(v.view().selected) }; });
  check(found.m > 0 && found.item && /AllReduce/.test(found.item.name), 'search finds and selects AllReduce', found);
  await page.fill('#search', '');

  // the summary panel
  await page.click('#btn-summary');
  const sum = await page.evaluate(() => ({ hidden: document.getElementById('summary').hidden, text: document.getElementById('summary-body').textContent }));
  check(!sum.hidden && sum.text.includes('Collectives') && sum.text.includes('AllReduce') && sum.text.includes('Stragglers'), 'the summary panel shows the summary tables', sum.text.slice(0, 300));
  await page.screenshot({ path: path.join(args.out, 'summary.png') });
  await page.click('#btn-summary-close');

  // frame times of zooming and panning (only the frames of this sequence:
  // the overview's and the lanes' first layout came before). A frame time
  // is the machine's story, not the page's: printed, and held only to a
  // sanity bound that a busy machine does not reach (a page that redrew
  // everything per event would).
  const framesBefore = (await api(page, () => window.cclscopeView.frameTimes())).length;
  for (let k = 0; k < 10; k++) { await page.keyboard.press('+'); await page.keyboard.press('ArrowLeft'); }
  await page.keyboard.press('0');
  await page.waitForTimeout(100);
  const ft = (await api(page, () => window.cclscopeView.frameTimes())).slice(framesBefore);
  const sorted = [...ft].sort((a, b) => a - b);
  const median = sorted.length ? sorted[Math.floor(sorted.length / 2)] : Infinity;
  const worst = sorted.length ? sorted[sorted.length - 1] : Infinity;
  console.log(`frame times of zoom and pan: median ${median.toFixed(1)} ms, worst ${worst.toFixed(1)} ms of ${ft.length}`);
  check(ft.length >= 5 && median < 100 && worst < 2000, `zoom and pan frames: median < 100 ms, none over 2 s (median ${median.toFixed(1)}, worst ${worst.toFixed(1)} ms of ${ft.length})`, ft);

  await page.screenshot({ path: path.join(args.out, 'timeline.png') });
  check(requests.length === 0, 'no network request was attempted', requests);
  check(dialogs.length === 0 && errors.length === 0, 'no dialog, no script error', { dialogs, errors });
  await context.close();
}

// ================= PXN: parents in another process's file =================
{
  const truth = readTrace(args.pxn);
  const html = makePage(args.pxn, path.join(args.out, 'pxn.html'));
  const { page, context, requests, errors } = await open(html);
  const counts = await api(page, () => window.cclscopeView.counts());
  check(counts.events === truth.events, `pxn: events drawn = event records (${truth.events})`, counts);
  check(truth.foreign > 0 && counts.foreignParents === truth.foreign, `pxn: ${truth.foreign} PXN parents resolved across files`, counts);
  check(requests.length === 0 && errors.length === 0, 'pxn: no request, no error', { requests, errors });
  await context.close();
}

// ================= hostile strings =================
{
  const XSS_COMM = '<img src=x onerror=alert(1)>';
  const XSS_THREAD = '</script><script>alert(2)</script>';
  const XSS_LABEL = '<!--<script>alert(3)</script>';
  const dir = path.join(args.out, 'xss-trace');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  let replaced = 0;
  for (const f of fs.readdirSync(args.trace).filter((x) => x.endsWith('.jsonl'))) {
    const text = fs.readFileSync(path.join(args.trace, f), 'utf8').split('\n').map((line) => {
      if (!line) return line;
      const r = JSON.parse(line);
      if (r.commName === 'world') { r.commName = XSS_COMM; replaced++; }
      if (r.recordType === 'thread') r.name = XSS_THREAD;
      if (r.recordType === 'mark') { r.kind = 'label'; r.label = XSS_LABEL; delete r.step; }
      return JSON.stringify(r);
    }).join('\n');
    fs.writeFileSync(path.join(dir, f), text);
  }
  check(replaced > 0, 'xss: the fixture has the hostile comm name', replaced);
  const html = makePage(dir, path.join(args.out, 'xss.html'));
  const raw = fs.readFileSync(html, 'utf8');
  check(!raw.includes('<img') && !raw.includes('alert(2)</script>') && !raw.includes('<!--<script'), 'xss: the file holds no raw hostile markup');
  const { page, context, requests, dialogs, errors } = await open(html);
  await page.waitForTimeout(300);
  const dom = await page.evaluate(() => ({
    imgs: document.querySelectorAll('img').length, scripts: document.scripts.length,
    alerted: typeof window.__alerted !== 'undefined',
  }));
  check(dom.imgs === 0 && dom.scripts === 3 /* extra, data, code */, 'xss: no element was created from trace text', dom);
  await page.click('#btn-summary');
  const sumText = await page.evaluate(() => document.getElementById('summary-body').textContent);
  check(sumText.includes(XSS_COMM), 'xss: the comm name appears literally in the summary', sumText.slice(0, 200));
  await page.click('#btn-summary-close');
  // an event of that communicator: its details show the name as text
  const pick = await api(page, () => {
    const v = window.cclscopeView;
    for (const i of v.find({ type: 'Coll' })) { const r = v.rect(i); if (r && r.visible && r.w >= 3) return r; }
    return null;
  });
  if (check(pick !== null, 'xss: a Coll event is visible')) {
    await page.mouse.click(pick.x + pick.w / 2, pick.y + pick.h / 2);
    await page.waitForTimeout(100);
    const det = await page.evaluate(() => document.getElementById('details-body').textContent);
    check(det.includes(XSS_COMM) || det.includes(XSS_THREAD), 'xss: the details show the hostile names as text', det.slice(0, 300));
  }
  await page.screenshot({ path: path.join(args.out, 'xss.png') });
  check(dialogs.length === 0, 'xss: no dialog or alert fired', dialogs);
  check(requests.length === 0 && errors.length === 0, 'xss: no request, no error', { requests, errors });
  await context.close();
}

await browser.close();
finish();
