#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/run_check.sh — run ncclemu through the plugin, then a checker.
# usage: run_check.sh NCCLEMU PLUGIN [ncclemu options...] -- CHECK [args...]
# The plugin writes to @WORK@/traces (and, with metrics, @WORK@/prom);
# @WORK@ in any argument is replaced by the run's folder, and a checker
# argument @TRUTH@ by every truth file of `--truth @WORK@/truth.jsonl`.
# Plugin settings come from the environment (CCLSCOPE_*).
set -euo pipefail
emu=$1 plugin=$2
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-e2e-XXXXXX")
trap 'rm -rf "$work"' EXIT
emu_args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do emu_args+=("${1//@WORK@/$work}"); shift; done
[ $# -gt 1 ] || { echo "usage: run_check.sh NCCLEMU PLUGIN [opts] -- CHECK [args]"; exit 2; }
shift
mkdir -p "$work/prom"
if ! CCLSCOPE_DIR="$work/traces" CCLSCOPE_PROM_DIR="$work/prom" CCLSCOPE_PROM_KEEP=1 \
  "$emu" --plugin "$plugin" "${emu_args[@]}" >"$work/emu.log" 2>&1; then
  echo "FAIL: ncclemu ${emu_args[*]} exited with an error:"
  tail -n 30 "$work/emu.log"
  exit 1
fi
check=()
for a in "$@"; do
  if [ "$a" = "@TRUTH@" ]; then
    check+=("$work"/truth.jsonl*)
  else
    check+=("${a//@WORK@/$work}")
  fi
done
"${check[@]}"
