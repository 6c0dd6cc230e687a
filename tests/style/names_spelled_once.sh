#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/style/names_spelled_once.sh — NCCL's event type and state names are
# spelled in one C table, src/common/nccl_names.c: no other C file under
# src/ holds one of them as a string literal in code ("ncclProfileColl",
# "Coll", "SendGPUWait", ...; comments may name them). Tests may spell
# them (they check the table).
# usage: names_spelled_once.sh [REPO_ROOT]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
exec python3 - "$root" <<'PY'
import os, re, sys
root = sys.argv[1]
table = os.path.join(root, "src", "common", "nccl_names.c")
if not os.path.isfile(table):
    sys.exit("FAIL: %s is missing" % table)
text = open(table).read()
names = set()
for name in ("event_json_names", "state_names"):
    m = re.search(name + r"\[[^\]]*\]\s*=\s*\{(.*?)\};", text, re.S)
    if not m:
        sys.exit("FAIL: table %s not found in %s" % (name, table))
    for n in re.findall(r'"([^"]+)"', m.group(1)):
        names.add(n)
        if n.startswith("ncclProfile"):
            names.add(n[len("ncclProfile"):])
names.update(re.findall(r'state_31_\w+ = "([^"]+)"', text))
if len(names) < 40:
    sys.exit("FAIL: read only %d names from %s" % (len(names), table))

# Code without its comments; string literals kept, with their line numbers.
comment = re.compile(r'/\*.*?\*/|//[^\n]*|("(?:\\.|[^"\\\n])*")', re.S)
def literals(src):
    for m in comment.finditer(src):
        if m.group(1) is not None:
            yield src.count("\n", 0, m.start()) + 1, m.group(1)[1:-1]

bad = 0
for dirpath, _, files in os.walk(os.path.join(root, "src")):
    for f in sorted(files):
        if not f.endswith((".c", ".h")):
            continue
        path = os.path.join(dirpath, f)
        if os.path.samefile(path, table):
            continue
        for line, lit in literals(open(path, errors="replace").read()):
            if lit in names:
                print('FAIL: %s:%d spells "%s": use src/common/nccl_names.h'
                      % (os.path.relpath(path, root), line, lit))
                bad += 1
if bad:
    sys.exit(1)
print("PASS: %d event and state names are spelled only in src/common/nccl_names.c"
      % len(names))
PY
