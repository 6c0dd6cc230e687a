// SPDX-License-Identifier: Apache-2.0
// tests/browser/overview_click_test.mjs — every row of the overview of
// `cclscope view`, hovered and clicked as a user does, opens the lanes of
// that row's GPU, at window widths 1,280, 1,600 and 1,920 px.
//
//   node overview_click_test.mjs --cclscope BIN --trace DIR --out DIR
//
// --trace: ncclemu's mixed scenario, 2 nodes x 4 GPUs, one process per GPU
// (browser.trace.ranks8), so the world communicator's rank of a process is
// its GPU's global rank. Per width, and per overview row r (rank r): the
// row's rectangle is read before the mouse comes near it, the mouse moves
// to the row's middle (the page then shows the row in the top bar), the
// top bar's height must be what it was when the page opened (before the
// hover, and after the last one), and a click at
// that same point must open the lanes of row r: the page says row r is
// expanded, Coll events are visible, and every visible Coll event of the
// world communicator is rank r's (and in rank r's process). Then `o` goes
// back to the overview for the next row. No request, no script error.
// Once the top bar wrapped under a long hover text: the rows moved down
// by a line and a click opened the GPU above. Prints "N passed, M failed".
//
// Exit 77 (ctest SKIP) only when chromium cannot be installed at all, as in
// view_test.mjs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { chromiumOrExit, launchBrowser, openPage, parseArgs, tally } from './harness.mjs';

const args = parseArgs(['cclscope', 'trace', 'out'], 'overview_click_test.mjs --cclscope BIN --trace DIR --out DIR');
const { chromium, executable: CHROMIUM } = await chromiumOrExit();

const { check, finish } = tally();

fs.mkdirSync(args.out, { recursive: true });
const html = path.join(args.out, 'ranks8.html');
execFileSync(args.cclscope, ['-q', 'view', args.trace, '-o', html], { stdio: 'inherit' });

const browser = await launchBrowser(chromium, CHROMIUM);

/* The page at a viewport `width` px wide, offline, every request but the
 * page itself aborted and recorded. */
async function open(width) {
  return openPage(browser, html, { width, height: 800 });
}

/* Two animation frames: whatever the last event changed is laid out and drawn. */
const settle = (page) => page.evaluate(() => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res))));
const barHeight = (page) => page.evaluate(() => document.getElementById('bar').getBoundingClientRect().height);

/* After a click on row r: which row the page expanded, and the visible Coll
 * events: how many, those of the world communicator (nranks = world) whose
 * rank is not r, and the processes (files) they come from. */
async function opened(page, world) {
  return page.evaluate((ws) => {
    const v = window.cclscopeView;
    const visible = v.find({ type: 'Coll' }).filter((i) => v.rect(i) !== null).map((i) => v.item(i));
    return {
      mode: v.mode(), expanded: v.overview().expanded, visible: visible.length,
      worldRanks: [...new Set(visible.filter((it) => it.nranks === ws).map((it) => it.rank))],
      files: [...new Set(visible.map((it) => it.file))],
    };
  }, world);
}

for (const width of [1280, 1600, 1920]) {
  const { page, context, requests, errors } = await open(width);
  const ov = await page.evaluate(() => window.cclscopeView.overview());
  if (!check(ov && ov.rows >= 2, `${width} px: the page opens on an overview of several GPUs`, ov && { rows: ov.rows })) {
    await context.close();
    continue;
  }
  const world = ov.rows;
  const initial = await barHeight(page);
  let rowsOk = 0;
  const worldFileOf = {};
  for (let r = 0; r < world; r++) {
    await page.mouse.move(1, 1); // on the top bar's left edge: no row hovered
    await settle(page);
    const before = await barHeight(page);
    const rect = await page.evaluate((row) => window.cclscopeView.ovRowRect(row), r);
    const x = rect.x + rect.w / 2;
    const y = rect.y + rect.h / 2;
    await page.mouse.move(x, y);
    await settle(page);
    const hovered = await barHeight(page);
    const status = await page.evaluate(() => document.getElementById('status').textContent);
    const barOk = check(before === initial && hovered === initial && status.startsWith(ov.labels[r]),
      `${width} px, row ${r}: hovering it shows it in the top bar, whose height stays ${initial} px`,
      { initial, before, hovered, status });
    await page.mouse.click(x, y);
    await settle(page);
    const o = await opened(page, world);
    const file = o.files.length === 1 ? o.files[0] : -1;
    const rowOk = check(o.mode === 'lanes' && o.expanded === r && o.visible > 0 && o.worldRanks.length === 1 &&
      o.worldRanks[0] === r && file >= 0,
    `${width} px, row ${r}: a click opens the lanes of rank ${r} (its world Coll events, its process only)`, o);
    if (file >= 0) worldFileOf[r] = file;
    if (barOk && rowOk) rowsOk++;
    await page.keyboard.press('o'); // back to the overview
    await settle(page);
  }
  const files = Object.values(worldFileOf);
  check(files.length === world && new Set(files).size === world,
    `${width} px: the ${world} rows opened ${world} different processes`, worldFileOf);
  console.log(`# ${width} px: ${rowsOk} of ${world} rows hovered and clicked right`);
  await page.screenshot({ path: path.join(args.out, `overview-${width}.png`) });
  check(requests.length === 0 && errors.length === 0, `${width} px: no request, no script error`, { requests, errors });
  await context.close();
}

await browser.close();
finish();
