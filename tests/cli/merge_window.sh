#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/cli/merge_window.sh — `merge -o FILE`, `perfetto -o FILE` and
# `view -o FILE` go through the reorder window
# (src/cli/read/reorder_window.h) and, when the inputs are too far out of
# order for --memory-mb, start the file again through the external sort:
# either way the output is byte for byte what the sort alone writes (`-o
# -`, which always sorts; for view's tiles, the sort after the window gave
# up), merge by start and by end time, with -j 1 and -j 2, on traces in
# order, slightly out of order (with late timing records) and badly out of
# order (more than 1 MiB late), one file and several; a compressed input
# goes to the sort at once; and a failed write is reported (exit 1).
# usage: merge_window.sh CCLSCOPE
set -euo pipefail
cs=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-mwin-XXXXXX")
trap 'rm -rf "$work"' EXIT
# trace FILE N SPREAD SEED: N events written by end time, each starting up to
# SPREAD us before it ends; a timing record for every 8th event, 200 events
# late; a mark without a time, pad and invalid lines now and then.
trace() {
  awk -v n="$2" -v spread="$3" -v seed="$4" 'BEGIN {
    srand(seed)
    printf "{\"recordType\":\"process\",\"hostname\":\"h\",\"pid\":%d,\"ts\":1000.000}\n", seed
    for (i = 0; i < n; i++) {
      stop = 2000 + i * 10
      start[i] = stop - int(rand() * spread)
      printf "{\"recordType\":\"event\",\"type\":\"ncclProfileProxyStep\",\"id\":\"0x%x\",\"parentId\":null,\"ctx\":1,\"commId\":\"0x1\",\"rank\":0,\"start\":{\"ts\":%d.%03d,\"pid\":1,\"tid\":1},\"stop\":{\"ts\":%d.000,\"pid\":1,\"tid\":1},\"end\":\"stopped\",\"details\":{\"step\":%d,\"pad\":\"%0100d\"}}\n", i + 1, start[i], int(rand() * 1000), stop, i, 0
      if (i % 97 == 0) print "{\"recordType\":\"mark\",\"name\":\"no time\"}"
      late = i - 200
      if (late >= 0 && late % 8 == 0)
        printf "{\"recordType\":\"timing\",\"ctx\":1,\"rank\":0,\"startNs\":%d000,\"stopNs\":%d500,\"durationNs\":5}\n", start[late], start[late] + 3
      if (i % 131 == 0) print "{\"recordType\":\"pad\"        }"
      if (i % 173 == 0) print "{\"recordType\":"
    }
  }' >"$1"
}
mkdir "$work/in_order" "$work/slightly" "$work/badly"
trace "$work/in_order/trace_a.jsonl" 12000 0 1
trace "$work/slightly/trace_a.jsonl" 12000 80 2
trace "$work/slightly/trace_b.jsonl" 9000 80 3
trace "$work/badly/trace_a.jsonl" 12000 100000 4
trace "$work/badly/trace_b.jsonl" 12000 0 5
checked=0
for input in in_order slightly badly; do
  for order in start end; do
    "$cs" -q -j 1 merge --order "$order" --memory-mb 1 "$work/$input" -o - >"$work/sorted"
    for j in 1 2; do
      "$cs" -j "$j" merge --order "$order" --memory-mb 1 "$work/$input" \
        -o "$work/merged" 2>"$work/stderr"
      if ! cmp -s "$work/sorted" "$work/merged"; then
        echo "FAIL: $input by $order, -j $j: merge -o FILE differs from the sort"
        exit 1
      fi
      # the badly ordered files need the sort (by end time too: their
      # timing records are as much out of order); the others do not
      if [ "$input" = badly ]; then
        want="sorting them on disk"
      else
        want="(0.0 MB sorted on disk)"
      fi
      if ! grep -qF "$want" "$work/stderr"; then
        echo "FAIL: $input by $order, -j $j: stderr lacks '$want':"
        cat "$work/stderr"
        exit 1
      fi
      checked=$((checked + 1))
    done
  done
done
# perfetto goes the same ways (its window keeps each record's decoding)
for input in in_order slightly badly; do
  "$cs" -q -j 1 perfetto --memory-mb 1 "$work/$input" -o - >"$work/sorted.json"
  for j in 1 2; do
    "$cs" -j "$j" perfetto --memory-mb 1 "$work/$input" -o "$work/window.json" \
      2>"$work/stderr"
    if ! cmp -s "$work/sorted.json" "$work/window.json"; then
      echo "FAIL: perfetto $input, -j $j: -o FILE differs from the sort"
      exit 1
    fi
    gave_up=0
    grep -q "sorting them on disk" "$work/stderr" && gave_up=1
    if [ "$gave_up" -ne "$([ "$input" = badly ] && echo 1 || echo 0)" ]; then
      echo "FAIL: perfetto $input, -j $j: window gave up = $gave_up:"
      cat "$work/stderr"
      exit 1
    fi
    checked=$((checked + 1))
  done
