// SPDX-License-Identifier: Apache-2.0
// tests/browser/tiles_test.mjs — `cclscope view` of a trace whose detail
// does not fit the page: the page loads the tiles beside it
// (PAGE.files/tile-*.js) for the window the user zooms into, in Debian's
// chromium.
//
//   node tiles_test.mjs --cclscope BIN --trace DIR --out DIR
//
// --trace: ncclemu's mixed scenario, 8 GPUs, 6 operations, step marks,
// unpaced (about 12 MB). The page is written with --detail-mb 1: its own detail is the
// first stretch of the trace, the rest goes to some 70 tiles. Checks: the
// page's detail is bounded by the budget (the page less the same page
// without detail); on the lanes, zoomed out, no tile is loaded and the page
// says to zoom in; zoomed in at the end of the trace (past the page's own
// detail) the tiles of that window load, and the events drawn from them are
// exactly the trace's events in the window (counted in the trace files),
// and the marks of the tiles loaded join the page's;
// clicking one shows every field of its record; zoom and pan frames (the
// sanity bound of browser.view); a window elsewhere keeps no more tiles
// loaded than the page allows; with a tile file missing the page says so
// and draws the overview; no request outside the page's folder, no script
// error. Prints "N passed, M failed".
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { chromiumOrExit, launchBrowser, parseArgs, tally } from './harness.mjs';

const args = parseArgs(['cclscope', 'trace', 'out'], 'tiles_test.mjs --cclscope BIN --trace DIR --out DIR');
const { chromium, executable: CHROMIUM } = await chromiumOrExit();

const { check, finish } = tally(800);

const BUDGET_MB = 1;

/* Event start times of the trace, ns since the page's base (exact: the
 * µs text is read as integers). */
function eventStarts(dir, baseUs, only) {
  const base = BigInt(baseUs) * 1000n;
  const out = [];
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.jsonl'))) {
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      if (!line.startsWith('{"recordType":"event"') || (only && !line.includes(only))) continue;
      const m = /"start":\{"ts":(\d+)(?:\.(\d+))?/.exec(line);
      if (!m) continue;
      const ns = BigInt(m[1]) * 1000n + BigInt(((m[2] || '') + '000').slice(0, 3));
      out.push(Number(ns - base));
    }
  }
  return out;
}

function pageData(html) {
  const text = fs.readFileSync(html, 'utf8');
  return JSON.parse(/<script type="application\/json" id="cclscope-data">([\s\S]*?)<\/script>/.exec(text)[1]);
}

fs.mkdirSync(args.out, { recursive: true });
const html = path.join(args.out, 'tiles.html');
const bare = path.join(args.out, 'tiles-bare.html');
execFileSync(args.cclscope, ['-q', 'view', '--detail-mb', String(BUDGET_MB), '-o', html, args.trace]);
execFileSync(args.cclscope, ['-q', 'view', '--detail-mb', '0', '--single-file', '-o', bare, args.trace]);
const D = pageData(html);
const size = fs.statSync(html).size;
const bareSize = fs.statSync(bare).size;
check(D.tiles && D.tiles.count > 8, `the detail beyond the budget is in ${D.tiles && D.tiles.count} tiles`);
check(size - bareSize <= BUDGET_MB << 20, `the page's detail is within --detail-mb ${BUDGET_MB} (page ${size} bytes, ${bareSize} without detail)`);
const starts = eventStarts(args.trace, D.baseUs);
/* near the end: a collective among the last 5 % of them (the lanes are
 * then filtered to Coll events, so that every rank's row is in view) */
const collStarts = eventStarts(args.trace, D.baseUs, '"type":"ncclProfileColl"').sort((a, b) => a - b);
const END = collStarts[Math.floor(collStarts.length * 0.95)];

const browser = await launchBrowser(chromium, CHROMIUM);

/* Opens `file` on the lanes; requests outside its tiles folder are
 * aborted and recorded. */
async function open(file) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1200 }, offline: true });
  const url = 'file://' + file;
  const folder = 'file://' + file.replace(/\.html$/, '.files') + '/';
  const requests = [];
  const tileRequests = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u === url) return route.continue();
    if (u.startsWith(folder)) { tileRequests.push(u); return route.continue(); }
    requests.push(u);
    return route.abort();
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
  if ((await page.evaluate(() => window.cclscopeView.mode())) === 'overview') await page.click('#btn-mode');
  await page.waitForTimeout(200);
  return { page, context, requests, tileRequests, errors };
}

