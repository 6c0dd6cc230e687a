# SPDX-License-Identifier: Apache-2.0
"""cclscope_control — drive the cclscope profiler plugin from Python.

NCCL loads the plugin privately (RTLD_LOCAL), so its functions are not in
the global namespace. This module finds the copy NCCL already loaded (from
/proc/self/maps) and calls it through ctypes. If the plugin is not loaded
(no NCCL_PROFILER_PLUGIN, or NCCL not initialised yet), every call is a
harmless no-op that returns -1, so training code can call it
unconditionally.

    from cclscope_control import CclScope
    scope = CclScope()
    for step, batch in enumerate(loader):
        scope.step(step)          # a `mark` record, cclscope_step, a line in the timeline
        loss = model(batch) ...
        if step == 100:
            scope.stop()          # pause: NCCL stops calling the plugin
        if step == 200:
            scope.start()         # resume
    scope.dump()                  # flush + in-flight snapshot (e.g. from a hang handler)

See docs/control.md for the C API (include/cclscope/control.h).
"""
import ctypes
import os

_NAMES = ("libnccl-profiler-cclscope.so",)  # what NCCL and RCCL both open


def _loaded_plugin_path():
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.rstrip("\n").split(maxsplit=5)[-1]
                if os.path.basename(path) in _NAMES:
                    return path
    except OSError:
        pass
    return None


class CclScope:
    """The control API of the cclscope plugin loaded in this process."""

    def __init__(self, path=None):
        self.lib = None
        path = path or _loaded_plugin_path()
        if path is None:
            return
        try:
            # RTLD_NOLOAD: only ever the copy NCCL loaded, never a second one.
            self.lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_NOW)
        except OSError:
            self.lib = None
            return
        self.lib.cclscope_step.argtypes = [ctypes.c_int64]
        self.lib.cclscope_mark.argtypes = [ctypes.c_char_p]
        self.lib.cclscope_dump.argtypes = [ctypes.c_int]
        self.lib.cclscope_version.restype = ctypes.c_char_p

    @property
    def available(self):
        return self.lib is not None

    def start(self):
        return self.lib.cclscope_start() if self.lib else -1

    def stop(self):
        return self.lib.cclscope_stop() if self.lib else -1

    def recording(self):
        return bool(self.lib.cclscope_is_recording()) if self.lib else False

    def step(self, step=-1):
        return self.lib.cclscope_step(step) if self.lib else -1

    def mark(self, label):
        return self.lib.cclscope_mark(label.encode()) if self.lib else -1

    def dump(self, timeout_ms=5000):
        return self.lib.cclscope_dump(timeout_ms) if self.lib else -1

    def version(self):
        return self.lib.cclscope_version().decode() if self.lib else None
