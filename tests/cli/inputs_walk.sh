#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/cli/inputs_walk.sh — folder arguments are walked into their
# subfolders, and every file is read once (docs/cli.md, "Inputs"):
#  - a run copied as per-node folders (run/node0/…, run/node1/sub/…) gives
#    every command (check, summary, merge, perfetto, view, convert, otf2,
#    hang) the output of the same files in one flat folder; hidden folders
#    are not entered, a symbolic link back to a folder being read (a loop)
#    and a link to a file already read add nothing, and both are said;
#  - a file named twice, or named beside its folder, is read once, with a
#    note: `summary T T` prints what `summary T` prints (it used to count
#    every collective twice).
# usage: inputs_walk.sh CCLSCOPE FIXTURES
set -euo pipefail
cs=$1 fix=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-walk-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"

# The same two traces flat and as per-node folders; beside them in run/
# what must not be read: a hidden folder holding a trace, a text file, a
# link back to run/ and a second name of a trace.
mkdir -p flat run/node0 run/node1/sub run/.cache
cp "$fix/clean.jsonl" flat/a.jsonl
cp "$fix/killed.jsonl" flat/b.jsonl
cp "$fix/clean.jsonl" run/node0/a.jsonl
cp "$fix/killed.jsonl" run/node1/sub/b.jsonl
cp "$fix/invalid_json.jsonl" run/.cache/c.jsonl
printf 'not a trace\n' >run/node1/notes.txt
ln -s .. run/node0/loop
ln -s ../node0/a.jsonl run/node1/again.jsonl

# Outputs agree once the folder part of the names (and the table widths it
# sets) is taken out.
norm() { sed -e 's#run/node0/##g; s#run/node1/sub/##g; s#flat/##g' -e 's/  */ /g' "$1"; }
same() { # WHAT: out.flat and out.run agree
  norm out.flat >n.flat
  norm out.run >n.run
  cmp -s n.flat n.run || { diff n.flat n.run | head -20; fail "$1: the nested folders give another output"; }
}
for cmd in check "check --json" summary "summary --json"; do
  "$cs" $cmd flat >out.flat 2>/dev/null || true
  "$cs" $cmd run >out.run 2>err.run || true
  same "$cmd"
done
grep -q "the folder 'run/node0/loop' is the folder 'run' again" err.run ||
  { cat err.run; fail "the link loop is not said"; }
grep -q "the file 'run/node1/again.jsonl' is the file 'run/node0/a.jsonl' again" err.run ||
  { cat err.run; fail "the second name of a file is not said"; }
if grep -q "c.jsonl\|notes.txt" out.run err.run; then fail "a hidden folder or a text file was read"; fi
"$cs" check run >out.run 2>/dev/null || true
grep -q "^cclscope check: 2 files," out.run || { cat out.run; fail "not 2 files"; }
"$cs" summary --json run/ >out.run 2>/dev/null # "run/": no "run//node0"
"$cs" summary --json flat >out.flat 2>/dev/null
grep -q '"file":"run/node0/a.jsonl"' out.run || { cat out.run; fail "summary run/ names its files otherwise"; }
same "summary --json run/"
for cmd in merge perfetto view; do
  "$cs" -q $cmd -o flat.out flat >/dev/null 2>&1 || true
  "$cs" -q $cmd -o run.out run >/dev/null 2>&1 || true
  norm flat.out >out.flat
  norm run.out >out.run
  cmp -s out.flat out.run || fail "$cmd: the nested folders give another output"
done
"$cs" -q convert -o conv.flat flat
"$cs" -q convert -o conv.run run
[ "$(ls conv.flat)" = "$(ls conv.run)" ] || fail "convert wrote other files"
"$cs" otf2 -o flat.otf2 flat >out.flat 2>&1 || { cat out.flat; fail "otf2 on the flat folder failed"; }
"$cs" otf2 -o run.otf2 run >out.run 2>&1 || { cat out.run; fail "otf2 on the nested folders failed"; }
grep -v "^cclscope: the " out.run >out.run2 || true
sed 's/run.otf2/X/g' out.run2 >out.run
sed -i 's/flat.otf2/X/g' out.flat
same "otf2"

# hang: snapshots and traces in per-node folders.
mkdir -p hang_run/nodeA hang_run/nodeB
n=0
for f in "$fix"/hang_never_started/*; do
  cp "$f" "hang_run/node$([ $((n % 2)) -eq 0 ] && echo A || echo B)/"
  n=$((n + 1))
done
"$cs" hang "$fix/hang_never_started" >out.flat 2>&1 || true
"$cs" hang hang_run >out.run 2>&1 || true
sed -i "s#$fix/hang_never_started/##g" out.flat
sed -i 's#hang_run/node[AB]/##g' out.run
same "hang"

# Each file once: named twice, named beside its folder, through a link.
"$cs" summary flat/a.jsonl >out.flat 2>/dev/null
"$cs" summary flat/a.jsonl flat/a.jsonl >out.run 2>err.run
cmp -s out.flat out.run || { diff out.flat out.run | head; fail "summary T T differs from summary T"; }
grep -q "^cclscope: the file 'flat/a.jsonl' is reached twice: read once$" err.run ||
  { cat err.run; fail "no note for a file named twice"; }
"$cs" summary --json flat >out.flat 2>/dev/null
"$cs" summary --json flat flat/b.jsonl flat >out.run 2>err.run
cmp -s out.flat out.run || fail "summary DIR FILE DIR differs from summary DIR"
grep -q "the file 'flat/b.jsonl' is reached twice" err.run || { cat err.run; fail "no note for a file in a named folder"; }
grep -q "the folder 'flat' is reached twice" err.run || { cat err.run; fail "no note for a folder named twice"; }
"$cs" check run/node0/a.jsonl run/node1/again.jsonl >out.run 2>err.run
grep -q "^cclscope check: 1 file," out.run || { cat out.run; fail "a file and a link to it read twice"; }
"$cs" -q summary flat/a.jsonl flat/a.jsonl >/dev/null 2>err.run
[ ! -s err.run ] || { cat err.run; fail "--quiet still says it"; }

# A folder whose tree holds no trace is still an error.
mkdir -p none/sub/.hidden
cp "$fix/clean.jsonl" none/sub/.hidden/a.jsonl
if "$cs" summary none >out.run 2>&1; then fail "a folder without traces accepted"; fi
grep -q "no trace files (\*.jsonl, \*.jsonl.zst, \*.jsonl.gz, \*.cst) in 'none' or its subfolders" out.run ||
  { cat out.run; fail "no message for a folder without traces"; }
echo "PASS"
