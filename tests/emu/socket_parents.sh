#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/emu/socket_parents.sh — the socket transport's NetPlugin parents
# (docs/nccl-behaviour.md §6.12): NCCL's helper threads read the pHandle of
# one request slot of their own connection, so the parent of a socket
# NetPlugin start is NULL or a ProxyStep of the same connection (the same
# channel and direction as the task: sock_fd 40 + 2 * channel + k, sock_op
# 0 send / 1 recv) — never a step of another channel or direction.
# usage: socket_parents.sh NCCLEMU PLUGIN
set -euo pipefail
emu=$1 plugin=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/ncclemu-sockparents-XXXXXX")
trap 'rm -rf "$work"' EXIT
"$emu" --plugin "$plugin" --scenario socket --channels 4 --pace none \
  --sizes 4K,300K,2M --truth "$work/truth.jsonl" --quiet
python3 - "$work" <<'PY'
import glob, json, os, sys
checked = null = 0
bad = []
for path in glob.glob(os.path.join(sys.argv[1], "truth.jsonl*")):
    lines = [json.loads(l) for l in open(path)]
    starts = {r["id"]: r for r in lines if r["call"] == "start"}
    for r in lines:
        if r["call"] != "start" or r.get("net") != "socket":
            continue
        if r.get("parent") is None:
            null += 1
            continue
        step = starts[r["parent"]]
        op = starts.get(step.get("parent"))
        if step["type"] != "ProxyStep" or op is None or op["type"] != "ProxyOp":
            bad.append(f"{r['id']}: parent {step['type']} {step['id']}")
            continue
        channel, send = (r["sock_fd"] - 40) // 2, r["sock_op"] == 0
        if op["channel"] != channel or bool(op["isSend"]) != send:
            bad.append(f"{r['id']} (channel {channel}, send {send}): parent step "
                       f"{step['id']} of channel {op['channel']}, isSend {op['isSend']}")
        checked += 1
assert checked > 0, "no socket NetPlugin start with a parent"
assert not bad, f"{len(bad)} of {checked} parents from another connection:\n" + "\n".join(bad[:10])
print(f"ok: {checked} socket NetPlugin parents on their own connection, {null} NULL")
PY
