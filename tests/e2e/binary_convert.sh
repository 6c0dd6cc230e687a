#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/binary_convert.sh — `cclscope convert --to binary` writes the
# compact records the plugin writes, and reading the file back gives its
# input byte for byte (docs/cli.md "convert", docs/trace-format.md "Binary
# traces"):
#  1. JSONL runs of several small scenarios (every event type between them:
#     P2p and its API, CE collectives, socket parent hints, reclaimed
#     ends, PXN, RCCL's proxyOp fields and ProxyDiagUpdate states
#     (31, and 32 from 2.31), 2.31's KernelPhase):
#     every event and timing line becomes a compact record (the summary
#     says 0 kept as lines), the .cst is much smaller than the JSONL, and
#     .cst -> JSONL is the input, byte for byte;
#  2. edited lines (a key added, keys swapped, another commId for a context
#     serial) stay line records, exactly those, and the file still reads
#     back exactly; a timing line of another writer identity (host name)
#     is still a compact record (its frame ends and the next tells it),
#     and so is an in-flight end;
#  3. a plain (not compressed) JSONL file, whose page padding no compact
#     record can hold, reads back exactly too;
#  4. a minimal_profiler trace converts (and reads back as its conversion
#     to JSONL does).
# usage: binary_convert.sh NCCLEMU PLUGIN CCLSCOPE MINIMAL_PROFILER_DIR
set -euo pipefail
emu=$1 plugin=$2 cs=$3 minimal=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-binconv-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=off

