#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/run_truth_repeat.sh — run_truth.sh N times with the same
# arguments. For runs whose interleaving of threads differs from run to run
# (--pace none, several threads and ranks per process): one passing run
# proves little, a mismatch in any of them fails the test.
# usage: run_truth_repeat.sh N NCCLEMU PLUGIN CHECK_TRUTH [ncclemu options...]
set -euo pipefail
n=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
for i in $(seq "$n"); do
  if ! out=$(bash "$here/run_truth.sh" "$@" 2>&1); then
    echo "FAIL in run $i of $n:"
    echo "$out"
    exit 1
  fi
done
echo "PASS: $n runs match their ground truth (last: ${out##*$'\n'})"
