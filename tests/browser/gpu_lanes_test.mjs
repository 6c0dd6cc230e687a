// SPDX-License-Identifier: Apache-2.0
// tests/browser/gpu_lanes_test.mjs — GPU lanes of `cclscope view` in a real
// browser: a minimal_profiler recording made on real NCCL (4 GPUs in one
// process, one CUPTI kernel per GPU) opens offline without a script error,
// its 4 kernels are on 4 rows labelled as GPU lanes ("GPU d · stream s"),
// each linked to its rank's KernelLaunch; clicking a kernel shows it in
// the details panel; the summary panel says the AllReduce's bytes and a
// bandwidth.
//
//   node gpu_lanes_test.mjs --cclscope BIN --trace DIR --out DIR
//
// Exit 77 (ctest SKIP) only when chromium cannot be installed on this system.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { chromiumOrExit, launchBrowser, openPage, parseArgs, tally } from './harness.mjs';

const args = parseArgs(['cclscope', 'trace', 'out'], 'gpu_lanes_test.mjs --cclscope BIN --trace DIR --out DIR');
const { chromium, executable: CHROMIUM } = await chromiumOrExit();

const { check, finish } = tally();

fs.mkdirSync(args.out, { recursive: true });
const html = path.join(args.out, 'gpu_lanes.html');
execFileSync(args.cclscope, ['-q', 'view', args.trace, '-o', html], { stdio: 'inherit' });

const browser = await launchBrowser(chromium, CHROMIUM);
const { page, requests, errors } = await openPage(browser, html, { width: 1600, height: 1400, timeout: 120000, settleMs: 0 });
if ((await page.evaluate(() => window.cclscopeView.mode())) === 'overview') {
  await page.click('#btn-mode');
  await page.waitForTimeout(100);
}
const api = (expr, arg) => page.evaluate(expr, arg);

const byType = await api(() => window.cclscopeView.countByType());
check(byType.GpuActivity === 4, '4 GPU activity items', byType);
const kernels = await api(() => window.cclscopeView.find({ type: 'GpuActivity' }));
const rows = await api(() => window.cclscopeView.headers('row'));
for (const d of [0, 1, 2, 3]) {
  check(rows.some((l) => /^GPU \d · stream 0x[0-9a-f]+ \(GPU activity\)$/.test(l) && l.startsWith('GPU ' + d + ' ')),
    `a row labelled as GPU ${d}'s lane`, rows.filter((l) => l.startsWith('GPU')));
}
const rowsOf = new Set();
for (const i of kernels) {
  const it = await api((k) => window.cclscopeView.item(k), i);
  rowsOf.add(it.row);
  check(it.row >= 0 && it.name.startsWith('ncclDevKernel_AllReduce'), `kernel ${i} drawn with its name`, it);
  const parent = it.parent >= 0 ? await api((k) => window.cclscopeView.item(k), it.parent) : null;
  check(parent && parent.type === 'KernelLaunch' && parent.rank === it.rank, `kernel ${i} linked to its rank's KernelLaunch`, { it, parent });
}
check(rowsOf.size === 4, 'the 4 kernels on 4 rows', [...rowsOf]);

// click the longest kernel (rank 3's): the details panel shows it
let longest = kernels[0];
let longestDur = -1;
for (const i of kernels) {
  const it = await api((k) => window.cclscopeView.item(k), i);
  if (it.endNs - it.startNs > longestDur) { longestDur = it.endNs - it.startNs; longest = i; }
}
const r = await api((k) => window.cclscopeView.rect(k), longest);
if (check(r && r.visible, 'the longest kernel is visible', r)) {
  await page.mouse.click(r.x + Math.min(r.w / 2, 20), r.y + r.h / 2);
  await page.waitForTimeout(150);
  const details = await page.evaluate(() => document.body.innerText);
  check(/GpuActivity/.test(details) && /corrId/.test(details) && /ncclDevKernel_AllReduce/.test(details),
    'the details panel shows the kernel', details.slice(0, 400));
}
await page.screenshot({ path: path.join(args.out, 'gpu_lanes.png') });

// the summary panel: 128 MiB, the source, a bandwidth ('-' only for
// host-only spans)
await page.click('#btn-summary');
const sum = await page.evaluate(() => document.getElementById('summary-body').textContent);
check(/128(\.0+)? MiB/.test(sum) && sum.includes('AllReduce') && sum.includes('gpu'), 'the summary panel shows the AllReduce (128 MiB, source gpu)', sum.slice(0, 600));
check(sum.includes('No bandwidth ("-") from a host-only span'), 'the summary panel says when no bandwidth is shown', sum.slice(0, 600));

check(errors.length === 0, 'no script error', errors);
check(requests.length === 0, 'no request attempted', requests);
await browser.close();
finish();
