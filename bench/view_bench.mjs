// SPDX-License-Identifier: Apache-2.0
// bench/view_bench.mjs — how the page of `cclscope view` copes with a big
// trace, in Debian's chromium (playwright-core from tests/browser):
//
//   node bench/view_bench.mjs PAGE.html [WIDTHxHEIGHT]
//
// Prints the load time (navigation until the page is drawn and ready), the
// page's own parse and layout times, the JS heap, then the draw time of
// each frame (window.cclscopeView.frameTimes: the canvas work of one frame)
// in phases: on the overview (when the page opens on it) the whole trace,
// zoom and pan; then on the lanes the whole trace, zooming in with "+", panning with the arrow
// keys, wheel zoom, vertical scrolling, hovering; on a page with tiles
// (PAGE.files/), zooming into the middle of the trace, the time until its
// tiles are loaded and drawn, and panning and zooming there. Results on
// stdout (JSON).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { chromium } = await import(path.join(here, '../tests/browser/node_modules/playwright-core/index.mjs'));
const [html, size] = process.argv.slice(2);
if (!html) {
  console.error('usage: node bench/view_bench.mjs PAGE.html [WIDTHxHEIGHT]');
  process.exit(2);
}
const [width, height] = (size || '1600x900').split('x').map(Number);
const browser = await chromium.launch({
  executablePath: process.env.CCLSCOPE_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const context = await browser.newContext({ viewport: { width, height }, offline: true });
const page = await context.newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
const t0 = Date.now();
await page.goto('file://' + path.resolve(html), { timeout: 600000 });
await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 600000, polling: 50 });
await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const loadMs = Date.now() - t0;
const cdp = await context.newCDPSession(page);
await cdp.send('Performance.enable');
const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
const info = await page.evaluate(() => ({ counts: window.cclscopeView.counts(), load: window.cclscopeView.loadTimes() }));

const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
async function phase(name, steps) {
  const before = (await page.evaluate(() => window.cclscopeView.frameTimes().length));
  const tStart = Date.now();
  for (let k = 0; k < steps.length; k++) {
    await steps[k]();
    await settle();
  }
  const wall = Date.now() - tStart;
  const all = await page.evaluate(() => window.cclscopeView.frameTimes());
  const ft = all.slice(Math.max(0, all.length - (all.length - before))).sort((a, b) => a - b);
  const q = (p) => ft[Math.min(ft.length - 1, Math.floor(p * ft.length))];
  const last = await page.evaluate(() => window.cclscopeView.lastFrame());
  return { name, frames: ft.length, medianMs: q(0.5), p95Ms: q(0.95), maxMs: ft[ft.length - 1], wallMsPerStep: wall / steps.length, lastFrame: last };
}
const rep = (n, f) => Array.from({ length: n }, () => f);
const LABEL_X = 300; /* the plot starts right of the label column */
await page.focus('#timeline');
const key = (k) => () => page.keyboard.press(k);
const phases = [];
/* the overview first (when the page opens on it), then the lanes */
const mode = await page.evaluate(() => window.cclscopeView.mode());
if (mode === 'overview') {
  phases.push(await phase('overview: whole trace (redraw x20)', rep(20, key('0'))));
  phases.push(await phase('overview: zoom in with + (x12)', rep(12, key('+'))));
  phases.push(await phase('overview: pan with arrows (x20)', rep(20, key('ArrowRight'))));
  await page.keyboard.press('0');
  await page.mouse.move(width / 2, height / 2);
  phases.push(await phase('overview: wheel zoom in (x15)', rep(15, () => page.mouse.wheel(0, -200))));
  phases.push(await phase('overview: wheel zoom out (x15)', rep(15, () => page.mouse.wheel(0, 200))));
  phases.at(-1).overview = await page.evaluate(() => window.cclscopeView.overview().stats);
  await page.keyboard.press('o');
  await page.keyboard.press('0');
}
phases.push(await phase('whole trace (redraw x20)', rep(20, key('0'))));
phases.push(await phase('zoom in with + (x12)', rep(12, key('+'))));
phases.push(await phase('pan with arrows (x20)', rep(20, key('ArrowRight'))));
await page.keyboard.press('0');
await page.mouse.move(width / 2, height / 2);
phases.push(await phase('wheel zoom in (x15)', rep(15, () => page.mouse.wheel(0, -200))));
phases.push(await phase('wheel zoom out (x15)', rep(15, () => page.mouse.wheel(0, 200))));
await page.keyboard.press('0');
phases.push(await phase('scroll down (PageDown x10)', rep(10, key('PageDown'))));
let hx = 320;
phases.push(await phase('hover (x40)', rep(40, () => { hx += 29; return page.mouse.move(hx % width, 200 + (hx % 500)); })));
/* a page with tiles: zoom into the middle of the trace (past the page's
 * own detail), wait for the tiles of the window, then pan and zoom there */
let tiles = null;
if (await page.evaluate(() => window.cclscopeView.tiles() !== null)) {
  await page.keyboard.press('0');
  await page.mouse.move(LABEL_X + (width - LABEL_X) * 0.5, height / 2);
  const settledTiles = () => page.waitForFunction(() => {
    const t = window.cclscopeView.tiles();
    return t.pending === 0 && t.state !== 'loading';
  }, null, { timeout: 120000, polling: 20 });
  phases.push(await phase('tiles: wheel zoom into the middle (x12)', rep(12, () => page.mouse.wheel(0, -400))));
  const t0 = Date.now();
  await settledTiles();
  await settle();
  const loadedMs = Date.now() - t0;
  phases.push(await phase('tiles: pan with arrows (x20, tiles arriving)', rep(20, key('ArrowRight'))));
  await settledTiles();
  phases.push(await phase('tiles: zoom in with + (x8)', rep(8, key('+'))));
  phases.push(await phase('tiles: zoom out with - (x8)', rep(8, key('-'))));
  await settledTiles();
  tiles = { ...(await page.evaluate(() => window.cclscopeView.tiles())), want: undefined, loaded: undefined,
    counts: await page.evaluate(() => window.cclscopeView.counts()), msUntilLoadedAfterZoom: loadedMs };
}
console.log(JSON.stringify({ page: html, viewport: `${width}x${height}`, openedOn: mode, loadMs, parseMs: info.load.parseMs, layoutMs: info.load.layoutMs,
  jsHeapMB: metrics.JSHeapUsedSize / 1048576, counts: info.counts, phases, tiles, errors }, null, 1));
await browser.close();