record() { # NAME COMPRESS NCCLEMU-ARGS...: the run's JSONL text in $work/NAME.text
  local name=$1 compress=$2
  shift 2
  CCLSCOPE_FORMAT=jsonl CCLSCOPE_COMPRESS=$compress CCLSCOPE_DIR="$work/$name" \
    NCCL_DEBUG=WARN "$emu" --plugin "$plugin" --pace none --seed 3 "$@" \
    >/dev/null 2>"$work/$name.err" || { cat "$work/$name.err"; fail "ncclemu failed ($name)"; }
  mkdir "$work/$name.text"
  for f in "$work/$name"/*; do
    local base
    base=$(basename "$f")
    "$cs" -q convert -o "$work/$name.text/${base%.zst}" "$f"
  done
}

# to_binary NAME: NAME.text -> NAME.cst -> NAME.back; the summary in NAME.says
to_binary() {
  local name=$1
  mkdir "$work/$name.cst" "$work/$name.back" # folders, even for one file
  "$cs" convert --to binary -o "$work/$name.cst" "$work/$name.text" 2>"$work/$name.says" ||
    { cat "$work/$name.says"; fail "convert --to binary of $name failed"; }
  "$cs" -q convert -o "$work/$name.back" "$work/$name.cst"
  for f in "$work/$name.text"/*; do
    local back="$work/$name.back/$(basename "${f%.jsonl}").jsonl"
    cmp "$f" "$back" || fail "$name: JSONL -> binary -> JSONL changed $(basename "$f")"
  done
}

# kept_as_lines NAME: the event and timing lines the summary says stayed lines
kept_as_lines() {
  sed -n 's/.* as line records (\([0-9]*\) of them event or timing lines kept as they are)$/\1/p' "$work/$1.says"
}

bytes() { cat "$1"/* | wc -c; }

# 1. Scenarios: all compact, much smaller, exact.
record chaos zstd --scenario chaos --ops 4
record sendrecv zstd --scenario sendrecv --ops 2
record ce zstd --scenario ce --ops 2
record socket zstd --scenario socket --ops 2
record pxn zstd --scenario pxn --ops 2
record rccl zstd --host rccl --scenario multi-node --ops 2
record rccl231 zstd --host rccl --nccl-version 2.31 --scenario multi-node --ops 2
record phases zstd --scenario single-node --nccl-version 2.31 --ops 8
for name in chaos sendrecv ce socket pxn rccl rccl231 phases; do
  to_binary "$name"
  cat "$work/$name.says"
  text=$(bytes "$work/$name.text") cst=$(bytes "$work/$name.cst")
  # line records would take at least the JSONL's bytes
  [ $((cst * 4)) -lt "$text" ] || fail "$name: $cst bytes of .cst for $text of JSONL"
  [ "$(kept_as_lines "$name")" = 0 ] || fail "$name: event or timing lines kept as lines"
  events=$(cat "$work/$name.text"/* | grep -c '^{"recordType":"\(event\|timing\)","\(type":"ncclProfile\|runId\)' || true)
  grep -q "^cclscope convert: $events lines as compact records" "$work/$name.says" ||
    fail "$name: expected its $events event and timing lines as compact records"
  echo "$name: $text bytes of JSONL -> $cst bytes"
done
# the types the scenarios cover between them
for type in Coll CollApi P2p P2pApi ProxyOp ProxyStep ProxyCtrl KernelCh NetPlugin \
  Group GroupApi KernelLaunch CeColl CeSync CeBatch KernelPhase; do
  grep -q "\"type\":\"ncclProfile$type\"" "$work"/*.text/* || fail "no $type event in the scenarios"
done
grep -q '"end":"reclaimed"' "$work"/*.text/* || fail "no reclaimed event in the scenarios"
grep -q '"parentHint"' "$work"/*.text/* || fail "no parent hint in the scenarios"
grep -q '"isPxn":true' "$work"/*.text/* || fail "no PXN event in the scenarios"
grep -q '"traceFuncIdx"' "$work"/*.text/* || fail "no RCCL proxyOp in the scenarios"
grep -q '"name":"ProxyDiagUpdate","id":31' "$work"/*.text/* || fail "no RCCL ProxyDiagUpdate (31) in the scenarios"
grep -q '"name":"ProxyDiagUpdate","id":32' "$work"/*.text/* || fail "no RCCL 2.31 ProxyDiagUpdate (32) in the scenarios"

# 2. Edited lines: each one that a compact record would change stays a line.
mkdir "$work/edited.text"
f=$(ls "$work/pxn.text"/*.jsonl | head -n 1)
out="$work/edited.text/$(basename "$f")"
python3 - "$f" "$out" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
events = [i for i, l in enumerate(lines)
          if l.startswith('{"recordType":"event","type":"ncclProfileProxyStep"')
          and re.search(r'"ctx":\d+,"commId":"0x', l)]
timings = [i for i, l in enumerate(lines) if l.startswith('{"recordType":"timing"')]
assert len(events) > 30 and timings, "too few lines to edit"
a, b, c = events[10], events[20], events[30]
# a key the formatter never writes
lines[a] = lines[a][:-1] + ',"note":"edited"}'
# two keys swapped (the same content in another order)
rank = re.search(r',"rank":(-?\d+)', lines[b])
lines[b] = lines[b].replace(rank.group(0), "", 1)
lines[b] = lines[b].replace('"ctx":', '"rank":%s,"ctx":' % rank.group(1), 1)
# another commId for a serial the file already used with its own
lines[c] = re.sub(r'"commId":"0x[0-9a-f]+"', '"commId":"0x1234"', lines[c], 1)
# a timing line from another host: still a compact record
t = timings[len(timings) // 2]
lines[t] = re.sub(r'"hostname":"[^"]*"', '"hostname":"elsewhere"', lines[t], 1)
open(sys.argv[2], "w").write("\n".join(lines))
PY
cmp -s "$f" "$out" && fail "the edits changed nothing"
to_binary edited
cat "$work/edited.says"
[ "$(kept_as_lines edited)" = 3 ] || fail "expected the 3 edited event lines kept as lines"

# 2a. An in-flight end (what the plugin writes for an event still open at
#     exit; no scenario here leaves one): a reclaimed line rewritten so is
#     still a compact record.
mkdir "$work/inflight.text"
f=$(grep -l '"end":"reclaimed"' "$work/chaos.text"/* | head -n 1)
sed '0,/"end":"reclaimed","reclaimReason":"[a-z_]*",/s//"end":"inflight",/' "$f" \
  >"$work/inflight.text/$(basename "$f")"
grep -q '"end":"inflight"' "$work/inflight.text"/* || fail "no in-flight line made"
to_binary inflight
[ "$(kept_as_lines inflight)" = 0 ] || fail "the in-flight line was kept as a line"

# 3. Plain JSONL: its page padding stays in line records, read back exactly.
record plain none --scenario multi-node --ops 2
grep -q '^{"recordType":"event",.* }$' "$work/plain.text"/* || fail "the plain file has no padded event line"
to_binary plain
cat "$work/plain.says"
[ "$(kept_as_lines plain)" -gt 0 ] || fail "padded lines are not compact records: expected some kept as lines"

# 4. minimal_profiler traces convert, and read back as their JSONL conversion.
"$cs" convert --to binary -o "$work/minimal.cst" "$minimal" 2>"$work/minimal.says" ||
  { cat "$work/minimal.says"; fail "convert --to binary of the minimal_profiler traces failed"; }
cat "$work/minimal.says"
grep -q "in the minimal_profiler format" "$work/minimal.says" || fail "the minimal_profiler input was not said"
"$cs" -q convert -o "$work/minimal.back" "$work/minimal.cst"
"$cs" -q convert -o "$work/minimal.text" "$minimal"
diff -r "$work/minimal.text" "$work/minimal.back" >/dev/null ||
  fail "the minimal_profiler traces read back from binary differ from their JSONL conversion"
echo "PASS"
