# SPDX-License-Identifier: Apache-2.0
"""tests/plugin/control_python.py — the documented Python example
(docs/examples/cclscope_control.py) against the real plugin.

Loads the plugin the way NCCL does (RTLD_LOCAL, ncclProfiler_v6), creates a
communicator through its init, then uses the example's CclScope exactly as
the docs show: pause/resume (NCCL's mask must change), steps, a mark and a
dump; then checks the trace. Also: without the plugin loaded, every call is
a no-op. usage: control_python.py PLUGIN EXAMPLES_DIR OUT_DIR
"""
import ctypes
import glob
import json
import os
import sys

plugin, examples, out = sys.argv[1:4]
sys.path.insert(0, examples)
from cclscope_control import CclScope  # noqa: E402

assert not CclScope().available, "found a plugin before it was loaded"
assert CclScope().step(1) == -1

os.environ["CCLSCOPE_DIR"] = out
os.environ["CCLSCOPE_SUMMARY"] = "off"
lib = ctypes.CDLL(plugin, mode=os.RTLD_LOCAL | os.RTLD_NOW)

INIT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint64,
                        ctypes.POINTER(ctypes.c_int), ctypes.c_char_p, ctypes.c_int,
                        ctypes.c_int, ctypes.c_int, ctypes.c_void_p)
FINALIZE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)


class Profiler(ctypes.Structure):  # ncclProfiler_v6_t
    _fields_ = [("name", ctypes.c_char_p), ("init", INIT), ("startEvent", ctypes.c_void_p),
                ("stopEvent", ctypes.c_void_p), ("recordEventState", ctypes.c_void_p),
                ("finalize", FINALIZE)]


prof = Profiler.in_dll(lib, "ncclProfiler_v6")
assert prof.name == b"cclscope"
ctx, mask = ctypes.c_void_p(), ctypes.c_int(0)
assert prof.init(ctypes.byref(ctx), 0x51, ctypes.byref(mask), b"py", 1, 2, 0, None) == 0
recording = mask.value
assert recording != 0

scope = CclScope()
assert scope.available, "the example did not find the loaded plugin"
assert scope.version()
assert scope.recording()
assert scope.step(0) == 0 and scope.step() == 0
assert scope.mark("checkpoint") == 0
assert scope.stop() == 0 and mask.value == 0 and not scope.recording()
assert scope.start() == 0 and mask.value == recording
assert scope.dump() == 0
assert glob.glob(os.path.join(out, "inflight_*.json")), "no snapshot after dump()"
prof.finalize(ctx)

marks = []
for path in glob.glob(os.path.join(out, "trace_*.jsonl")):
    with open(path) as f:
        marks += [r for r in map(json.loads, f) if r["recordType"] == "mark"]
kinds = [m["kind"] for m in marks]
assert kinds.count("step") == 2 and [m["step"] for m in marks if m["kind"] == "step"] == [0, 1], kinds
assert kinds.count("label") == 1 and kinds.count("pause") == 1 and kinds.count("resume") == 1
print("PASS: the Python example paused, resumed, marked and dumped:", kinds)
