#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# bench/cst_bytes.sh — where the bytes of binary traces (`.cst`) go: per
# frame (its codec, its bytes in the file, header included, the bytes of
# records it decodes to, its records by kind) and, over all files, the
# file bytes of each kind of frame and the decoded bytes of each kind of
# record (line records by their recordType), and what each kind's records
# of a file take compressed alone (zstd -1 against the prefix, summed over
# the files: a rough share of the compressed bytes, since in a frame the
# kinds share matches). Layout: docs/trace-format.md
# "Binary traces"; zstd payloads are decoded with the `zstd` command
# (codec 2 against the prefix text read from src/common/cst_prefix.c).
#
#   bench/cst_bytes.sh [-q] FILE.cst...    (-q: the totals only)
set -euo pipefail
quiet=0
if [ "${1:-}" = -q ]; then quiet=1; shift; fi
[ $# -gt 0 ] || { echo "usage: cst_bytes.sh [-q] FILE.cst..." >&2; exit 2; }
command -v zstd >/dev/null || { echo "cst_bytes.sh: needs the zstd command" >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
exec python3 - "$quiet" "$root/src/common/cst_prefix.c" "$@" <<'PY'
import ast, collections, json, os, re, struct, subprocess, sys, tempfile
quiet, prefix_c, paths = sys.argv[1] == "1", sys.argv[2], sys.argv[3:]
body = open(prefix_c).read().split("cst_prefix[] =", 1)[1].split(";", 1)[0]
prefix = "".join(ast.literal_eval(p) for p in re.findall(r'"(?:\\.|[^"\\])*"', body))
prefix_file = tempfile.NamedTemporaryFile("w", suffix=".prefix", delete=False)
prefix_file.write(prefix)
prefix_file.close()
KINDS = {1: "line", 2: "writer", 3: "context", 4: "event", 5: "timing", 6: "accounting"}
CODECS = {0: "stored", 1: "zstd", 2: "zstd+prefix"}

def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7f) << shift; shift += 7
        if not c & 0x80:
            return v, i

def decode(codec, payload):
    if codec == 0:
        return payload
    extra = ["-D", prefix_file.name] if codec == 2 else []
    return subprocess.run(["zstd", "-q", "-dc"] + extra, input=payload,
                          capture_output=True, check=True).stdout

def kind_name(kind, rec):
    if kind != 1:
        return KINDS.get(kind, f"kind {kind}")
    try:
        line = json.loads(rec)
    except ValueError:
        return "line ?"
    name = "line " + line.get("recordType", "?")
    if line.get("type") == "ProfilerLifecycle":
        name += " lifecycle"
    return name

frames_by = collections.Counter()   # frame class -> file bytes
records_by = collections.Counter()  # record kind -> decoded bytes
count_by = collections.Counter()
alone_by = collections.Counter()    # record kind -> compressed alone
total = headers = 0
for path in paths:
    data = open(path, "rb").read()
    total += len(data)
    headers += 16
    if not quiet:
        print(f"{path}: {len(data)} bytes, version {struct.unpack_from('<H', data, 8)[0]}")
    at, n = 16, 0
    of_file = collections.defaultdict(bytearray)
    while at + 16 <= len(data):
        _, codec, size, nrec = struct.unpack_from("<IB3xII", data, at)
        raw = decode(codec, data[at + 16:at + 16 + size])
        kinds, i = collections.Counter(), 0
        while i < len(raw):
            length, j = varint(raw, i + 1)
            name = kind_name(raw[i], raw[j:j + length])
            kinds[name] += 1
            records_by[name] += j + length - i
            of_file[name] += raw[i:j + length]
            count_by[name] += 1
            i = j + length
        cls = "frame: " + " + ".join(sorted(kinds)) if len(kinds) <= 2 else "frame: many kinds"
        frames_by[cls] += 16 + size
        if not quiet:
            print(f"  frame {n}: {CODECS.get(codec, codec)}, {16 + size} bytes in the file, "
                  f"{len(raw)} decoded, {nrec} records: " +
                  ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
        at += 16 + size
        n += 1
    for name, recs in of_file.items():
        alone_by[name] += len(subprocess.run(
            ["zstd", "-q", "-1", "-c", "-D", prefix_file.name], input=bytes(recs),
            capture_output=True, check=True).stdout)
os.unlink(prefix_file.name)
print(f"{len(paths)} files, {total} bytes: file headers {headers}")
for k, v in frames_by.most_common():
    print(f"  {k}: {v} bytes in the files")
print("records (heads included): decoded bytes, compressed alone")
for k, v in records_by.most_common():
    print(f"  {k}: {count_by[k]} records, {v} bytes, {alone_by[k]} alone")
PY
