// SPDX-License-Identifier: Apache-2.0
// tests/browser/verdict_test.mjs — one straggler verdict everywhere: the
// README's demo (scripts/demo.sh: ncclemu's mixed scenario on 2 nodes x 4
// GPUs, rank 5 late by 400 us at every operation) opened in Debian's
// chromium, its timeline's overview against `cclscope summary` of the same
// traces.
//
//   node verdict_test.mjs --cclscope BIN --demo DIR --out DIR
//
// --demo: the folder scripts/demo.sh wrote (traces/, timeline.html). Checks:
// `summary --json` has a verdict (gpu or none, a confidence); the page the
// demo wrote opens on the overview and marks exactly the GPU that verdict
// names (its global rank and confidence), or none when it names none, with
// the red marker drawn on that row only (canvas pixels); the page's summary
// panel states the same verdict; when a GPU is named it is the planted rank
// 5 and no other; `summary`'s text says the same; no request, no script
// error. The planted rank being named at all is a wall-clock story (a sleep
// of 400 us): that is judged by tests/e2e/demo.sh, not here. Prints
// "N passed, M failed".
//
// Exit 77 (ctest SKIP) only when chromium cannot be installed at all, as in
// view_test.mjs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { chromiumOrExit, launchBrowser, openPage, parseArgs, tally } from './harness.mjs';

const args = parseArgs(['cclscope', 'demo', 'out'], 'verdict_test.mjs --cclscope BIN --demo DIR --out DIR');
const { chromium, executable: CHROMIUM } = await chromiumOrExit();
const PLANTED = 5;

const { check, finish } = tally();

const traces = path.join(args.demo, 'traces');
const html = path.join(args.demo, 'timeline.html');
fs.mkdirSync(args.out, { recursive: true });
const summary = JSON.parse(execFileSync(args.cclscope, ['-q', 'summary', '--json', traces], { encoding: 'utf8', maxBuffer: 1 << 28 }));
const text = execFileSync(args.cclscope, ['-q', 'summary', traces], { encoding: 'utf8', maxBuffer: 1 << 28 });
const V = summary.stragglers && summary.stragglers.verdict;
check(V && (V.verdict === 'gpu' || V.verdict === 'none') && ['high', 'medium', 'low'].includes(V.confidence),
  'summary --json has a verdict (gpu or none) with a confidence', V);
const named = V && V.verdict === 'gpu' ? V.gpu.globalRank : null;
console.log(`# summary: ${V ? V.verdict : '?'}${named !== null ? ' rank ' + named : ''} (${V ? V.confidence : '?'}): ${V ? V.reason : ''}`);
check(named === null || named === PLANTED, `a GPU named is the planted rank ${PLANTED}, never another`, { named });
const line = (text.split('\n').find((l) => l.startsWith('  Verdict: ')) || '');
check(named !== null
  ? new RegExp(`^  Verdict: ~?g${named} .* is the straggler \\(confidence ${V.confidence}\\)`).test(line)
  : line.startsWith(`  Verdict: no GPU stands out (confidence ${V && V.confidence})`),
'summary\'s text states the same verdict', line);

const browser = await launchBrowser(chromium, CHROMIUM);
const { page, requests, errors } = await openPage(browser, html, { width: 1280, height: 720 });

check((await page.evaluate(() => window.cclscopeView.mode())) === 'overview', 'the demo\'s page opens on the overview');
const ov = await page.evaluate(() => window.cclscopeView.overview());
check(ov && ov.verdict && ov.verdict.verdict === (V && V.verdict) && ov.verdict.confidence === (V && V.confidence),
  'the overview carries the summary\'s verdict and confidence', ov && ov.verdict);
check(ov && ov.verdict && ov.verdict.kind === (V && V.kind),
  `the overview carries the summary's kind of straggler: ${V && V.kind}`, ov && ov.verdict);
check(ov && ov.stragglerRank === named && (named === null) === (ov.straggler < 0),
  named !== null ? `the overview marks the GPU the summary names: rank ${named}` : 'the overview marks no GPU, as the summary names none',
  ov && { straggler: ov.straggler, rank: ov.stragglerRank });

/* the red marker: on the named row only */
const pixel = (x, y) => page.evaluate(([px, py]) => {
  const c = document.getElementById('canvas');
  const r = c.getBoundingClientRect();
  const dpr = c.width / r.width;
  const d = c.getContext('2d').getImageData(Math.floor((px - r.left) * dpr), Math.floor((py - r.top) * dpr), 1, 1).data;
  return [d[0], d[1], d[2]];
}, [x, y]);
const isRed = (p) => p[0] > 180 && p[1] < 90 && p[2] < 90;
const marked = [];
for (let r = 0; ov && r < ov.rows; r++) {
  const rect = await page.evaluate((k) => window.cclscopeView.ovRowRect(k), r);
  if (isRed(await pixel(rect.x - 297, rect.y + rect.h / 2))) marked.push(r);
}
check(ov && (ov.straggler < 0 ? marked.length === 0 : marked.length === 1 && marked[0] === ov.straggler),
  'the red marker is on that row and no other', { marked, straggler: ov && ov.straggler });
await page.screenshot({ path: path.join(args.out, 'demo-overview.png') });

await page.click('#btn-summary');
const panel = await page.evaluate(() => document.getElementById('summary-body').textContent);
check(named !== null
  ? panel.includes(`rank ${named} `) && panel.includes(`is the straggler (confidence ${V.confidence})`)
  : panel.includes(`No GPU stands out (confidence ${V && V.confidence})`),
'the page\'s summary panel states the same verdict', panel.slice(0, 400));
check(!V || V.kind === 'none' || panel.includes(`Kind: ${V.kind} — `),
  'the page\'s summary panel states the same kind of straggler', panel.slice(0, 600));
check(panel.includes('Stragglers (by GPU)'), 'the summary panel has the By GPU table');
await page.screenshot({ path: path.join(args.out, 'demo-summary.png') });
check(requests.length === 0 && errors.length === 0, 'no request, no script error', { requests, errors });
await browser.close();
finish();
