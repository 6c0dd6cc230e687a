#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/full_disk.sh — what a full disk and a failing compressor leave
# behind, and where the loss is counted (docs/trace-format.md, "accounting";
# docs/configuration.md, "A full disk"). The disk is filled with `ulimit -f`
# (RLIMIT_FSIZE: each file the process writes stops growing there, with
# EFBIG, as a full disk stops it with ENOSPC), which needs no privileges.
#  1. plain traces capped at 64 KiB: each keeps whole lines; its accounting
#     record (line 2) counts the lines lost (writeErrno EFBIG) and says the
#     process closed the file although processEnd is lost; `cclscope check`
#     passes and says so (not "process killed"); `cclscope summary` counts
#     the lines lost; so does the plugin's own end-of-run summary;
#  2. the same compressed: the files also pass `zstd -t`;
#  3. a compressor whose every call fails (CCLSCOPE_ZSTD_LIBRARY names a
#     libzstd stand-in): the file still holds its first two lines, passes
#     `zstd -t`, and its accounting record counts every lost line, as lost
#     to the compressor; check and both summaries say so;
#  4. a compressed run killed with SIGKILL right after it starts leaves a
#     file that `zstd -t` accepts (its first two lines), never an empty one.
# usage: full_disk.sh NCCLEMU PLUGIN OVERLOAD_DRIVER CCLSCOPE FAILING_LIBZSTD
set -euo pipefail
emu=$1 plugin=$2 driver=$3 cs=$4 failing_zstd=$5
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-full-disk-XXXXXX")
cleanup() { kill -9 "${pid:-}" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v zstd >/dev/null || fail "the zstd command is missing (scripts/install-deps.sh installs it)"
export CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=stderr NCCL_DEBUG=WARN
# ncclemu with 2 ranks, each process's files capped at LIMIT_KIB (ulimit -f
# counts KiB in bash); its stderr (warnings, summaries) in DIR.err, small
# enough for the cap.
run_emu() { # DIR LIMIT_KIB, then the environment's CCLSCOPE_COMPRESS...
  (ulimit -f "$2" && CCLSCOPE_DIR="$1" exec "$emu" --plugin "$plugin" \
    --scenario single-node --ranks-per-node 2 --pace none --seed 3 --sizes 4K,300K \
    --ops 200) >/dev/null 2>"$1.err" || { cat "$1.err"; fail "ncclemu failed"; }
}
# The text of a trace file (decompressed if need be).
text_of() { case $1 in *.zst) zstd -q -d -c "$1" ;; *) cat "$1" ;; esac; }

# The accounting records of the files in DIR, judged by the Python
# expression EXPECT over `a` (the record) and `lines` (the file's lines).
expect_accounting() { # DIR EXPECT WHAT
  for f in "$1"/trace_*; do
    text_of "$f" >"$work/text"
    python3 - "$work/text" "$2" "$f" <<'PY' || fail "$3: $f"
import json, sys
data = open(sys.argv[1], "rb").read()
assert data.endswith(b"\n"), "the text ends inside a line"
lines = [json.loads(l) for l in data.decode().splitlines()]
assert lines[0]["recordType"] == "process", lines[0]
a = lines[1]
assert a["recordType"] == "accounting", a
raw = data.split(b"\n")[1]
assert len(raw) + 1 == 512, f"the accounting line is {len(raw) + 1} bytes, not 512"
assert all(l["recordType"] != "accounting" for l in lines[2:]), "a second accounting record"
ok = eval(sys.argv[2], {"a": a, "lines": lines})
print(sys.argv[3].rsplit("/", 1)[1], "accounting:", json.dumps(a))
assert ok, sys.argv[2]
PY
  done
}

# The plugin's own end-of-run summary: each process counted lost lines.
expect_plugin_summary_counts() { # ERRFILE WHAT
  n=$(grep -cE 'dropped records: [0-9]+ starts, [0-9]+ states, [0-9]+ stops, [1-9][0-9]* trace lines not written' "$1" || true)
  [ "$n" -eq 2 ] || { cat "$1"; fail "$2: the plugin's summary does not count the lost lines in both processes ($n)"; }
}

