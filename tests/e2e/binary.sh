#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/binary.sh — CCLSCOPE_FORMAT=binary end to end (docs/trace-format.md,
# "Binary traces"), for one ncclemu scenario (the arguments after the tools):
#  1. the same seeded run recorded as JSONL (zstd: no page padding), as
#     binary (plain frames), as binary with zstd frames (level 1, and the
#     fast level -1): `.cst` files that
#     start with the magic number, whose `cclscope convert` is JSONL with the
#     same kinds of line as the JSONL run's (record and event types), the
#     same keys in the same order in its process, accounting and processEnd
#     records, and about as many lines (two runs differ in pids, times,
#     interleaving and, a little, in counts and optional keys: 2.31's
#     KernelPhases, late states); only the process record says
#     "traceFormat":"binary";
#  1a. each zstd payload is a standard zstd frame with a checksum that
#     `zstd -t` accepts, and the fast level's process record says -1;
#  1b. the bytes: JSONL -> binary -> JSONL is the identity, byte for byte
#     (every event and timing line a compact record, the .cst under a
#     quarter of the JSONL), and so is binary -> JSONL -> binary -> JSONL;
#  2. every tool gives the same answer from the binary files as from their
#     conversion: `summary --json`, `check --json`, `hang`, `merge`,
#     `perfetto`, `view` (byte for byte, file names aside), and
#     `ncclemu --replay` makes the same calls (its truth, normalised);
#  3. a frame cut short (the file truncated inside its last frame; stored
#     and zstd) is read up to its last whole record (zstd: of its complete
#     blocks) and reported as a torn binary frame.
# usage: binary.sh NCCLEMU PLUGIN CCLSCOPE NCCLEMU-ARGS...
set -euo pipefail
emu=$1 plugin=$2 cs=$3
shift 3
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-binary-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=off
record() { # DIR FORMAT COMPRESS
  local dir=$1 format=$2 compress=$3
  CCLSCOPE_FORMAT=$format CCLSCOPE_COMPRESS=$compress CCLSCOPE_DIR="$dir" \
    NCCL_DEBUG=WARN "$emu" --plugin "$plugin" --pace none --seed 3 "${ARGS[@]}" \
    >/dev/null 2>"$dir.err" || { cat "$dir.err"; fail "ncclemu failed ($format, $compress)"; }
  if grep -q "WARN cclscope" "$dir.err"; then cat "$dir.err"; fail "warnings ($format, $compress)"; fi
}
ARGS=("$@")

# 1. The same run three ways.
record "$work/jsonl" jsonl zstd
record "$work/bin" binary none
record "$work/binz" binary zstd
record "$work/binf" binary zstd:-1 # one of zstd's fast levels
[ -z "$(find "$work/bin" "$work/binz" -name '*.jsonl*')" ] || fail "JSONL files next to the binary ones"
nb=$(find "$work/bin" -name '*.cst' | wc -l)
nj=$(find "$work/jsonl" -name '*.jsonl.zst' | wc -l)
[ "$nb" -gt 0 ] && [ "$nb" -eq "$nj" ] || fail "expected as many .cst files as .jsonl.zst files, got $nb and $nj"
for f in $(find "$work/bin" "$work/binz" "$work/binf" -name '*.cst'); do
  [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 894353540d0a1a0a ] || fail "$f does not start with the magic number"
done
for d in bin binz binf; do
  "$cs" convert -o "$work/$d.conv" "$work/$d" 2>"$work/$d.conv.err" || { cat "$work/$d.conv.err"; fail "convert of $d failed"; }
  ! grep -qv "^cclscope convert: [0-9]* files (0 in the minimal_profiler format)" "$work/$d.conv.err" ||
    { cat "$work/$d.conv.err"; fail "convert of $d said more than its count"; }
done
mkdir "$work/jsonl.text"
for f in $(find "$work/jsonl" -name '*.jsonl.zst'); do
  "$cs" convert -o "$work/jsonl.text/$(basename "${f%.zst}")" "$f"
done
python3 - "$work/jsonl.text" "$work/bin.conv" "$work/binz.conv" "$work/binf.conv" <<'PY' || fail "the binary traces do not hold the JSONL run's lines"
import glob, json, os, sys

def shape(folder):
    """Each file's lines as (recordType, type, keys), files keyed by their
    first event's rank, then by pid order (two runs: other pids and times)."""
    files = []
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
        raw = open(path, "rb").read()
        assert raw.endswith(b"\n"), path
        lines = []
        formats = set()
        for text in raw.decode().splitlines():
            r = json.loads(text)
            if r.get("recordType") == "process":
                formats.add(r.pop("traceFormat", "jsonl"))
                r.pop("compression", None), r.pop("compressionLevel", None)
            lines.append((r.get("recordType"), r.get("type"), tuple(r)))
        files.append((formats, lines))
    return files

j, b, bz, bf = (shape(f) for f in sys.argv[1:5])
assert all(f == {"jsonl"} for f, _ in j), "a JSONL file says another format"
assert all(f == {"binary"} for f, _ in b + bz + bf), "a binary file does not say so"
def kinds(files):
    """(recordType, type) of every line but late states (their presence
    depends on timing)."""
    return set(l[:2] for _, lines in files for l in lines if l[0] != "state")
