#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/run_truth_repeat.sh — run_truth.sh N times with the same
# arguments. For runs whose interleaving of threads differs from run to run
# (--pace none, several threads and ranks per process): one passing run
# proves little, a mismatch in any of them fails the test.
# usage: run_truth_repeat.sh N NCCLEMU PLUGIN CHECK_TRUTH [ncclemu options...]
#
# In the TSan build, the sanitizer's runtime itself can abort a worker:
# when a thread's clock epoch runs out it remaps its whole shadow, and on
# this kind of VM that mmap sometimes fails ("ThreadSanitizer failed to
# allocate ... (errno: 12)", exit 66) — in 7 of 16 runs of the concurrent
# IB case on the code before this rule, a process that had reported no
# race. Such a run says nothing about the plugin or ncclemu: it is run
# again (twice at most), and said so. A run with a race report, or any
# other failure, fails the test at once.
set -euo pipefail
n=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
runtime_abort() { # output: the sanitizer runtime gave up, nothing reported
  grep -q 'ThreadSanitizer failed to allocate' <<<"$1" &&
    ! grep -q 'WARNING: ThreadSanitizer:' <<<"$1"
}
for i in $(seq "$n"); do
  retries=0
  while ! out=$(bash "$here/run_truth.sh" "$@" 2>&1); do
    if runtime_abort "$out" && [ "$retries" -lt 2 ]; then
      retries=$((retries + 1))
      echo "note: run $i of $n: the ThreadSanitizer runtime could not remap its shadow memory (no report about the code); running it again ($retries of 2)"
      continue
    fi
    echo "FAIL in run $i of $n:"
    echo "$out"
    exit 1
  done
done
echo "PASS: $n runs match their ground truth (last: ${out##*$'\n'})"