done
# view too (the window keeps each record's decoding; the summary pass runs
# beside it with -j 2): the page with its detail all in it is the sort's
# (`-o -`); with the detail in tiles beside the page (--detail-mb 1), the
# badly ordered input through the window (--memory-mb 64, enough for it)
# gives the page and tiles that the sort gives when the window gives up
# (--memory-mb 1); stderr is the same with -j 1 and -j 2
for input in in_order slightly badly; do
  "$cs" -q -j 1 view --single-file --memory-mb 1 "$work/$input" -o - \
    >"$work/sorted.html"
  for j in 1 2; do
    "$cs" -j "$j" view --single-file --memory-mb 1 "$work/$input" \
      -o "$work/window.html" 2>"$work/stderr"
    if ! cmp -s "$work/sorted.html" "$work/window.html"; then
      echo "FAIL: view $input, -j $j: -o FILE differs from the sort"
      exit 1
    fi
    gave_up=0
    grep -q "sorting them on disk" "$work/stderr" && gave_up=1
    if [ "$gave_up" -ne "$([ "$input" = badly ] && echo 1 || echo 0)" ]; then
      echo "FAIL: view $input, -j $j: window gave up = $gave_up:"
      cat "$work/stderr"
      exit 1
    fi
    checked=$((checked + 1))
  done
done
for mb in 1 64; do
  for j in 1 2; do
    mkdir -p "$work/view_$mb/j$j"
    "$cs" -j "$j" view --detail-mb 1 --memory-mb "$mb" "$work/badly" \
      -o "$work/view_$mb/j$j/page.html" 2>"$work/view_$mb/j$j.stderr"
    sed -i "s|$work/view_$mb/j$j/||" "$work/view_$mb/j$j.stderr"
    if ! ls "$work/view_$mb/j$j/page.files"/tile-* >/dev/null 2>&1; then
      echo "FAIL: view --detail-mb 1 --memory-mb $mb, -j $j: no tiles"
      exit 1
    fi
  done
  if ! cmp -s "$work/view_$mb/j1.stderr" "$work/view_$mb/j2.stderr"; then
    echo "FAIL: view --memory-mb $mb: stderr differs with -j 1 and -j 2:"
    diff "$work/view_$mb/j1.stderr" "$work/view_$mb/j2.stderr" || true
    exit 1
  fi
done
if ! grep -q "sorting them on disk" "$work/view_1/j1.stderr" ||
  grep -q "sorting them on disk" "$work/view_64/j1.stderr"; then
  echo "FAIL: view of the badly ordered input: the window should give up" \
    "with --memory-mb 1 and not with 64:"
  cat "$work/view_1/j1.stderr" "$work/view_64/j1.stderr"
  exit 1
fi
for j in 1 2; do
  if ! diff -r "$work/view_1/j$j" "$work/view_64/j$j" >/dev/null ||
    ! diff -r "$work/view_1/j1" "$work/view_64/j$j" >/dev/null; then
    echo "FAIL: view with tiles, -j $j: the window's page or tiles differ" \
      "from the sort's"
    exit 1
  fi
  checked=$((checked + 1))
done
# a compressed input does not suit the window (its timing records would
# come too late, and reading it twice costs its decoding twice): straight
# to the sort, without a first try
if command -v gzip >/dev/null; then
  mkdir "$work/compressed"
  gzip -c "$work/slightly/trace_a.jsonl" >"$work/compressed/trace_a.jsonl.gz"
  cp "$work/slightly/trace_b.jsonl" "$work/compressed/"
  "$cs" -q merge "$work/compressed" -o - >"$work/sorted"
  "$cs" merge "$work/compressed" -o "$work/merged" 2>"$work/stderr"
  if ! cmp -s "$work/sorted" "$work/merged" || grep -q "out of order" "$work/stderr"; then
    echo "FAIL: a compressed input: not the sort's bytes, or tried the window:"
    cat "$work/stderr"
    exit 1
  fi
  checked=$((checked + 1))
  "$cs" -q view --single-file "$work/compressed" -o - >"$work/sorted.html"
  "$cs" view --single-file "$work/compressed" -o "$work/window.html" \
    2>"$work/stderr"
  if ! cmp -s "$work/sorted.html" "$work/window.html" ||
    grep -q "out of order" "$work/stderr"; then
    echo "FAIL: view of a compressed input: not the sort's page, or tried" \
      "the window:"
    cat "$work/stderr"
    exit 1
  fi
  checked=$((checked + 1))
fi
# a write that fails (the output thread's with -j 2) is said, exit 1
if [ -w /dev/full ]; then
  for j in 1 2; do
    status=0
    "$cs" -q -j "$j" merge "$work/slightly" -o /dev/full 2>"$work/stderr" || status=$?
    if [ "$status" -ne 1 ] || ! grep -q "writing '/dev/full' failed" "$work/stderr"; then
      echo "FAIL: -j $j merge into /dev/full: exit $status, stderr:"
      cat "$work/stderr"
      exit 1
    fi
  done
fi
lines=$(wc -l <"$work/sorted")
echo "OK: $checked merges, perfetto and view runs identical to the sort ($lines lines in the last merge)"
