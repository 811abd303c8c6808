#!/usr/bin/env python3
"""The table of bench/gpu-pair.sh: per workload and variant, the median over the rounds of each
side's GPU time (tuned configuration and the seed's schedule) and time per call, and new / old.

Usage: gpu_pair_table.py OUT ROUNDS
"""
import json
import statistics
import sys
from pathlib import Path


def load(out, side, rounds):
    rows = {}
    for r in range(1, rounds + 1):
        path = Path(out) / f"{side}-{r}" / "ours.json"
        if not path.exists():
            continue
        for res in json.loads(path.read_text()).get("results", []):
            key = (res["workload"], res["fused"])
            rows.setdefault(key, []).append(res)
    return rows


def median(results, field):
    values = [r[field] for r in results if r.get(field) is not None]
    return statistics.median(values) if values else None


def main():
    out, rounds = sys.argv[1], int(sys.argv[2])
    old, new = load(out, "old", rounds), load(out, "new", rounds)
    fields = [("ours_gpu_us", "tuned GPU us"), ("seed_gpu_us", "seed GPU us"), ("ours_us", "tuned per call us")]
    header = f"{'workload':30} {'fused':5}"
    for _, title in fields:
        header += f" | {title + ' old':>20} {'new':>8} {'new/old':>7}"
    print(header)
    ratios = {f: [] for f, _ in fields}
    same_config = 0
    for key in sorted(set(old) & set(new)):
        line = f"{key[0]:30} {str(key[1]):5}"
        for field, _ in fields:
            a, b = median(old[key], field), median(new[key], field)
            if a and b:
                ratios[field].append(b / a)
                line += f" | {a:20.2f} {b:8.2f} {b / a:7.3f}"
            else:
                line += f" | {'-':>20} {'-':>8} {'-':>7}"
        configs_old = {r["config"] for r in old[key]}
        configs_new = {r["config"] for r in new[key]}
        if configs_old == configs_new:
            same_config += 1
        else:
            line += f"   configs differ: old {sorted(configs_old)} new {sorted(configs_new)}"
        print(line)
    print()
    print(f"rows: {len(set(old) & set(new))} (old only {len(set(old) - set(new))}, new only "
          f"{len(set(new) - set(old))}); the same tuned configuration on both sides: {same_config}")
    for field, title in fields:
        r = ratios[field]
        if r:
            geo = statistics.geometric_mean(r)
            print(f"{title:18} new/old geometric mean {geo:.3f}, range {min(r):.3f} - {max(r):.3f}, "
                  f"rows beyond 5%: {sum(1 for x in r if abs(x - 1) > 0.05)} of {len(r)}")


if __name__ == "__main__":
    main()
