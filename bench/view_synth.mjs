// SPDX-License-Identifier: Apache-2.0
// bench/view_synth.mjs — writes a large synthetic trace (docs/trace-format.md,
// passes `cclscope check`) for benchmarking `cclscope view` and its page:
//
//   node bench/view_synth.mjs DIR [EVENTS=1000000] [RANKS=8]
//
// Each rank is one process (file) on one of two hosts; each iteration of a
// rank is a training step: a step mark, GroupApi > CollApi on the app
// thread, a Coll (AllReduce, seqNumber = iteration), 2 channels x (send and
// recv ProxyOp > 4 ProxySteps with 3 states each) and 2 KernelCh on the
// proxy thread, and the Coll's timing record: 25 events per iteration.
// Ranks start a little apart; ProxyOps of the two channels overlap, so the
// proxy thread needs several lanes. Deterministic (no randomness).
import fs from 'node:fs';
import path from 'node:path';

const [dir, eventsArg, ranksArg] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node bench/view_synth.mjs DIR [EVENTS] [RANKS]');
  process.exit(2);
}
const EVENTS = Number(eventsArg || 1000000);
const RANKS = Number(ranksArg || 8);
const PER_ITER = 25;
const ITERS = Math.ceil(EVENTS / PER_ITER / RANKS);
const BASE_US = 1795000000000000; /* < 2^53: exact as a double */
fs.mkdirSync(dir, { recursive: true });

const ts = (ns) => String(BASE_US + Math.floor(ns / 1000)) + '.' + String(ns % 1000).padStart(3, '0');
const us = (ns) => (ns / 1000).toFixed(3);
const pt = (ns, pid, tid) => `{"ts":${ts(ns)},"pid":${pid},"tid":${tid}}`;

