#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""test_overhead.py — compare_overhead.py on synthetic inputs (runs in ctest
on any machine; the GPU run itself is tests/gpu/overhead.sh).

Writes the latency files of alternated runs, as allreduce_latency.py does,
and checks the verdicts: 1 % slower with the plugin passes, 5 % fails at
that size only; a run's figure is its slowest rank's; runs of one variant
that differ by more than the limit are said; a missing variant, no files
or runs of different sizes are refused.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "compare_overhead.py")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def write_run(out, variant, run, per_rank):
    """per_rank: [{bytes: [us per round]}] for ranks 0, 1, ..."""
    folder = os.path.join(out, f"run{run}-{variant}")
    os.makedirs(folder, exist_ok=True)
    for rank, sizes in enumerate(per_rank):
        with open(os.path.join(folder, f"latency_rank{rank}.json"), "w") as f:
            json.dump({"variant": variant, "run": run, "rank": rank,
                       "sizes": {str(k): v for k, v in sizes.items()}}, f)


def compare(out, *extra):
    p = subprocess.run([sys.executable, SCRIPT, out, *extra],
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def session(out, small_factor, big_factor, spread=0.0, slow_rank1=0.0):
    """Three runs of each variant, ABBA; base latencies 20 us (8 B) and
    100 us (1 MiB); the plugin's runs multiplied by the factors. `spread`
    makes the base runs differ (run k times 1 + k * spread); `slow_rank1`
    makes rank 1 of the plugin's runs that much slower."""
    order = ["none", "plugin", "plugin", "none", "none", "plugin"]
    seen = {"none": 0, "plugin": 0}
    for run, variant in enumerate(order):
        k = seen[variant]
        seen[variant] += 1
        drift = 1 + k * spread if variant == "none" else 1.0
        f_small = small_factor if variant == "plugin" else 1.0
        f_big = big_factor if variant == "plugin" else 1.0
        rank0 = {8: [20.0 * f_small * drift + i * 0.01 for i in range(9)],
                 1 << 20: [100.0 * f_big * drift + i * 0.01 for i in range(9)]}
        slow = 1 + slow_rank1 if variant == "plugin" else 1.0
        rank1 = {s: [x * slow for x in v] for s, v in rank0.items()}
        write_run(out, variant, run, [rank0, rank1])


with tempfile.TemporaryDirectory() as tmp:
    # 1 % slower everywhere: passes.
    d = os.path.join(tmp, "within")
    session(d, 1.01, 1.01)
    rc, text = compare(d)
    check(rc == 0, f"1 % slower passes (rc {rc}):\n{text}")
    check("+1.00%" in text, f"the overhead is printed as +1.00 %:\n{text}")
    check("every size within 2.0 %" in text, "the pass line")

    # 5 % slower at 1 MiB only: that size fails, 8 B passes.
    d = os.path.join(tmp, "over")
    session(d, 1.0, 1.05)
    rc, text = compare(d)
    check(rc == 1, f"5 % slower at 1 MiB fails (rc {rc}):\n{text}")
    lines = {l.split()[0] + " " + l.split()[1]: l for l in text.splitlines()
             if l.strip().startswith(("8 B", "1 MiB"))}
    check("OVER" in lines.get("1 MiB", ""), f"1 MiB is over:\n{text}")
    check(" ok" in lines.get("8 B", ""), f"8 B is ok:\n{text}")
    check("1 of 2 sizes over the limit" in text, "the fail line")
    # A looser limit lets it pass.
    rc, _ = compare(d, "--limit", "0.06")
    check(rc == 0, "--limit 0.06 passes 5 %")

    # The slowest rank counts: rank 0 as fast as without, rank 1 3 % slower.
    d = os.path.join(tmp, "slow-rank")
    session(d, 1.0, 1.0, slow_rank1=0.03)
    rc, text = compare(d)
    check(rc == 1, f"a rank 3 % slower fails (rc {rc}):\n{text}")

    # Runs of the same variant 2.5 % apart: said, since 2 % is not resolved.
    d = os.path.join(tmp, "noisy")
    session(d, 1.0, 1.0, spread=0.025)
    rc, text = compare(d)
    check("more than the limit" in text, f"the spread is said:\n{text}")

    # Unusable inputs.
    rc, text = compare(os.path.join(tmp, "nothing-here"))
    check(rc == 2 and "no latency_rank" in text, f"no files: rc 2 ({rc})")
    d = os.path.join(tmp, "one-variant")
    write_run(d, "none", 0, [{8: [1.0]}])
    rc, text = compare(d)
    check(rc == 2 and "no run of variant 'plugin'" in text,
          f"a missing variant: rc 2 ({rc}):\n{text}")
    d = os.path.join(tmp, "sizes-differ")
    write_run(d, "none", 0, [{8: [1.0]}])
    write_run(d, "plugin", 1, [{64: [1.0]}])
    rc, text = compare(d)
    check(rc == 2 and "different sizes" in text,
          f"different sizes: rc 2 ({rc}):\n{text}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("compare_overhead.py: all checks passed")
