#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/cli/inputs.sh — what the CLI reads (docs/cli.md, "Inputs"):
#  - .jsonl.zst and .jsonl.gz files (also multi-frame / multi-member ones,
#    and in folders) give exactly the output of the plain file (check,
#    summary, hang, merge, convert: they all read through tr_open);
#  - "-" reads standard input (a pipe or a redirected file, plain or
#    compressed), once;
#  - a compressed file cut inside its last frame is read up to it, with a
#    note (exit 0); corrupt compressed data is an error (exit 1);
#  - a file that is not a trace (binary, text, a .zst of something else) is
#    an error naming the file (exit 1), never "N invalid lines skipped"
#    (every reading command on one of them, check on the others: they all
#    go through the same tr_open).
# usage: inputs.sh CCLSCOPE FIXTURES
set -euo pipefail
cs=$1 fix=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-inputs-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v zstd >/dev/null || fail "the zstd command is missing (scripts/install-deps.sh installs it)"
cd "$work"

# Two traces, plain, in a folder; the same compressed (the first in two
# zstd frames, the second in two gzip members) in another.
mkdir plain packed
cp "$fix/clean.jsonl" plain/a.jsonl
cp "$fix/killed.jsonl" plain/b.jsonl
head -n 5 plain/a.jsonl | zstd -q -c >packed/a.jsonl.zst
tail -n +6 plain/a.jsonl | zstd -q -c >>packed/a.jsonl.zst
head -n 3 plain/b.jsonl | gzip -c >packed/b.jsonl.gz
tail -n +4 plain/b.jsonl | gzip -c >>packed/b.jsonl.gz
same() { # NAME: out.plain and out.packed agree once the names (and the
  # table widths they set) are aligned
  sed -i 's/\.jsonl\.\(zst\|gz\)/.jsonl/g; s/packed/plain/g; s/  */ /g' out.packed
  sed -i 's/  */ /g' out.plain
  cmp -s out.plain out.packed || { diff out.plain out.packed | head -20; fail "$1 differs"; }
}
for cmd in check "summary --json" hang; do
  "$cs" $cmd plain >out.plain 2>&1 || true
  "$cs" $cmd packed >out.packed 2>&1 || true
  same "$cmd"
done
"$cs" check packed >/dev/null || fail "check rejects the compressed fixtures"
"$cs" merge -o plain.out plain >/dev/null 2>&1
"$cs" merge -o packed.out packed >/dev/null 2>&1
cmp -s plain.out packed.out || fail "merge output differs"
"$cs" convert -o - packed/a.jsonl.zst >out.packed
cmp -s out.packed plain/a.jsonl || fail "convert does not give back the plain text"

# Standard input: a pipe (gzip), a redirected .zst, a plain pipe.
"$cs" summary plain/b.jsonl | sed 's|\(plain/\)\?b\.jsonl|-|g' >out.plain
gzip -c plain/b.jsonl | "$cs" summary - >out.packed
same "summary - (a gzip pipe)"
"$cs" check plain/a.jsonl | sed 's|\(plain/\)\?a\.jsonl|-|g' >out.plain
"$cs" check - <packed/a.jsonl.zst >out.packed
same "check - (a .zst file as stdin)"
cat plain/a.jsonl | "$cs" convert -o - - >out.packed
cmp -s out.packed plain/a.jsonl || fail "convert - does not copy stdin"
if "$cs" check - - <plain/a.jsonl >out.txt 2>&1; then fail "'-' twice accepted"; fi
grep -q "'-' (standard input) is given twice" out.txt || { cat out.txt; fail "no message for '-' twice"; }

# Cut inside the last frame: read up to it, with a note; corrupt: an error.
size=$(stat -c %s packed/a.jsonl.zst)
head -c $((size - 10)) packed/a.jsonl.zst >cut.jsonl.zst
"$cs" check cut.jsonl.zst >out.txt 2>&1 || { cat out.txt; fail "check rejects a cut .zst"; }
grep -q "'cut.jsonl.zst' ends inside a compressed frame" out.txt || { cat out.txt; fail "no note for the cut frame"; }
grep -q "1 file, 5 records" out.txt || { cat out.txt; fail "the whole first frame was not read"; }
head -c 100 packed/a.jsonl.zst >bad.jsonl.zst
head -c 2000 /dev/zero | tr '\0' 'x' >>bad.jsonl.zst
if "$cs" summary bad.jsonl.zst >out.txt 2>&1; then cat out.txt; fail "corrupt .zst accepted"; fi
grep -q "corrupt compressed data" out.txt || { cat out.txt; fail "no message for corrupt data"; }

# Not traces.
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\1' >image.png
printf 'hello world\nthis is text\n' >notes.txt
printf 'hello\n' | zstd -q -c >other.jsonl.zst
printf '%s\n' '[1,2,3]' >array.jsonl
for f in image.png notes.txt other.jsonl.zst array.jsonl; do
  cmds=(check)
  [ "$f" = image.png ] && cmds=(check summary "convert -o out.x" "merge -o out.x" "perfetto -o out.x")
  for cmd in "${cmds[@]}"; do
    if "$cs" $cmd "$f" >out.txt 2>&1; then cat out.txt; fail "$cmd $f: exit 0"; fi
    grep -q "$f.*not a cclscope trace" out.txt || { cat out.txt; fail "$cmd $f: no clear message"; }
    if grep -q "invalid lines skipped" out.txt; then fail "$cmd $f: read as invalid lines"; fi
  done
done
echo "PASS"