def fixed(files):
    """The keys of the records whose shape never depends on the run."""
    return set(l for _, lines in files for l in lines
               if l[0] in ("process", "accounting", "processEnd"))
def lines(files):
    return sum(len(l) for _, l in files)
for other, name in ((b, "binary"), (bz, "binary+zstd"), (bf, "binary+zstd:-1")):
    if kinds(other) != kinds(j):
        sys.exit(f"{name}: kinds of line only there: {kinds(other) - kinds(j)}; "
                 f"only in the JSONL run: {kinds(j) - kinds(other)}")
    assert fixed(other) == fixed(j), (name, fixed(other) ^ fixed(j))
    # ncclemu's runs differ a little in some counts (2.31's KernelPhases)
    assert abs(lines(other) - lines(j)) <= lines(j) // 10, (name, lines(other), lines(j))
    shapes = lambda f: set(l for _, ls in f for l in ls)
    for extra in sorted(shapes(other) ^ shapes(j))[:3]:
        print(f"note: a shape of line in one run only (run-to-run): {extra}")
print(f"{sum(len(l) for _, l in b)} lines in {len(b)} files, as in the JSONL run")
PY

# 1a. The zstd payloads are standard zstd frames with a checksum, made
#     against the container's prefix text (codec 2, src/common/
#     cst_prefix.c, read here from its source), which `zstd -t -D PREFIX`
#     checks, or alone when they hold over 64 KiB of records (codec 1,
#     `zstd -t`; binary frames are compressed whole, trace_zstd.h); the file's
#     first frame (the process record) is one of them, its second the
#     compact accounting record alone (kind 6, 92 bytes, stored); the fast
#     level's files say their level.
command -v zstd >/dev/null || fail "the zstd command is missing (scripts/install-deps.sh installs it)"
src_root=$(cd "$(dirname "$0")/../.." && pwd)
python3 - "$work/payloads" "$src_root/src/common/cst_prefix.c" $(find "$work/binz" "$work/binf" -name '*.cst') <<'PY' || fail "could not take the zstd payloads out"
import ast, os, re, struct, subprocess, sys
out, prefix_c = sys.argv[1], sys.argv[2]
os.makedirs(out)
body = open(prefix_c).read().split("cst_prefix[] =", 1)[1].split(";", 1)[0]
prefix = "".join(ast.literal_eval(p) for p in re.findall(r'"(?:\\.|[^"\\])*"', body))
open(os.path.join(out, "prefix"), "w").write(prefix)
n = 0
for path in sys.argv[3:]:
    data = open(path, "rb").read()
    assert struct.unpack_from("<H", data, 8)[0] == 3, (path, "not version 3")
    at = 16  # the file header
    frame = 0
    while at + 16 <= len(data):
        magic, codec, size, records = struct.unpack_from("<IB3xII", data, at)
        assert magic == 0x46545343, (path, at)
        payload = data[at + 16:at + 16 + size]
        if codec == 1:  # a large frame: made without the prefix
            records_len = len(subprocess.run(["zstd", "-q", "-dc"], input=payload,
                                             capture_output=True, check=True).stdout)
            assert records_len > 64 << 10, (path, at, "a small frame without the prefix")
        if frame == 0:
            assert codec == 2 and records == 1, (path, "the process frame")
        if frame == 1:
            assert (codec, records, payload[:2]) == (0, 1, bytes([6, 92])), (path, "the accounting frame")
            assert len(payload) == 94, (path, "the accounting frame's size")
        if codec in (1, 2):
            assert payload[:4] == bytes.fromhex("28b52ffd"), (path, at)
            assert payload[4] & 4, (path, at, "no content checksum")
            open(os.path.join(out, f"{n}.{codec}.zst"), "wb").write(payload)
            n += 1
        at += 16 + size
        frame += 1
    assert at == len(data), (path, at, len(data))
