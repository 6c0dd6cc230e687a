// SPDX-License-Identifier: Apache-2.0
// tests/browser/overview_test.mjs — the overview of `cclscope view` (one row
// per GPU, collectives coloured by arrival lateness, the straggler marked) in
// Debian's chromium, at 8 and at 256 emulated ranks.
//
//   node overview_test.mjs --cclscope BIN --trace8 DIR --trace256 DIR --out DIR [--ranks 8|256]
//
// --trace8: ncclemu's mixed scenario, 2 nodes x 4 GPUs, one process per
// GPU, world rank 5 late by 50 ms at every operation (--delay-rank);
// --trace256: the multi-node scenario, 16 nodes x 16 GPUs, 16 GPUs per
// process, 40 AllReduces, unpaced (--pace none). At 256 ranks on a small shared machine the emulator's own
// scheduling noise (up to seconds between ranks) drowns any --delay-us it
// can afford, so this test plants the straggler in a copy of that trace:
// rank 77 calls each AllReduce 1 s later than it did the one before (its Coll
// events and timing records move by seqNumber x 1 s: a host that loses 1 s
// between its calls), which the straggler verdict of `summary` — the one
// the page marks — names. Checks, per page: it opens on
// the overview; it has one row per GPU of the world communicator, labelled
// rank 0 .. N-1 in order; the row the page marks as the straggler is the
// planted rank's, and its marker is drawn (canvas pixels); zoomed out the
// rows are time buckets, zoomed in (8 ranks) the collectives one by one;
// clicking the straggler's row opens its lanes with the other processes
// collapsed; no request, no script error. It measures the frame time of a
// zoom and pan sequence (draw time and requestAnimationFrame intervals) and
// prints it; the only bound on it is a generous sanity one (1 s a frame).
// Screenshots of both overviews go to --out. Prints "N passed, M failed".
//
// Exit 77 (ctest SKIP) only when chromium cannot be installed at all, as in
// view_test.mjs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { chromiumOrExit, launchBrowser, openPage, parseArgs, tally } from './harness.mjs';

const args = parseArgs(['cclscope', 'trace8', 'trace256', 'out'], 'overview_test.mjs --cclscope BIN --trace8 DIR --trace256 DIR --out DIR');
const { chromium, executable: CHROMIUM } = await chromiumOrExit();

const { check, finish } = tally();

/* The world size: the most ranks any communicator of the trace has. */
function worldSize(dir) {
  let n = 0;
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.jsonl'))) {
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      if (!line.includes('"ProfilerInit"')) continue;
      const r = JSON.parse(line);
      if (r.nranks > n) n = r.nranks;
    }
  }
  return n;
}

/* A copy of `dir` where (world) rank `rank` calls each collective `us`
 * microseconds later than the one before: its Coll events and timing
 * records of seqNumber k move k * us later (every time in them). The
 * numbers are rewritten as text, so every other digit of the trace stays
 * as it was. Returns how many records moved. */
function plantLateRank(dir, out, rank, us) {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  let moved = 0;
  const shift = (ts, by) => {
    const [int, frac] = ts.split('.');
    return (BigInt(int) + BigInt(by)).toString() + (frac !== undefined ? '.' + frac : '');
  };
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.jsonl'))) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8').split('\n').map((line) => {
      if (!line.includes('"type":"ncclProfileColl"') || !line.includes('"rank":' + rank + ',')) return line;
      const seq = /"seqNumber":([0-9]+)/.exec(line);
      if (!seq) return line;
      const by = BigInt(seq[1]) * BigInt(us);
      moved++;
      if (line.startsWith('{"recordType":"timing"')) {
        // format version 2: integer ns (keys ending in Ns); version 1: µs
        if (line.includes('"startNs":')) {
          return line.replace(/"(apiNs|enqueueStartNs|enqueueStopNs|startNs|stopNs)":([0-9]+)/g,
            (m, k, ts) => '"' + k + '":' + shift(ts, by * 1000n));
        }
        return line.replace(/"(apiTs|start|stop)":([0-9.]+)/g, (m, k, ts) => '"' + k + '":' + shift(ts, by));
      }
      return line.replace(/"(start|stop)":\{"ts":([0-9.]+)/g, (m, k, ts) => '"' + k + '":{"ts":' + shift(ts, by));
    }).join('\n');
    fs.writeFileSync(path.join(out, f), text);
  }
  return moved;
}