const api = (page, f, a) => page.evaluate(f, a);
const settled = (page) => page.waitForFunction(() => {
  const t = window.cclscopeView.tiles();
  return t.pending === 0 && t.state !== 'loading';
}, null, { timeout: 30000 });

/* Wheel-zoom in at time `t` (ns since the base; the plot starts 300 px
 * right of the canvas), aiming again before each step (the mouse is on
 * whole pixels). */
async function zoomAt(page, t, steps) {
  for (let k = 0; k < steps; k++) {
    const c = await page.evaluate((at) => {
      const r = document.getElementById('canvas').getBoundingClientRect();
      const v = window.cclscopeView.view();
      return { x: r.left + 300 + ((at - v.t0) / (v.t1 - v.t0)) * (r.width - 300), y: r.top + 200 };
    }, t);
    await page.mouse.move(c.x, c.y);
    await page.mouse.wheel(0, -400);
    await page.waitForTimeout(30);
  }
  await page.waitForTimeout(100);
}

{
  const { page, context, requests, tileRequests, errors } = await open(html);
  const t0 = await api(page, () => window.cclscopeView.tiles());
  check(t0.state === 'zoom' && t0.loaded.length === 0 && /Zoom in/.test(t0.note),
    'zoomed out on the lanes: no tile loaded, the page says to zoom in', t0);
  const detail = await api(page, () => window.cclscopeView.detail());

  await zoomAt(page, END, 7);
  await settled(page);
  await page.waitForTimeout(200); /* the frame after the merge */
  const v = await api(page, () => window.cclscopeView.view());
  const t1 = await api(page, () => window.cclscopeView.tiles());
  check(v.t0 > detail.to, 'the window is past the page\'s own detail', { v, to: detail.to });
  check(t1.state === 'loaded' && t1.want.length > 0 && t1.want.every((k) => t1.loaded.includes(k)) && t1.missing.length === 0 && t1.note === '',
    `the window's tiles loaded (${t1.want.length} wanted, ${t1.loaded.length} of ${t1.count} loaded)`, t1);
  check(t1.loadedBytes <= t1.loadBytes, 'no more tile bytes loaded than the page allows', t1);
  const truth = starts.filter((s) => s >= v.t0 && s <= v.t1).length;
  const inWindow = await api(page, ([a, b]) => window.cclscopeView.eventsIn(a, b), [v.t0, v.t1]);
  check(truth > 0 && inWindow === truth, `the page holds the trace's ${truth} events of the window`, { inWindow, truth });
  /* the Coll events only, so that the rows of every rank are in view */
  await page.selectOption('#f-type', 'Coll');
  await page.waitForTimeout(200);
  await page.screenshot({ path: path.join(args.out, 'tiles-end.png') });
  const held = await api(page, () => window.cclscopeView.counts().marks);
  const tiledMarks = D.tiles.nmk.reduce((a, n, k) => a + (t1.loaded.includes(k) ? n : 0), 0);
  check(D.detail.tiledMarks > 0 && held === D.marks.length + tiledMarks,
    `the marks of the loaded tiles join the page's (${D.marks.length} + ${tiledMarks})`, { held, page: D.marks.length, tiledMarks });
  const frame = await api(page, () => window.cclscopeView.lastFrame());
  check(frame.fromTiles > 0, `events from the tiles are drawn (${frame.fromTiles} bars or blocks)`, frame);

  // an event from a tile: the details panel shows its whole record. How
  // wide a Coll event is at this zoom depends on the run (--pace none: its
  // durations are the machine's), so zoom in on one of the window's until
  // it is wide enough to click (a few steps at most).
  const collOfWindow = ([a, b]) => {
    const w = window.cclscopeView;
    let best = null;
    for (const i of w.find({ type: 'Coll' })) {
      const it = w.item(i);
      const r = w.rect(i);
      if (it.startNs >= a && it.startNs <= b && r && r.visible && (!best || r.w > best.r.w))
        best = { i, r, mid: (it.startNs + it.endNs) / 2 };
    }
    return best;
  };
  let pick = await api(page, collOfWindow, [v.t0, v.t1]);
  for (let k = 0; k < 12 && pick && pick.r.w < 3; k++) {
    await zoomAt(page, pick.mid, 1);
    await settled(page);
    const r = await api(page, (i) => window.cclscopeView.rect(i), pick.i);
    pick = r && r.visible ? { ...pick, r } : null;
  }
  if (check(pick !== null && pick.r.w >= 3, 'a Coll event of the window is visible and wide enough to click', pick)) {
    await page.mouse.click(pick.r.x + pick.r.w / 2, pick.r.y + pick.r.h / 2);
    await page.waitForTimeout(150);
    const det = await page.evaluate(() => document.getElementById('details-body').textContent);
    check(det.includes('ncclProfileColl') && det.includes('seqNumber') && det.includes('nChannels'),
      'clicking it shows every field of its record (from the tile\'s extra lines)', det.slice(0, 300));
  }

  // zoom and pan frames with tiles arriving on the way
  await page.focus('#timeline');
  const before = (await api(page, () => window.cclscopeView.frameTimes())).length;
  for (let k = 0; k < 10; k++) { await page.keyboard.press('+'); await page.keyboard.press('ArrowLeft'); await page.waitForTimeout(20); }
  await settled(page);
  await page.waitForTimeout(100);
  const ft = (await api(page, () => window.cclscopeView.frameTimes())).slice(before);
  const sorted = [...ft].sort((a, b) => a - b);
  const median = sorted.length ? sorted[Math.floor(sorted.length / 2)] : Infinity;
  const worst = sorted.length ? sorted[sorted.length - 1] : Infinity;
  const t2 = await api(page, () => window.cclscopeView.tiles());
  console.log(`# zoom and pan with tiles: frame draw median ${median.toFixed(1)} ms, worst ${worst.toFixed(1)} ms of ${ft.length}; ${t2.batches} batches of tiles`);
  check(ft.length >= 5 && median < 100 && worst < 2000, `zoom and pan frames: median < 100 ms, none over 2 s`, { median, worst, n: ft.length });

  // elsewhere: the middle of the trace; far tiles are dropped
  await page.keyboard.press('0');
  await page.waitForTimeout(100);
  const m = Math.floor(D.tiles.count / 2);
  await zoomAt(page, starts.find((s) => s >= D.tiles.t0[m]), 9);
  await settled(page);
  const t3 = await api(page, () => window.cclscopeView.tiles());
  check(t3.state === 'loaded' && t3.want.every((k) => t3.loaded.includes(k)) && t3.loadedBytes <= t3.loadBytes,
    'in the middle of the trace its tiles load, and no more than the page allows stay loaded', t3);
  await page.screenshot({ path: path.join(args.out, 'tiles.png') });
  check(requests.length === 0 && tileRequests.length > 0, `no request outside the page's folder (${tileRequests.length} tile loads)`, requests);
  check(errors.length === 0, 'no script error', errors);
  await context.close();
}

