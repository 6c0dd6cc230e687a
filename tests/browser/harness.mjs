// SPDX-License-Identifier: Apache-2.0
// tests/browser/harness.mjs — what every browser test does around its pages:
// read its `--key value` arguments, find Debian's chromium, load
// playwright-core from this folder's node_modules and launch it headless, open
// a page offline (openPage), and count its checks ("ok - …" / "not ok - …" lines, "N passed, M failed").
//
// Exit 77 (ctest SKIP) only when chromium cannot be installed on this system
// (no apt candidate); a chromium that could be installed but is missing, or
// missing node_modules, fails loudly.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/* `--key value` pairs of the command line; exit 2 with `usage` when one of
 * `required` is missing. */
export function parseArgs(required, usage) {
  const args = {};
  for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
  for (const k of required) {
    if (!args[k]) { console.error(`usage: ${usage} (missing --${k})`); process.exit(2); }
  }
  return args;
}

/* Playwright's chromium launcher and the browser binary to give it. */
export async function chromiumOrExit() {
  const executable = process.env.CCLSCOPE_CHROMIUM || '/usr/bin/chromium';
  if (!fs.existsSync(executable)) {
    let candidate = '';
    try {
      candidate = execFileSync('apt-cache', ['policy', 'chromium'], { encoding: 'utf8' });
    } catch (e) { candidate = ''; }
    const m = /Candidate:\s*(\S+)/.exec(candidate);
    if (!m || m[1] === '(none)') {
      console.log(`SKIP: ${executable} is missing and Debian's chromium package cannot be installed here (apt-cache policy chromium: no candidate)`);
      process.exit(77);
    }
    console.error(`FAIL: ${executable} is missing but chromium ${m[1]} can be installed: run scripts/install-deps.sh`);
    process.exit(1);
  }
  try {
    const { chromium } = await import(path.join(here, 'node_modules/playwright-core/index.mjs'));
    return { chromium, executable };
  } catch (e) {
    console.error('FAIL: playwright-core is not installed: run (cd tests/browser && npm ci) — scripts/test.sh does\n' + e.message);
    process.exit(1);
  }
}

/* Chromium launched headless, offline-minded (no QUIC, no background
 * traffic, no component updates or sync). */
export async function launchBrowser(chromium, executable) {
  return chromium.launch({
    executablePath: executable,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

/* A page of `cclscope view` (the file `html`) in a new context of
 * `browser`, `width` x `height` px and offline: every request but the page
 * itself is aborted and kept in `requests`, script errors and console
 * errors in `errors`. Resolves when the page says it is ready (within
 * `timeout` ms) and `settleMs` more have passed. */
export async function openPage(browser, html, { width, height, timeout = 60000, settleMs = 100 }) {
  const context = await browser.newContext({ viewport: { width, height }, offline: true });
  const url = 'file://' + path.resolve(html);
  const requests = [];
  await context.route('**/*', (route) => {
    if (route.request().url() === url) return route.continue();
    requests.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout });
  if (settleMs > 0) await page.waitForTimeout(settleMs);
  return { page, context, requests, errors };
}

/* The test's checks: check(ok, what, detail) prints "ok - what" or
 * "not ok - what: detail" (the detail as JSON, cut to `detailMax`
 * characters when given) and returns ok; finish() prints "N passed, M failed"
 * and exits 1 when any failed. */
export function tally(detailMax) {
  let passed = 0;
  let failed = 0;
  function check(ok, what, detail) {
    if (ok) {
      passed++;
      console.log('ok - ' + what);
    } else {
      failed++;
      let text = detail !== undefined ? JSON.stringify(detail) : undefined;
      if (text !== undefined && detailMax !== undefined) text = text.slice(0, detailMax);
      console.log('not ok - ' + what + (text !== undefined ? ': ' + text : ''));
    }
    return ok;
  }
  function finish() {
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed ? 1 : 0);
  }
  return { check, finish };
}