const browser = await launchBrowser(chromium, CHROMIUM);

async function open(html) {
  return openPage(browser, html, { width: 1280, height: 720 });
}

/* The colour of the canvas at page pixel (x, y). */
async function pixel(page, x, y) {
  return page.evaluate(([px, py]) => {
    const c = document.getElementById('canvas');
    const r = c.getBoundingClientRect();
    const dpr = c.width / r.width;
    const d = c.getContext('2d').getImageData(Math.floor((px - r.left) * dpr), Math.floor((py - r.top) * dpr), 1, 1).data;
    return [d[0], d[1], d[2]];
  }, [x, y]);
}

/* Zoom in and pan with the keyboard, one step per animation frame:
 * the page's draw time per frame and the intervals between frames. */
async function frameTiming(page) {
  await page.focus('#timeline');
  return page.evaluate(async () => {
    const v = window.cclscopeView;
    const before = v.frameTimes().length;
    const key = (k) => window.dispatchEvent(new KeyboardEvent('keydown', { key: k }));
    const stamps = [];
    const frame = () => new Promise((res) => requestAnimationFrame((t) => { stamps.push(t); res(); }));
    await frame();
    const steps = ['+', '+', 'ArrowRight', '+', 'ArrowLeft', '+', '+', 'ArrowRight', '-', 'ArrowRight', '+', '+',
      'ArrowLeft', '-', '-', 'ArrowRight', '+', 'ArrowLeft', '-', '0'];
    for (const k of steps) { key(k); await frame(); }
    await frame();
    const draws = v.frameTimes().slice(before);
    const gaps = stamps.slice(1).map((t, i) => t - stamps[i]);
    const stat = (a) => {
      const s = a.slice().sort((x, y) => x - y);
      return { n: s.length, median: s[Math.floor(s.length / 2)], p95: s[Math.floor(s.length * 0.95)], max: s[s.length - 1] };
    };
    return { draw: stat(draws), interval: stat(gaps) };
  });
}

const fmt = (s) => `median ${s.median.toFixed(2)} ms, p95 ${s.p95.toFixed(2)} ms, max ${s.max.toFixed(2)} ms (${s.n})`;
fs.mkdirSync(args.out, { recursive: true });

