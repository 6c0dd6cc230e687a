#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""compare_overhead.py — is all_reduce slower with the plugin loaded?

Reads the latency_rank*.json files that allreduce_latency.py wrote under
OUT (one folder per run, any depth), runs of two variants alternated in one
session (tests/gpu/overhead.sh: "none" and "plugin"). For each size:
  - a run's figure is the median, over its rounds, of the per-call time of
    its slowest rank in that round (a collective is as late as its last
    rank);
  - a variant's figure is the median of its runs' figures, and its spread
    the range of them (how far two runs of the same thing differ here);
  - the overhead is plugin / none - 1.
A size passes when the overhead is at most --limit (default 2 %). When the
runs of one variant differ by more than the limit, the line says so: the
measurement cannot resolve the limit at that size, and the verdict there is
only as good as the spread. Exit 0: every size passes; 1: a size does not;
2: the input is unusable (no files, a variant missing, sizes that differ).
"""
import argparse
import glob
import json
import os
import statistics
import sys


def load(out):
    """{variant: {run: {rank: {bytes: [us per call, per round]}}}}"""
    runs = {}
    paths = sorted(glob.glob(os.path.join(out, "**", "latency_rank*.json"),
                             recursive=True))
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        sizes = {int(k): v for k, v in doc["sizes"].items()}
        runs.setdefault(doc["variant"], {}).setdefault(
            doc["run"], {})[doc["rank"]] = sizes
    return runs, len(paths)


def run_figure(ranks, size):
    """Median over rounds of the slowest rank's per-call time."""
    per_rank = [ranks[r][size] for r in sorted(ranks)]
    rounds = min(len(v) for v in per_rank)
    if rounds == 0:
        raise ValueError(f"a run has no rounds at {size} B")
    return statistics.median(max(v[i] for v in per_rank)
                             for i in range(rounds))


def variant_figures(runs, size):
    figures = [run_figure(runs[k], size) for k in sorted(runs)]
    return statistics.median(figures), min(figures), max(figures), len(figures)


def human(size):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= div and size % div == 0:
            return f"{size // div} {unit}"
    return f"{size} B"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", help="the folder overhead.sh wrote")
    ap.add_argument("--limit", type=float, default=0.02,
                    help="largest overhead that passes (fraction, default 0.02)")
    ap.add_argument("--base", default="none", help="the variant without")
    ap.add_argument("--test", default="plugin", help="the variant with")
    args = ap.parse_args()

    runs, nfiles = load(args.out)
    if nfiles == 0:
        print(f"compare_overhead: no latency_rank*.json under {args.out}",
              file=sys.stderr)
        return 2
    for v in (args.base, args.test):
        if v not in runs:
            print(f"compare_overhead: no run of variant '{v}' under "
                  f"{args.out} (found: {', '.join(sorted(runs))})",
                  file=sys.stderr)
            return 2
    size_sets = {frozenset(ranks_sizes)
                 for variant in (args.base, args.test)
                 for ranks in runs[variant].values()
                 for ranks_sizes in ranks.values()}
    if len(size_sets) != 1:
        print("compare_overhead: the runs measured different sizes",
              file=sys.stderr)
        return 2
    sizes = sorted(next(iter(size_sets)))

    base_runs, test_runs = runs[args.base], runs[args.test]
    print(f"{len(base_runs)} runs '{args.base}', {len(test_runs)} runs "
          f"'{args.test}'; limit {args.limit * 100:.1f} %")
    print(f"{'size':>9}  {args.base + ' us':>12}  {args.test + ' us':>12}  "
          f"{'overhead':>9}  verdict")
    failed = 0
    for size in sizes:
        b, b_lo, b_hi, _ = variant_figures(base_runs, size)
        t, t_lo, t_hi, _ = variant_figures(test_runs, size)
        overhead = t / b - 1.0
        ok = overhead <= args.limit
        failed += not ok
        spread = max((b_hi - b_lo) / b, (t_hi - t_lo) / t)
        note = ""
        if spread > args.limit:
            note = (f" (runs of one variant differ by {spread * 100:.1f} %: "
                    f"more than the limit)")
        print(f"{human(size):>9}  {b:12.2f}  {t:12.2f}  "
              f"{overhead * 100:+8.2f}%  {'ok' if ok else 'OVER'}{note}")
    if failed:
        print(f"{failed} of {len(sizes)} sizes over the limit")
        return 1
    print(f"every size within {args.limit * 100:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