for (let r = 0; r < RANKS; r++) {
  const pid = 1000 + r;
  const app = pid;
  const proxy = pid + 50;
  const host = 'node' + (r < RANKS / 2 ? 0 : 1);
  const tag = '0x' + (0x100 + r).toString(16);
  const out = fs.createWriteStream(path.join(dir, `trace_synth_${host}_pid${pid}.jsonl`));
  const chunks = [];
  const flush = () => { if (chunks.length) { out.write(chunks.join('')); chunks.length = 0; } };
  const w = (s) => { chunks.push(s, '\n'); if (chunks.length > 20000) flush(); };
  let id = 0;
  let events = 0;
  const ev = (type, parent, tid, s, e, extra, details, states) => {
    id++;
    events++;
    w(`{"recordType":"event","type":"ncclProfile${type}","id":"0x${id.toString(16)}","parentId":${parent ? '"0x' + parent.toString(16) + '"' : 'null'},"ctx":1,"commId":"0xc0ffee","rank":${r}${extra},"start":${pt(s, pid, tid)},"stop":${pt(e, pid, tid)},"duration":${us(e - s)},"end":"stopped","details":${details}${states ? ',"states":' + states : ''}}`);
    return id;
  };
  w(`{"recordType":"process","plugin":"cclscope","pluginVersion":"0.1.0","formatVersion":1,"hostname":"${host}","pid":${pid},"ppid":1,"runId":"synth","handleTag":"${tag}","host":"nccl","ncclVersion":"2.30.7","ncclVersionCode":23007,"clock":"counter","mode":"trace","eventMask":65535,"eventMaskNames":"all","eventMaskSource":"env","ringBytes":4194304,"ts":${ts(0)}}`);
  w(`{"recordType":"event","type":"ProfilerLifecycle","func":"ProfilerInit","ctx":1,"commId":"0xc0ffee","commName":"synth","rank":${r},"nranks":${RANKS},"nNodes":2,"gpuUuid":"","start":${pt(1000, pid, app)},"stop":${pt(2000, pid, app)},"duration":1.000,"details":{"abi":6}}`);
  w(`{"recordType":"thread","pid":${pid},"tid":${app},"name":"python","ts":${ts(1000)}}`);
  w(`{"recordType":"thread","pid":${pid},"tid":${proxy},"name":"NCCL Progress ${r}","ts":${ts(3000)}}`);
  let t = 10000 + r * 700;
  for (let k = 0; k < ITERS; k++) {
    const skew = (k * 37 + r * 11) % 900;
    const t0 = t + skew;
    w(`{"recordType":"mark","ts":${ts(t0)},"pid":${pid},"tid":${app},"kind":"step","step":${k}}`);
    const g = ev('GroupApi', 0, app, t0 + 100, t0 + 9000, '', '{"groupDepth":1,"graphCaptured":false}');
    const api = ev('CollApi', g, app, t0 + 300, t0 + 2000, ',"func":"AllReduce"', '{"count":262144,"datatype":"ncclFloat32","root":0,"stream":"0x7f00","graphCaptured":false}');
    const coll = ev('Coll', api, app, t0 + 2500, t0 + 8000, ',"func":"AllReduce"', `{"seqNumber":${k},"count":262144,"datatype":"ncclFloat32","root":0,"sendBuff":"0x1000","recvBuff":"0x2000","nChannels":2,"nWarps":16,"algo":"RING","proto":"SIMPLE","parentGroupId":null}`);
    let pStart = Infinity;
    let pStop = 0;
    for (let c = 0; c < 2; c++) {
      for (const send of [true, false]) {
        const os = t0 + 9000 + c * 1500 + (send ? 0 : 400);
        const oe = os + 60000;
        pStart = Math.min(pStart, os);
        pStop = Math.max(pStop, oe);
        const op = ev('ProxyOp', coll, proxy, os, oe, '', `{"channelId":${c},"peer":${(r + (send ? 1 : RANKS - 1)) % RANKS},"nSteps":4,"chunkSize":524288,"isSend":${send},"pid":${pid}}`);
        for (let s = 0; s < 4; s++) {
          const ss = os + 1000 + s * 14000;
          const se = ss + 12000;
          const states = send
            ? `[{"name":"SendGPUWait","id":8,"ts":${ts(ss + 100)}},{"name":"SendPeerWait","id":20,"ts":${ts(ss + 2000)}},{"name":"SendWait","id":9,"ts":${ts(ss + 4000)},"transSize":131072}]`
            : `[{"name":"RecvWait","id":10,"ts":${ts(ss + 100)}},{"name":"RecvFlushWait","id":11,"ts":${ts(ss + 9000)},"transSize":131072},{"name":"RecvGPUWait","id":12,"ts":${ts(ss + 11000)}}]`;
          ev('ProxyStep', op, proxy, ss, se, '', `{"step":${s},"peer":${(r + 1) % RANKS},"channelId":${c},"isSend":${send}}`, states);
        }
      }
    }
    for (let c = 0; c < 2; c++) ev('KernelCh', coll, proxy, t0 + 8500 + c * 200, t0 + 75000 - c * 300, '', `{"channelId":${c},"pTimer":${1000000 + k * 100000}}`, `[{"name":"KernelChStop","id":22,"ts":${ts(t0 + 75000 - c * 300)},"pTimer":${1066000 + k * 100000}}]`);
    const gs = t0 + 8500;
    const ge = t0 + 75000;
    const dur = ge - gs;
    const bw = (1048576 / dur).toFixed(3);
    w(`{"recordType":"timing","eventId":"0x${coll.toString(16)}","type":"ncclProfileColl","ctx":1,"commId":"0xc0ffee","rank":${r},"nranks":${RANKS},"func":"AllReduce","seqNumber":${k},"algo":"RING","proto":"SIMPLE","count":262144,"datatype":"ncclFloat32","bytes":1048576,"apiTs":${ts(t0 + 300)},"enqueue":{"start":${ts(t0 + 2500)},"stop":${ts(t0 + 8000)}},"source":"gpu","start":${ts(gs)},"stop":${ts(ge)},"duration":${us(dur)},"gpu":{"start":${ts(gs)},"stop":${ts(ge)},"channels":2,"batched":false},"proxy":{"start":${ts(pStart)},"stop":${ts(pStop)},"ops":4},"algBw":${bw},"busBw":${(bw * 2 * (RANKS - 1) / RANKS).toFixed(3)}}`);
    t += 100000;
  }
  const counters = `{"eventsStarted":${events},"stopped":${events},"reclaimed":0,"reclaimedByReason":{"abandoned":0,"parent-stopped":0,"no-progress":0,"finalize":0},"inflight":0,"droppedStarts":0,"droppedStates":0,"droppedStops":0,"nullHandles":0,"foreignHandles":0,"doubleStops":0,"unmatchedStops":0,"lateStates":0,"orphanStates":0,"parentsUnknown":0,"liveHighWater":40,"ringHighWaterUnits":100,"threads":2}`;
  w(`{"recordType":"event","type":"ProfilerLifecycle","func":"ProfilerFinalize","ctx":1,"commId":"0xc0ffee","commName":"synth","rank":${r},"nranks":${RANKS},"nNodes":2,"gpuUuid":"","start":${pt(t + 200000, pid, app)},"stop":${pt(t + 200000, pid, app)},"duration":0.000,"details":{"processCounters":${counters}}}`);
  w(`{"recordType":"processEnd","ts":${ts(t + 300000)},"pid":${pid},"reason":"finalize","eventsWritten":${events},"linesLost":0,"counters":${counters}}`);
  flush();
  out.end();
}
console.error(`view_synth: ${RANKS} files, ${ITERS} iterations each, ${ITERS * PER_ITER * RANKS} events in ${dir}`);
