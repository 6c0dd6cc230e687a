#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/cli/inputs_torn.sh — what the CLI says of a compressed trace cut in
# the middle of its last frame (zstd) or member (gzip) is true
# (docs/cli.md, "Compressed traces"): where the last complete one ends,
# how many bytes follow it, how much text was decoded from the cut one
# and read, and how many lines were read, each against what `zstd -dc` /
# `gzip -dc` themselves get out of the same file. (It used to say that
# the cut frame's bytes were "left out" when most of its text was read.)
# usage: inputs_torn.sh CCLSCOPE FIXTURES
set -euo pipefail
cs=$1 fix=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-torn-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v zstd >/dev/null || fail "the zstd command is missing (scripts/install-deps.sh installs it)"
cd "$work"

# About 2 MB of trace lines that do not compress to nothing (a random
# member in each): many 128 KiB blocks in one frame.
for _ in $(seq 600); do cat "$fix/clean.jsonl"; done |
  awk 'BEGIN { srand(7) } { sub(/^[{]/, "{\"r\":\"" int(rand() * 1e9) "-" int(rand() * 1e9) "\","); print }' >big.jsonl
lines_of() { # FILE: the lines a reader gets from the decodable text
  local text=$1 n
  n=$(wc -l <"$text")
  [ -s "$text" ] && [ "$(tail -c 1 "$text" | od -An -c | tr -d ' ')" != '\n' ] && n=$((n + 1))
  echo "$n"
}
said=0  # the bytes of text the last note said were decoded and read
expect_note() { # FILE TOOL UNIT WHERE: the note on FILE says what TOOL -dc decodes
  local file=$1 tool=$2 unit=$3 where=$4
  "$tool" -dc "$file" >decoded.txt 2>/dev/null || true
  local text lines
  lines=$(lines_of decoded.txt)
  "$cs" check "$file" >out.txt 2>err.txt || true
  grep -q "left out" err.txt && { cat err.txt; fail "$file: still says 'left out'"; }
  grep -q "^cclscope: '$file' ends inside a compressed $unit (its writer was killed while writing it?): $where; " err.txt ||
    { cat err.txt; fail "$file: not where the cut $unit is ($where)"; }
  text=$(sed -n "s/.*; \([0-9]*\) bytes of text were decoded from that $unit and are read; .*/\1/p" err.txt)
  [ -n "$text" ] || { cat err.txt; fail "$file: no decoded byte count"; }
  grep -q "; $lines lines read in all" err.txt || { cat err.txt; fail "$file: not $lines lines read"; }
  said=$text
}

# One frame, cut at 30 000 bytes: none complete, its complete blocks read.
zstd -q -1 -c big.jsonl >one.zst
head -c 30000 one.zst >cut1.jsonl.zst
expect_note cut1.jsonl.zst zstd frame "no frame of it is complete: its 30000 bytes are one frame without its end"
text=$said
[ "$text" -eq "$(stat -c %s decoded.txt)" ] || fail "cut1: $text bytes said, zstd decodes $(stat -c %s decoded.txt)"
[ "$text" -gt 0 ] || fail "cut1: nothing decoded (the test needs whole blocks)"

# Two frames, the second cut: the first ends where its file ended.
head -c 20000 big.jsonl | zstd -q -c >first.zst
tail -c +20001 big.jsonl | zstd -q -1 -c >second.zst
first=$(stat -c %s first.zst)
cat first.zst second.zst >both.zst
head -c $((first + 40000)) both.zst >cut2.jsonl.zst
expect_note cut2.jsonl.zst zstd frame "its last complete frame ends at byte $first, the 40000 bytes after it are a frame without its end"
text=$said
[ "$text" -eq $(($(stat -c %s decoded.txt) - 20000)) ] || fail "cut2: $text bytes said of the cut frame"

# gzip: two members, the second cut.
head -c 20000 big.jsonl | gzip -c >first.gz
tail -c +20001 big.jsonl | gzip -c >second.gz
first=$(stat -c %s first.gz)
cat first.gz second.gz >both.gz
head -c $((first + 40000)) both.gz >cut3.jsonl.gz
expect_note cut3.jsonl.gz gzip member "its last complete member ends at byte $first, the 40000 bytes after it are a member without its end"
text=$said
decoded=$(stat -c %s decoded.txt)
# zlib may hold back up to a window it has not yet been able to flush
[ "$text" -le $((decoded - 20000)) ] && [ "$text" -ge $((decoded - 20000 - 65536)) ] ||
  fail "cut3: $text bytes said of the cut member, gzip decodes $((decoded - 20000))"
echo "PASS"