# `cclscope check` passes with notes; `cclscope summary` counts the loss.
expect_cli_counts() { # DIR WHAT
  "$cs" check "$1" >"$work/check.txt" 2>&1 || { cat "$work/check.txt"; fail "$2: check rejects the files"; }
  cat "$work/check.txt"
  n=$(grep -c 'note\[drops\]: [1-9][0-9]* lines ([0-9]* bytes) could not be written' "$work/check.txt" || true)
  [ "$n" -eq 2 ] || fail "$2: check does not report the lost lines of both files"
  n=$(grep -c 'note\[no-process-end\]: file ends without processEnd: the process closed it ("finalize")' "$work/check.txt" || true)
  [ "$n" -eq 2 ] || fail "$2: check does not say that the processes closed their files"
  ! grep -q 'process killed or still running' "$work/check.txt" || fail "$2: check calls a full disk a killed process"
  "$cs" summary --json "$1" >"$work/summary.json"
  python3 - "$work/summary.json" <<'PY' || fail "$2: summary does not count the lost lines"
import json, sys
health = json.load(open(sys.argv[1]))["health"]
assert len(health) == 2 and all(h["linesLost"] > 0 and not h["processEnd"] for h in health), health
PY
  "$cs" summary "$1" | grep -E '^  trace_.*closed, end lost' >/dev/null ||
    fail "$2: summary's table does not say the files were closed with their end lost"
}

# 1. Plain, 64 KiB per file.
run_emu "$work/plain" 64
expect_accounting "$work/plain" \
  'a["linesLost"] > 100 and a["bytesLost"] > 10000 and a["writeErrors"] >= 1 and a["writeErrno"] == 27 and a["reason"] == "finalize" and a["eventsWritten"] > 100 and a["compressErrors"] == 0 and all(l["recordType"] != "processEnd" for l in lines)' \
  "the accounting record of a full disk"
for f in "$work"/plain/trace_*.jsonl; do
  [ "$(stat -c %s "$f")" -le 65536 ] || fail "a file grew past the cap"
done
grep -q "WARN cclscope: writing '.*' failed (File too large)" "$work/plain.err" || { cat "$work/plain.err"; fail "no warning about the failed write"; }
expect_plugin_summary_counts "$work/plain.err" "plain"
expect_cli_counts "$work/plain" "plain"

# 2. Compressed, 16 KiB per file (smaller than one compressed frame).
CCLSCOPE_COMPRESS=zstd run_emu "$work/zstd" 16
zstd -q -t "$work"/zstd/*.jsonl.zst || fail "zstd -t rejects a compressed trace cut by a full disk"
expect_accounting "$work/zstd" \
  'a["linesLost"] > 100 and a["writeErrors"] >= 1 and a["writeErrno"] == 27 and a["reason"] == "finalize" and a["compressErrors"] == 0' \
  "the accounting record of a full disk (zstd)"
expect_plugin_summary_counts "$work/zstd.err" "zstd"
expect_cli_counts "$work/zstd" "zstd"

# 3. A compressor that fails on every call (no cap on the files).
CCLSCOPE_COMPRESS=zstd CCLSCOPE_ZSTD_LIBRARY=$failing_zstd run_emu "$work/nozstd" unlimited
zstd -q -t "$work"/nozstd/*.jsonl.zst || fail "zstd -t rejects the trace of a failing compressor"
expect_accounting "$work/nozstd" \
  'len(lines) == 2 and a["compressErrors"] >= 1 and a["linesLostCompressing"] > 100 and a["linesLost"] >= a["linesLostCompressing"] and a["writeErrors"] == 0 and a["reason"] == "finalize"' \
  "the accounting record of a failing compressor"
expect_plugin_summary_counts "$work/nozstd.err" "failing compressor"
expect_cli_counts "$work/nozstd" "failing compressor"
grep -q 'the compressor failed on [1-9][0-9]* chunks' "$work/check.txt" || fail "check does not blame the compressor"

# 4. Killed right after the start (no operations, no periodic flush for an
# hour): the file has its first two lines, written when it was created.
CCLSCOPE_DIR="$work/killed" CCLSCOPE_COMPRESS=zstd CCLSCOPE_FLUSH_INTERVAL=3600 \
  "$driver" "$plugin" 0 0 >"$work/killed.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
  grep -q running "$work/killed.log" 2>/dev/null && break
  sleep 0.05
done
grep -q running "$work/killed.log" || { cat "$work/killed.log"; fail "the driver did not start"; }
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
pid=
killed=("$work"/killed/trace_*.jsonl.zst)
[ ${#killed[@]} -eq 1 ] || fail "expected one .jsonl.zst after the kill"
echo "killed right after the start: $(stat -c %s "${killed[0]}") bytes"
zstd -q -t "${killed[0]}" || fail "zstd -t rejects a trace killed right after its start"
expect_accounting "$work/killed" 'a["reason"] is None and a["linesLost"] == 0' \
  "the accounting record of a killed process"
"$cs" check "$work/killed" >"$work/check.txt" 2>&1 || { cat "$work/check.txt"; fail "check rejects the killed trace"; }
grep -q 'note\[no-process-end\]: file ends without processEnd: process killed or still running$' "$work/check.txt" ||
  { cat "$work/check.txt"; fail "the killed trace was not noted as killed"; }
echo "PASS"