// the folder copied without the tile of that window: the page says so and
// draws the overview
{
  const dir = path.join(args.out, 'missing');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const copy = path.join(dir, 'tiles.html');
  fs.copyFileSync(html, copy);
  fs.cpSync(html.replace(/\.html$/, '.files'), path.join(dir, 'tiles.files'), { recursive: true });
  let gone = 0;
  while (gone + 1 < D.tiles.count && D.tiles.t0[gone + 1] <= END) gone++;
  fs.rmSync(path.join(dir, 'tiles.files', 'tile-' + String(gone).padStart(6, '0') + '.js'));
  const { page, context, requests, errors } = await open(copy);
  await zoomAt(page, END, 7);
  await settled(page);
  await page.waitForTimeout(200);
  const t = await api(page, () => window.cclscopeView.tiles());
  const ov = await api(page, () => window.cclscopeView.overview());
  check(t.state === 'missing' && t.missing.includes(gone) && /Detail missing/.test(t.note) && /tiles\.files/.test(t.note),
    'a missing tile: the page says which folder must stay next to it', t);
  check(ov && ov.stats && ov.stats.rows > 0, 'and draws that window from the overview', ov && ov.stats);
  await page.screenshot({ path: path.join(args.out, 'tiles-missing.png') });
  check(requests.length === 0, 'no request outside the page\'s folder', requests);
  check(errors.every((e) => /Failed to load resource/.test(e)), 'no script error (but the failed load of the missing file)', errors);
  await context.close();
}

await browser.close();
finish();
