#!/usr/bin/env python3
"""Merges kernelgen's and PyTorch's GPU figures into gpu-latest.json and prints the table.

Usage: python3 bench/gpu_merge.py OURS_JSON TORCH_JSON OUT_JSON

gpu-latest.json is a list of objects, one per workload and variant (plain, fused), with
workload, fused, ours_us, ours_gpu_us, cudnn_us, cudnn_gpu_us, eager3_us, compiled_us,
compiled_gpu_us (the better of torch.compile's two layouts), copy_gbps, ours_gbps and
ours_copy_share (our bytes moved per GPU second as a share of the measured copy bandwidth).
"""
import json
import math
import sys


def best(*values):
    vs = [v for v in values if v is not None]
    return min(vs) if vs else None


def main(ours_path, torch_path, out_path):
    ours = json.load(open(ours_path))
    torch = json.load(open(torch_path))
    peers = {r["workload"]: r for r in torch["results"]}
    copy = torch.get("copy_gbps")
    rows = []
    for r in ours["results"]:
        p = peers.get(r["workload"], {})
        compiled = best(p.get("compiled_us"), p.get("compiled_nchw_us"))
        compiled_gpu = best(p.get("compiled_gpu_us"), p.get("compiled_nchw_gpu_us"))
        row = {
            "workload": r["workload"],
            "fused": r["fused"],
            "ours_us": r.get("ours_us"),
            "ours_gpu_us": r.get("ours_gpu_us"),
            "cudnn_us": p.get("cudnn_us"),
            "cudnn_gpu_us": p.get("cudnn_gpu_us"),
            "eager3_us": p.get("eager3_us") if r["fused"] else None,
            "eager3_gpu_us": p.get("eager3_gpu_us") if r["fused"] else None,
            "compiled_us": compiled if r["fused"] else None,
            "compiled_gpu_us": compiled_gpu if r["fused"] else None,
            "copy_gbps": copy,
            "ours_gbps": r.get("ours_gbps"),
            "ours_copy_share": round(r["ours_gbps"] / copy, 3) if copy and r.get("ours_gbps") else None,
            "config": r.get("config"),
        }
        rows.append(row)
    json.dump(rows, open(out_path, "w"), indent=2)

    def f(v):
        return "-" if v is None else f"{v:.1f}"

    print(f"device: {ours.get('device')} | torch {torch.get('torch')} cudnn {torch.get('cudnn')} "
          f"| copy bandwidth {copy} GB/s")
    print(f"{'workload':28} {'fused':5} {'ours':>7} {'ours_g':>7} {'cudnn':>7} {'cudnn_g':>7} "
          f"{'eager3':>7} {'comp':>7} {'comp_g':>7} {'GB/s':>7} {'copy%':>6}")
    for r in rows:
        share = r["ours_copy_share"]
        print(f"{r['workload']:28} {str(r['fused'])[0]:5} {f(r['ours_us']):>7} {f(r['ours_gpu_us']):>7} "
              f"{f(r['cudnn_us']):>7} {f(r['cudnn_gpu_us']):>7} {f(r['eager3_us']):>7} "
              f"{f(r['compiled_us']):>7} {f(r['compiled_gpu_us']):>7} {f(r['ours_gbps']):>7} "
              f"{'-' if share is None else format(100 * share, '.0f'):>6}")
    # The first speed target of issue 3: fused GPU time at or below cuDNN's plain GPU time.
    fused = [r for r in rows if r["fused"] and r["ours_gpu_us"] and r["cudnn_gpu_us"]]
    if fused:
        ratios = [r["cudnn_gpu_us"] / r["ours_gpu_us"] for r in fused]
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        met = sum(1 for x in ratios if x >= 1)
        print(f"fused vs cuDNN plain (GPU time): geomean {geo:.2f}x, at or below cuDNN on {met}/{len(ratios)}")
        peer = [r for r in fused if r["compiled_gpu_us"]]
        if peer:
            ratios = [min(r["cudnn_gpu_us"], r["compiled_gpu_us"]) / r["ours_gpu_us"] for r in peer]
            geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
            print(f"fused vs the faster of cuDNN plain and torch.compile fused (GPU time): geomean {geo:.2f}x")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