async function overviewCase(name, trace, planted) {
  const t0 = Date.now();
  const ws = worldSize(trace);
  const html = path.join(args.out, name + '.html');
  execFileSync(args.cclscope, ['-q', 'view', trace, '-o', html], { stdio: 'inherit' });
  const { page, context, requests, errors } = await open(html);
  check((await page.evaluate(() => window.cclscopeView.mode())) === 'overview', `${name}: the page opens on the overview`);
  const ov = await page.evaluate(() => window.cclscopeView.overview());
  check(ov && ov.rows === ws, `${name}: one row per GPU: ${ws} rows`, ov && { rows: ov.rows });
  const inOrder = ov && ov.labels.every((l, r) => l.startsWith('rank ' + r + ' '));
  check(inOrder, `${name}: rows are ranks 0 .. ${ws - 1} in order`, ov && ov.labels.slice(0, 4));
  check(ov && ov.stragglerRank === planted, `${name}: the straggler marked is the planted rank ${planted}`, ov && { straggler: ov.straggler, rank: ov.stragglerRank });
  check(ov && ov.stats && ov.stats.level === 'buckets' && ov.stats.buckets > 0, `${name}: zoomed out, rows are drawn as time buckets`, ov && ov.stats);

  // the marker of the straggler's row is red; a row far from it is not
  const sr = await page.evaluate((r) => window.cclscopeView.ovRowRect(r), ov.straggler);
  const other = await page.evaluate((r) => window.cclscopeView.ovRowRect(r), ov.straggler === 0 ? ws - 1 : 0);
  const red = await pixel(page, sr.x - 297, sr.y + sr.h / 2);
  const plain = await pixel(page, other.x - 297, other.y + other.h / 2);
  check(red[0] > 180 && red[1] < 90 && red[2] < 90 && plain[0] > 200 && plain[1] > 200,
    `${name}: the straggler's row has its red marker, another row has none`, { red, plain });
  await page.screenshot({ path: path.join(args.out, `view-${ws}-ranks.png`) });

  const ft = await frameTiming(page);
  console.log(`# ${name}: frame draw ${fmt(ft.draw)}; requestAnimationFrame interval ${fmt(ft.interval)}`);
  check(ft.draw.n >= 10 && ft.draw.max < 1000, `${name}: frames drawn during zoom and pan, none over 1 s (sanity bound)`, ft);
  fs.writeFileSync(path.join(args.out, name + '-frames.json'), JSON.stringify(ft, null, 1));

  // zoomed in far enough, the collectives one by one (when embedded)
  if (ov.embedded) {
    const at = await page.evaluate(() => {
      const v = window.cclscopeView;
      const w = v.view();
      const r = v.ovRowRect(0);
      return { x: r.x + ((v.overview().firstStart - w.t0) / (w.t1 - w.t0)) * r.w, y: r.y + 1 };
    });
    await page.mouse.move(at.x, at.y);
    for (let k = 0; k < 6; k++) await page.mouse.wheel(0, -400);
    await page.waitForTimeout(100);
    const st = (await page.evaluate(() => window.cclscopeView.overview())).stats;
    check(st.level === 'instances' && st.instances > 0, `${name}: zoomed in, the collectives are drawn one by one`, st);
  }

  // clicking the straggler's row opens its lanes, the others collapsed
  await page.keyboard.press('0');
  await page.waitForTimeout(50);
  const row = await page.evaluate((r) => window.cclscopeView.ovRowRect(r), ov.straggler);
  await page.mouse.click(row.x + row.w / 2, row.y + row.h / 2);
  await page.waitForTimeout(150);
  const after = await page.evaluate((rank) => {
    const v = window.cclscopeView;
    const mine = v.find({ type: 'Coll', rank, limit: 1 });
    const file = mine.length ? v.item(mine[0]).file : -1;
    const others = v.find({ type: 'Coll' }).filter((i) => v.item(i).file !== file);
    return {
      mode: v.mode(), expanded: v.overview().expanded,
      mine: mine.length ? v.rect(mine[0]) : null,
      othersShown: others.filter((i) => v.rect(i) !== null).length, others: others.length,
    };
  }, planted);
  check(after.mode === 'lanes' && after.expanded === ov.straggler && after.mine !== null && after.others > 0 &&
    after.othersShown === 0, `${name}: clicking the straggler's row opens its lanes, other processes collapsed`, after);
  check(requests.length === 0 && errors.length === 0, `${name}: no request, no script error`, { requests, errors });
  await context.close();
  console.log(`# ${name}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return ft;
}

// 8 ranks: the emulator's own planted straggler
if (args.ranks !== '256') await overviewCase('ranks8', args.trace8, 5);

// 256 ranks: the straggler planted in a copy of the trace
if (args.ranks !== '8') {
  const planted = path.join(args.out, 'trace256-planted');
  const moved = plantLateRank(args.trace256, planted, 77, 1000000);
  check(moved > 0, `ranks256: rank 77's Coll events and timing records moved 1 s later at each call (${moved})`);
  await overviewCase('ranks256', planted, 77);
}

await browser.close();
finish();
