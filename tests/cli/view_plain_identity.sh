#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/cli/view_plain_identity.sh — `cclscope view` makes the detail lines
# of lines written without whitespace (the plugin's) in one pass that
# copies them in runs (src/cli/view/view_data.c, plain_line), and those of
# any other line through the JSON iterator. Both ways must give the same
# bytes: the same traces are viewed as they are (the one-pass way) and
# with a space before each line's closing brace (which sends every line
# the general way; nothing else in a line changes), and the pages and
# tiles must be identical, with -j 1 and 2, detail in the page and in
# tiles, sorted through temporary files. The traces: an ncclemu run of 4
# single-rank processes with every event type, and the hand-made
# fixtures/view_detail_forms.jsonl (time keys nested in objects and
# arrays, nesting deeper than the rewrite goes, escapes, the characters a
# tile's template literal escapes at every offset of a word, whitespace,
# escaped keys). The tiles' escaping is checked too: undone, it gives back
# the input's strings.
# usage: view_plain_identity.sh NCCLEMU PLUGIN CCLSCOPE FIXTURES_DIR
set -euo pipefail
emu=$1 plugin=$2 cs=$3 fx=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-view-plain-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/plain/trace" "$work/spaced/trace"
CCLSCOPE_DIR="$work/emu" CCLSCOPE_SUMMARY=off CCLSCOPE_MASK=all "$emu" \
  --plugin "$plugin" --scenario mixed --nodes 2 --ranks-per-node 2 \
  --ranks-per-process 1 --ops 2 --pace none --quiet --max-callback-ms 5000
cp "$work/emu"/*.jsonl "$fx/view_detail_forms.jsonl" "$work/plain/trace/"
for f in "$work/plain/trace"/*.jsonl; do
  sed 's/}$/ }/' "$f" >"$work/spaced/trace/${f##*/}"
done
if cmp -s "$work/plain/trace/view_detail_forms.jsonl" \
  "$work/spaced/trace/view_detail_forms.jsonl"; then
  echo "FAIL: the spaced copy is the same as the input"
  exit 1
fi
compared=0
for j in 1 2; do
  for detail in 28 0; do
    for form in plain spaced; do
      (cd "$work/$form" && rm -rf page.html page.files &&
        "$cs" -q -j "$j" view --no-summary --memory-mb 1 --detail-mb "$detail" \
          -o page.html trace)
    done
    if ! cmp "$work/plain/page.html" "$work/spaced/page.html"; then
      echo "FAIL: -j $j --detail-mb $detail: the page differs when no line is plain"
      exit 1
    fi
    if [ -e "$work/plain/page.files" ] || [ -e "$work/spaced/page.files" ]; then
      if ! diff -r "$work/plain/page.files" "$work/spaced/page.files"; then
        echo "FAIL: -j $j --detail-mb $detail: the tiles differ when no line is plain"
        exit 1
      fi
    fi
    compared=$((compared + 1))
  done
done
# --detail-mb 0: every detail line is in the tiles (the last run's)
tiles=$(cat "$work/plain/page.files"/tile-*.js | wc -l)
if [ "$tiles" -lt 1000 ]; then
  echo "FAIL: the tiles have $tiles lines (want every detail line)"
  exit 1
fi
# in a tile, every backslash, backquote and $ inside its template literal
# is escaped: with each escape pair taken out, only the literal's two
# backquotes are left, and no $
for t in "$work/plain/page.files"/tile-*.js; do
  left=$(sed 's/\\.//g' "$t" | tr -cd '`$')
  if [ "$left" != '``' ]; then
    echo "FAIL: ${t##*/} has unescaped characters in its literal: $left"
    exit 1
  fi
done
# the template literal's escaping undone gives the input's strings back
undone=$(sed 's/\\\(.\)/\1/g' "$work/plain/page.files"/tile-*.js)
for s in '"s0":"`"' '"s1":"a$"' '"s3":"abc`$"' '"s5":"abcde${x}"' \
  '"s6":"abcdef\\`"' '"s7":"abcdefg$$$``\\\\"' '"s4":"abcd\"`"'; do
  if ! grep -qF -- "$s" <<<"$undone"; then
    echo "FAIL: the tiles do not give back $s"
    exit 1
  fi
done
echo "ok: $compared pages and their tiles the same, plain lines or not"