assert n > 0, "no zstd frames"
print(f"{n} zstd payloads")
PY
zstd -q -t -D "$work/payloads/prefix" "$work"/payloads/*.2.zst || fail "zstd -t rejects a binary frame's payload"
if compgen -G "$work/payloads/*.1.zst" >/dev/null; then
  zstd -q -t "$work"/payloads/*.1.zst || fail "zstd -t rejects a large binary frame's payload"
fi
grep -q '"compression":"zstd","compressionLevel":-1' "$work"/binf.conv/*.jsonl ||
  fail "the zstd:-1 files do not say their level"

# 1b. The bytes: convert --to binary writes every event and timing line of
#     the run as a compact record (none kept as a line: the file is much
#     smaller than the JSONL), and reads back as the very same bytes.
"$cs" convert --to binary -o "$work/jsonl.cst" "$work/jsonl.text" 2>"$work/jsonl.cst.says"
text_bytes=$(cat "$work"/jsonl.text/*.jsonl | wc -c)
cst_bytes=$(cat "$work"/jsonl.cst/*.cst | wc -c)
[ $((cst_bytes * 4)) -lt "$text_bytes" ] ||
  fail "convert --to binary: $cst_bytes bytes for $text_bytes of JSONL (line records?)"
grep -q "as line records (0 of them event or timing lines kept as they are)$" "$work/jsonl.cst.says" ||
  { cat "$work/jsonl.cst.says"; fail "convert --to binary kept event or timing lines as lines"; }
"$cs" convert -o "$work/jsonl.back" "$work/jsonl.cst" 2>/dev/null
for f in "$work"/jsonl.text/*.jsonl; do
  cst="$work/jsonl.cst/$(basename "${f%.jsonl}").cst"
  [ -f "$cst" ] || fail "convert --to binary did not write $cst"
  cmp "$f" "$work/jsonl.back/$(basename "$f")" || fail "JSONL -> binary -> JSONL changed $(basename "$f")"
done
"$cs" convert --to binary -o "$work/bin.again" "$work/bin.conv" 2>/dev/null
"$cs" convert -o "$work/bin.again.conv" "$work/bin.again" 2>/dev/null
diff -r "$work/bin.conv" "$work/bin.again.conv" >/dev/null || fail "binary -> JSONL -> binary -> JSONL changed a file"

# 2. Every tool: the binary files and their conversion give the same answers.
for d in bin binz; do
  for cmd in "summary --json" "check --json" "hang" "merge -o -" "perfetto -o -"; do
    set +e
    (cd "$work/$d" && "$cs" $cmd .) >"$work/a.txt" 2>&1; ra=$?
    (cd "$work/$d.conv" && "$cs" $cmd .) >"$work/b.txt" 2>&1; rb=$?
    set -e
    [ "$ra" -eq "$rb" ] || fail "'$cmd' exits $ra on $d and $rb on its conversion"
    sed -i 's/\.cst\b/.jsonl/g' "$work/a.txt"
    cmp -s "$work/a.txt" "$work/b.txt" || { diff "$work/a.txt" "$work/b.txt" | head; fail "'$cmd' differs between $d and its conversion"; }
    [ -s "$work/a.txt" ] || fail "'$cmd' printed nothing"
  done
done
"$cs" check "$work/bin" | tail -n 1
# view's page, and ncclemu --replay: the calls it makes from the binary
# files and from their conversion are the same (its truth, normalised).
(cd "$work/bin" && "$cs" view --single-file -o "$work/a.html" .) 2>/dev/null
(cd "$work/bin.conv" && "$cs" view --single-file -o "$work/b.html" .) 2>/dev/null
sed -i 's/\.cst\b/.jsonl/g' "$work/a.html"
cmp -s "$work/a.html" "$work/b.html" || fail "view's page differs between bin and its conversion"
for d in bin bin.conv; do
  CCLSCOPE_DIR="$work/replayed.$d" "$emu" --plugin "$plugin" --replay "$work/$d" \
    --truth "$work/truth.$d.jsonl" >"$work/replay.$d.log" 2>&1 ||
    { tail -n 20 "$work/replay.$d.log"; fail "ncclemu --replay of $d failed"; }
  "$emu" --normalize "$work/truth.$d.jsonl".* | sort >"$work/truth.$d.txt"
done
[ -s "$work/truth.bin.txt" ] || fail "the replay called nothing"
cmp -s "$work/truth.bin.txt" "$work/truth.bin.conv.txt" ||
  { diff "$work/truth.bin.txt" "$work/truth.bin.conv.txt" | head; fail "ncclemu --replay makes other calls from the binary files"; }

# 3. A torn last frame: each file cut 7 bytes before its end. Stored frames
#    give every whole record before the cut; zstd frames those of their
#    complete blocks: a prefix of the file's lines, and the cut is said.
mkdir "$work/torn"
for d in bin binz; do
  f=$(find "$work/$d" -name '*.cst' | sort | head -n 1)
  size=$(stat -c %s "$f")
  head -c $((size - 7)) "$f" >"$work/torn/$d.cst"
  set +e
  "$cs" convert -o "$work/torn/$d.jsonl" "$work/torn/$d.cst" 2>"$work/torn/$d.err"; rc=$?
  set -e
  grep -q "ends inside a binary trace frame" "$work/torn/$d.err" ||
    { cat "$work/torn/$d.err"; fail "the torn frame of $d is not reported (rc $rc)"; }
  full="$work/$d.conv/$(basename "${f%.cst}").jsonl"
  whole=$(wc -l <"$full")
  got=$(wc -l <"$work/torn/$d.jsonl")
  if [ "$d" = bin ]; then
    [ "$got" -eq $((whole - 1)) ] || fail "expected the $((whole - 1)) whole records before the cut, got $got"
  else
    [ "$got" -lt "$whole" ] && [ "$got" -ge 2 ] || fail "$got records of $whole read from the torn zstd frame's file"
  fi
  cmp -s "$work/torn/$d.jsonl" <(head -n "$got" "$full") || fail "the records before the cut differ ($d)"
  cat "$work/torn/$d.err"
done
echo "PASS"
