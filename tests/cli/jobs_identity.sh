#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/cli/jobs_identity.sh — the number of reading threads (-j/--jobs,
# src/cli/read/read_ahead.h) changes nothing a command prints: check (text
# and --json), summary (text and --json), merge (by start and by end time)
# and view give the same stdout, stderr, exit status and output file with
# -j 1 (no thread), 2 and 4 on an ncclemu trace of 4 single-rank processes
# with every event type (dozens of read-ahead chunks, files read in lock
# step and one after the other), and with -j 1 and 2 on the hand-made
# fixtures together (invalid JSON, a truncated last line, PXN parents
# across files, minimal_profiler files converted while read: their stderr
# notices come in the same order, a file given twice); and on the same
# trace written in the binary format with zstd frames, one of its files cut
# inside a frame (binary files are read ahead by frames: decompressed and
# formatted on the reading threads; the note on the cut file comes once,
# saying the same).
# usage: jobs_identity.sh NCCLEMU PLUGIN CCLSCOPE FIXTURES_DIR
set -euo pipefail
emu=$1 plugin=$2 cs=$3 fx=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-jobs-XXXXXX")
trap 'rm -rf "$work"' EXIT
CCLSCOPE_DIR="$work/emu" CCLSCOPE_SUMMARY=off CCLSCOPE_MASK=all "$emu" \
  --plugin "$plugin" --scenario mixed --nodes 2 --ranks-per-node 2 \
  --ranks-per-process 1 --ops 2 --pace none --quiet --max-callback-ms 5000
CCLSCOPE_DIR="$work/emu_bin" CCLSCOPE_FORMAT=binary CCLSCOPE_COMPRESS=zstd \
  CCLSCOPE_SUMMARY=off CCLSCOPE_MASK=all "$emu" \
  --plugin "$plugin" --scenario mixed --nodes 2 --ranks-per-node 2 \
  --ranks-per-process 1 --ops 2 --pace none --quiet --max-callback-ms 5000
cut=$(ls -S "$work/emu_bin"/*.cst | head -1)
head -c $(($(stat -c %s "$cut") - 3000)) "$cut" >"$work/cut.cst"
mv "$work/cut.cst" "$cut"
files=$(ls "$work/emu"/*.jsonl | wc -l)
bytes=$(cat "$work/emu"/*.jsonl | wc -c)
if [ "$files" -ne 4 ] || [ "$bytes" -lt 500000 ]; then
  echo "FAIL: the emulated trace has $files files, $bytes bytes (want 4, >= 0.5 MB)"
  exit 1
fi
# One command with each count of $jobs: the same stdout, stderr, status
# and output file (@OUT@ in the arguments) as with -j 1.
compared=0
jobs="1 2 4"
same() { # NAME ARGS...
  local name=$1
  shift
  for j in $jobs; do
    local args=()
    for a in "$@"; do args+=("${a//@OUT@/$work/$name.$j.out}"); done
    local status=0
    "$cs" -j "$j" "${args[@]}" >"$work/$name.$j.stdout" 2>"$work/$name.$j.stderr" || status=$?
    echo "$status" >"$work/$name.$j.status"
    # the output file's own name differs: compare its content
    sed "s|$work/$name.$j.out|OUT|g" -i "$work/$name.$j.stderr"
    if [ "$j" != 1 ]; then
      for part in stdout stderr status out; do
        [ -e "$work/$name.1.$part" ] || [ -e "$work/$name.$j.$part" ] || continue
        if ! cmp -s "$work/$name.1.$part" "$work/$name.$j.$part"; then
          echo "FAIL: $name: -j $j gives another $part than -j 1"
          diff <(head -c 20000 "$work/$name.1.$part") \
            <(head -c 20000 "$work/$name.$j.$part") | head -20 || true
          exit 1
        fi
      done
    fi
  done
  compared=$((compared + 1))
}
inputs() { # NAME INPUTS...: every command on these inputs
  local name=$1
  shift
  same "$name.check" check "$@"
  same "$name.check_json" check --json "$@"
  same "$name.summary" summary "$@"
  same "$name.summary_json" summary --json "$@"
  # 1 MiB sort chunks: the emulated trace goes through temporary files
  same "$name.merge" merge --memory-mb 1 -o @OUT@ "$@"
  same "$name.merge_end" merge --order end -o @OUT@ "$@"
  same "$name.view" view --memory-mb 1 -o @OUT@ "$@"
}
inputs emu "$work/emu"
inputs emu_bin "$work/emu_bin"
jobs="1 2" # small inputs: one file per thread at most anyway
inputs fixtures "$fx/invalid_json.jsonl" "$fx/killed.jsonl" "$fx/seed" \
  "$fx/clean.jsonl" "$fx/pxn_ok" "$fx/pxn_bad" "$fx/timing" "$fx/clean.jsonl"
# the emulated trace is not trivially clean or empty
grep -q " 0 errors" "$work/emu.check.1.stdout"
[ "$(grep -c "ends inside a binary trace frame" "$work/emu_bin.check.1.stderr")" = 1 ]
grep -q "minimal_profiler format" "$work/fixtures.check.1.stderr"
grep -q "error\[json\]" "$work/fixtures.check.1.stdout"
[ -s "$work/emu.merge.1.out" ] && [ -s "$work/emu.view.1.out" ]
echo "ok: $compared commands print the same with -j 1, 2 (and 4)"
