#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/compress.sh — CCLSCOPE_COMPRESS=zstd end to end (docs/trace-format.md,
# "Compressed traces"):
#  1. the same seeded ncclemu run, plain and compressed: the .jsonl.zst files
#     are >= 5x smaller, pass `zstd -t` and `cclscope check`, hold the same
#     records as the plain ones, and `cclscope summary` prints the same for
#     them as for their `zstd -d` copies;
#     (CCLSCOPE_DIRECT_IO=on is warned about and not used);
#  2. without libzstd (CCLSCOPE_ZSTD_LIBRARY names a missing one): plain
#     .jsonl and one warning;
#  3. a process killed with SIGKILL mid-run leaves a .jsonl.zst of whole
#     frames (`zstd -t` passes; a frame torn by the kill is the only thing
#     allowed to fail it, and then `cclscope` says it left it out), whose text
#     is whole JSON lines, and that `cclscope check` reads (exit 0).
# usage: compress.sh NCCLEMU PLUGIN OVERLOAD_DRIVER CCLSCOPE
set -euo pipefail
emu=$1 plugin=$2 driver=$3 cs=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-compress-XXXXXX")
cleanup() { kill -9 "${pid:-}" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/kill_mid_run.sh"
command -v zstd >/dev/null || fail "the zstd command is missing (scripts/install-deps.sh installs it)"
export CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=off
run_emu() { # DIR OPS, then the environment's CCLSCOPE_COMPRESS; warnings on stderr
  CCLSCOPE_DIR="$1" NCCL_DEBUG=WARN "$emu" --plugin "$plugin" --scenario single-node \
    --ranks-per-node 2 --pace none --seed 3 --sizes 4K,300K --ops "$2" >/dev/null
}

# 1. Plain and compressed, same seed.
CCLSCOPE_COMPRESS=none run_emu "$work/plain" 20
# (CCLSCOPE_DIRECT_IO=on cannot apply to compressed frames: one warning each)
CCLSCOPE_COMPRESS=zstd CCLSCOPE_DIRECT_IO=on run_emu "$work/zstd" 20 2>"$work/zstd.err"
n=$(grep -c "WARN cclscope: CCLSCOPE_DIRECT_IO=on is ignored with CCLSCOPE_COMPRESS=zstd" "$work/zstd.err" || true)
[ "$n" -eq 2 ] || { cat "$work/zstd.err"; fail "expected the DIRECT_IO warning once per process (2), got $n"; }
[ "$(grep -c "WARN cclscope" "$work/zstd.err")" -eq 2 ] || { cat "$work/zstd.err"; fail "other warnings with libzstd present"; }
grep -q '"directIo":false,"compression":"zstd","compressionLevel":1' <(zstd -dc "$work"/zstd/*.jsonl.zst) ||
  fail "the process record does not say zstd level 1 (the default)"
plain=("$work"/plain/*.jsonl) zst=("$work"/zstd/*.jsonl.zst)
[ ${#plain[@]} -eq 2 ] && [ ${#zst[@]} -eq 2 ] ||
  fail "expected 2 + 2 trace files, got ${#plain[@]} plain and ${#zst[@]} .jsonl.zst"
[ -z "$(ls "$work"/zstd/*.jsonl 2>/dev/null)" ] || fail "plain files next to the compressed ones"
pbytes=$(cat "${plain[@]}" | wc -c) zbytes=$(cat "${zst[@]}" | wc -c)
echo "plain $pbytes bytes, zstd $zbytes bytes: $((pbytes / zbytes))x"
[ $((zbytes * 5)) -le "$pbytes" ] || fail "compressed traces are not >= 5x smaller"
zstd -q -t "${zst[@]}" || fail "zstd -t rejects a compressed trace"
"$cs" check "$work/zstd" >"$work/check.txt" 2>&1 || { cat "$work/check.txt"; fail "check rejects the compressed traces"; }
grep -q ' 0 errors, 0 notes — OK' "$work/check.txt" || { cat "$work/check.txt"; fail "check found something"; }
"$cs" summary --json "$work/plain" >"$work/plain.json"
"$cs" summary --json "$work/zstd" >"$work/zstd.json"
python3 - "$work/plain.json" "$work/zstd.json" <<'PY' || fail "plain and compressed runs differ"
import json, sys
p, z = (json.load(open(f))["inputs"] for f in sys.argv[1:3])
assert p["records"] == z["records"] > 100, (p["records"], z["records"])
assert p["invalidLines"] == z["invalidLines"] == 0
PY
mkdir "$work/unzipped"
for f in "${zst[@]}"; do zstd -q -d "$f" -o "$work/unzipped/$(basename "${f%.zst}")"; done
for cmd in summary "check --json"; do
  (cd "$work/zstd" && "$cs" $cmd .) >"$work/a.txt" 2>&1
  (cd "$work/unzipped" && "$cs" $cmd .) >"$work/b.txt" 2>&1
  sed -i 's/\.jsonl\.zst/.jsonl/g' "$work/a.txt"
  cmp -s "$work/a.txt" "$work/b.txt" || { diff "$work/a.txt" "$work/b.txt" | head; fail "'$cmd' differs between .jsonl.zst and .jsonl"; }
done
"$cs" summary "$work/zstd" | head -1

# 2. No libzstd: plain JSONL and one warning.
CCLSCOPE_COMPRESS=zstd CCLSCOPE_ZSTD_LIBRARY="$work/no-such-libzstd.so.1" \
  run_emu "$work/nolib" 1 2>"$work/nolib.err"
[ "$(ls "$work"/nolib/*.jsonl | wc -l)" -eq 2 ] || fail "no plain traces without libzstd"
[ -z "$(ls "$work"/nolib/*.zst 2>/dev/null)" ] || fail ".zst files without libzstd"
n=$(grep -c 'CCLSCOPE_COMPRESS=zstd: no usable libzstd' "$work/nolib.err" || true)
[ "$n" -eq 2 ] || { cat "$work/nolib.err"; fail "expected one warning per process (2), got $n"; }

# 3. SIGKILL mid-run, frames flushed every 20 ms.
CCLSCOPE_DIR="$work/killed" CCLSCOPE_COMPRESS=zstd CCLSCOPE_FLUSH_INTERVAL=0.02 \
  "$driver" "$plugin" 1 0 >"$work/killed.log" &
pid=$!
kill_when_written "$pid" "$work/killed.log" "$work/killed/trace_*.jsonl.zst" 20000
pid=
killed=("$work"/killed/trace_*.jsonl.zst)
[ ${#killed[@]} -eq 1 ] || fail "expected one .jsonl.zst after the kill"
"$cs" check "$work/killed" >"$work/check2.txt" 2>&1 || { cat "$work/check2.txt"; fail "check rejects the killed trace"; }
grep -q 'note\[no-process-end\]' "$work/check2.txt" || { cat "$work/check2.txt"; fail "the killed trace was not noted as killed"; }
if ! zstd -q -t "${killed[0]}" 2>/dev/null; then
  # only a frame torn by the kill itself may fail it: cclscope says so
  grep -q 'ends inside a compressed frame' "$work/check2.txt" ||
    fail "zstd -t rejects the killed trace, and not because of a torn last frame"
  echo "the kill tore the last frame (left out, with a note)"
fi
zstd -q -d -c "${killed[0]}" 2>/dev/null >"$work/killed.txt" || true
python3 - "$work/killed.txt" <<'PY' || fail "the killed trace's text is not whole JSON lines"
import json, sys
data = open(sys.argv[1], "rb").read()
assert data.endswith(b"\n"), "the text ends inside a line"
lines = data.decode().splitlines()
for l in lines:
    json.loads(l)
assert len(lines) > 500, len(lines)
print(f"killed: {len(lines)} whole lines")
PY
tail -n 1 "$work/check2.txt"
echo "PASS"
