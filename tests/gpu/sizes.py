# SPDX-License-Identifier: Apache-2.0
"""sizes.py — message sizes as the GPU workers take them on their command
line ("8", "64K", "1M"), shared by allreduce_cuda_events.py and
allreduce_latency.py (each is run as a script, so this folder is on
sys.path)."""

SUFFIXES = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text):
    """Bytes of "N", "NK", "NM" or "NG" (binary units)."""
    text = text.strip().upper()
    if text and text[-1] in SUFFIXES:
        return int(text[:-1]) * SUFFIXES[text[-1]]
    return int(text)


def parse_sizes(text):
    """A comma list of sizes, in order."""
    return [parse_size(s) for s in text.split(",")]
