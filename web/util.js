// SPDX-License-Identifier: Apache-2.0
/* web/util.js — small helpers of the `cclscope view` page: colours per event
 * type (the study's visual language: green GroupApi, yellow KernelLaunch,
 * red ProxyCtrl, blue dotted parent links, red links between the ranks of a
 * collective, red dots for states), number and time formatting, DOM
 * building that only ever sets text (never HTML: trace strings are data),
 * binary search, and an exact JSON reader that keeps numbers as their text
 * (64-bit values such as GPU timers would lose digits as doubles). */
'use strict';

const TYPE_COLORS = {
  Group: '#8d6e63', Coll: '#1e88e5', P2p: '#7e57c2', ProxyOp: '#fb8c00',
  ProxyStep: '#ffb74d', ProxyCtrl: '#e53935', KernelCh: '#00acc1',
  NetPlugin: '#ec407a', GroupApi: '#43a047', CollApi: '#26a69a',
  P2pApi: '#9ccc65', KernelLaunch: '#fdd835', CeColl: '#3949ab',
  CeSync: '#7986cb', CeBatch: '#9fa8da', KernelPhase: '#4dd0e1',
  ProxyDiag: '#ff7043', GpuActivity: '#6d4c41',
  unknown: '#9e9e9e', ProfilerLifecycle: '#616161', timing: '#2e7d32',
};
const LINK_PARENT = '#1565c0';
const LINK_COLL = '#d32f2f';
const MARK_COLOR = '#6a1b9a';
const STATE_DOT = '#c62828';

function typeColor(name) {
  return TYPE_COLORS[name] || '#9e9e9e';
}

/* Create an element; text is set as text, never parsed. */
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function clearNode(n) {
  while (n.firstChild) n.removeChild(n.firstChild);
}

/* ns -> "12.345 µs", "3.210 ms", "1.500 s" */
function fmtDur(ns) {
  const a = Math.abs(ns);
  if (a < 1e3) return ns.toFixed(0) + ' ns';
  if (a < 1e6) return (ns / 1e3).toFixed(3) + ' µs';
  if (a < 1e9) return (ns / 1e6).toFixed(3) + ' ms';
  return (ns / 1e9).toFixed(3) + ' s';
}

/* A time on the page's clock (ns since the base): "+1.234567 s". */
function fmtTime(ns) {
  return '+' + (ns / 1e9).toFixed(9) + ' s';
}

/* Exact epoch microseconds ("1795274479934219.589") of a page time. */
function fmtEpochUs(baseUs, ns) {
  try {
    const t = BigInt(baseUs) * 1000n + BigInt(Math.round(ns));
    const neg = t < 0n;
    const a = neg ? -t : t;
    const us = a / 1000n;
    const frac = (a % 1000n).toString().padStart(3, '0');
    return (neg ? '-' : '') + us.toString() + '.' + frac;
  } catch (e) {
    return '?';
  }
}

function hex(n) {
  return n < 0 ? '?' : '0x' + n.toString(16);
}

function fmtBytes(b) {
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = b;
  while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return (i ? v.toFixed(v < 10 ? 2 : 1) : String(v)) + ' ' + u[i];
}

/* First index in [lo, hi) with arr[idx[i]] >= x (idx may be null). */
function lowerBound(arr, idx, lo, hi, x) {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = idx ? arr[idx[mid]] : arr[mid];
    if (v < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/* ---- exact JSON: a tree whose numbers are kept as text ---- */

function parseJsonExact(text) {
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\r\n'.indexOf(text[i]) >= 0) i++; };
  function str() {
    const s = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(s, i));
  }
  function value() {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const members = [];
      ws();
      if (text[i] === '}') { i++; return { t: 'obj', members }; }
      for (;;) {
        ws();
        const k = str();
        ws();
        i++; /* : */
        members.push([k, value()]);
        ws();
        if (text[i++] === '}') break;
      }
      return { t: 'obj', members };
    }
    if (c === '[') {
      i++;
      const items = [];
      ws();
      if (text[i] === ']') { i++; return { t: 'arr', items }; }
      for (;;) {
        items.push(value());
        ws();
        if (text[i++] === ']') break;
      }
      return { t: 'arr', items };
    }
    if (c === '"') return { t: 'str', v: str() };
    const s = i;
    while (i < text.length && ',]} \t\r\n'.indexOf(text[i]) < 0) i++;
    const tok = text.slice(s, i);
    if (tok === 'true' || tok === 'false' || tok === 'null') return { t: 'lit', v: tok };
    return { t: 'num', v: tok };
  }
  return value();
}

function jsonGet(node, key) {
  if (!node || node.t !== 'obj') return undefined;
  for (const [k, v] of node.members) if (k === key) return v;
  return undefined;
}
