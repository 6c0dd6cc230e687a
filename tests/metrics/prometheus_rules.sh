#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/metrics/prometheus_rules.sh — the shipped Prometheus rules
# (packaging/prometheus/cclscope-rules.yml) pass `promtool check rules`,
# and their unit tests (cclscope-rules.test.yml: a late rank fires, naming
# its global rank; a balanced job, a tiny skew, a short stall do not) pass
# `promtool test rules`.
# usage: prometheus_rules.sh RULES UNIT_TESTS
set -euo pipefail
rules=$1 unit_tests=$2
command -v promtool >/dev/null ||
  { echo "FAIL: promtool is not installed (Debian's prometheus package has it; scripts/install-deps.sh)"; exit 1; }
promtool check rules "$rules"
# promtool resolves rule_files from the test file's folder
cd "$(dirname "$unit_tests")"
promtool test rules "$(basename "$unit_tests")"
