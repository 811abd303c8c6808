#!/usr/bin/env python3
"""PyTorch side of the operator benchmark (issue 5), float32, TF32 off.

Usage: python3 bench/ops_torch.py OUT_JSON [--ours OURS_JSON --merged MERGED_JSON] [--only TEXT]

Workloads, the same as dev.kernelgen.bench.gpu.OpsGpuBench:
  matmul_{1024,2048,4096}     torch.matmul (cuBLAS); _auto: the same beside our generated pick
  softmax_4096x4096           torch.softmax(x, dim=-1)
  softmax_{4096x4096,16384x1024}_auto     torch.softmax(x, dim=-1)
  layer_norm_{4096x4096,16384x1024}_auto  F.layer_norm(x, (cols,), gamma, beta, eps=1e-5)
  conv2d_{1,32}x64x56x56_f64  F.conv2d 3x3, padding 1 (cuDNN, benchmark mode); _auto: as matmul's
  attention_{256,1024}x64_auto  torch.softmax(q @ k.T * 0.125, dim=-1) @ v (eager)
  (_tuned rows: as _auto, beside the best generated record; only where OpsGpuBench timed one)
  depthwise_fused_{1,32}x256x96x96_{template,auto,tuned}  cuDNN depthwise + scale_shift + relu;
      copy_{1,32}x256x96x96: a device-to-device copy of the input (the bandwidth bound)
  conv_bn_swish_{1x64x56x56_k64,8x32x28x28_k32}  the conv + batch norm + swish sample's operator:
      torch_*: eager F.conv2d -> F.batch_norm (running statistics, eps 1e-5) -> F.silu (3 kernels);
      torch_folded_*: batch norm folded into the conv's weight and bias, then F.silu (2 kernels,
      what a deployment does); torch_compiled_*: torch.compile of the eager three (mode
      KG_COMPILE_MODE, default max-autotune-no-cudagraphs; KG_OPS_COMPILE=0 leaves it out)

Each is timed as bench/gpu_torch.py times: torch_us, per call of back-to-back launches (CUDA events
around a batch, best batch), and torch_gpu_us, launches captured in a CUDA graph and replayed
(best replay). With --ours, prints the table side by side with OpsGpuBench's ops-ours.json and
writes the merged rows (ratio = torch_gpu_us / ours_gpu_us: above 1 means ours is faster).
"""

import json
import os
import sys
import time

import torch
import torch.nn.functional as F

LAUNCHES = 100
BATCHES = 5
GRAPH_ITERS = 20
GRAPH_REPLAYS = 7


def configure():
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        torch.backends.cudnn.conv.fp32_precision = "ieee"
        torch.backends.cuda.matmul.fp32_precision = "ieee"
    except (AttributeError, RuntimeError):
        pass


def per_call(fn):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    best = float("inf")
    for _ in range(BATCHES):
        start.record()
        for _ in range(LAUNCHES):
            fn()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) * 1e3 / LAUNCHES)
    return best


def graph_time(fn):
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(GRAPH_ITERS):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    best = float("inf")
    for _ in range(GRAPH_REPLAYS):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) * 1e3 / GRAPH_ITERS)
    return best


def workloads():
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(42)

    def rand(*shape):
        return torch.rand(*shape, generator=g, device=dev) * 2 - 1

    for n in (1024, 2048, 4096):
        a, b = rand(n, n), rand(n, n)
        out = torch.empty(n, n, device=dev)
        # the template, the generated pick, the best generated schedule of the tuning log
        for name in (f"matmul_{n}", f"matmul_{n}_auto", f"matmul_{n}_tuned"):
            yield name, 2.0 * n**3, 0, (lambda a=a, b=b, out=out: torch.matmul(a, b, out=out))
    x = rand(4096, 4096)
    yield "softmax_4096x4096", 0, 2 * 4 * x.numel(), (lambda x=x: torch.softmax(x, dim=-1))
    # One head of attention as written (OpsGpuBench.attentionCases): eager, no fused kernel.
    for seq in (256, 1024):
        q, k, v = rand(seq, 64), rand(seq, 64), rand(seq, 64)
        yield f"attention_{seq}x64_auto", 4.0 * seq * seq * 64, 0, (
            lambda q=q, k=k, v=v: torch.softmax(q @ k.T * 0.125, dim=-1) @ v)
    # The same row normalisations that OpsGpuBench schedules with the auto-scheduler (no template).
    for rows, cols in ((4096, 4096), (16384, 1024)):
        x = rand(rows, cols)
        gamma, beta = rand(cols), rand(cols)
        yield f"softmax_{rows}x{cols}_auto", 0, 2 * 4 * x.numel(), (
            lambda x=x: torch.softmax(x, dim=-1))
        yield f"layer_norm_{rows}x{cols}_auto", 0, 2 * 4 * x.numel(), (
            lambda x=x, gamma=gamma, beta=beta, cols=cols:
            F.layer_norm(x, (cols,), gamma, beta, eps=1e-5))
    for batch in (1, 32):
        inp, w = rand(batch, 64, 56, 56), rand(64, 64, 3, 3)
        flops = 2.0 * batch * 64 * 56 * 56 * 64 * 9
        for name in (f"conv2d_{batch}x64x56x56_f64", f"conv2d_{batch}x64x56x56_f64_auto",
                     f"conv2d_{batch}x64x56x56_f64_tuned"):
            yield name, flops, 0, (lambda inp=inp, w=w: F.conv2d(inp, w, padding=1))
    # The seed's fused depthwise (OpsGpuBench: the hand template, the generated pick, the best
    # generated record) beside cuDNN's depthwise + scale_shift + relu in eager ops, and a copy of the
    # input (device to device): the bandwidth a kernel that reads the input and writes the output
    # once can reach.
    for batch in (1, 32):
        inp, w = rand(batch, 256, 96, 96), rand(256, 1, 3, 3)
        scale, shift = rand(256)[:, None, None], rand(256)[:, None, None]
        nbytes = 2 * 4 * inp.numel()
        for kind in ("template", "auto", "tuned"):
            yield f"depthwise_fused_{batch}x256x96x96_{kind}", 0, nbytes, (
                lambda inp=inp, w=w, scale=scale, shift=shift:
                torch.relu(F.conv2d(inp, w, padding=1, groups=256) * scale + shift))
        dst = torch.empty_like(inp)
        yield f"copy_{batch}x256x96x96", 0, nbytes, (lambda inp=inp, dst=dst: dst.copy_(inp))


CONV_BN_SWISH = ((1, 64, 56, 56, 64), (8, 32, 28, 28, 32))


def conv_bn_swish_variants():
    """(workload, flops, eager, {variant: fn}) of the sample's operator; fns take no argument."""
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(7)

    def rand(*shape, lo=-1.0, hi=1.0):
        return torch.rand(*shape, generator=g, device=dev) * (hi - lo) + lo

    for n, c, h, w, k in CONV_BN_SWISH:
        x, wt = rand(n, c, h, w), rand(k, c, 3, 3)
        gamma, beta, mean = rand(k, lo=0.5, hi=1.5), rand(k), rand(k)
        var = rand(k, lo=0.5, hi=1.5)

        def three(x, wt, gamma, beta, mean, var):
            y = F.batch_norm(F.conv2d(x, wt, padding=1), mean, var, gamma, beta,
                             training=False, eps=1e-5)
            return F.silu(y)

        scale = gamma / torch.sqrt(var + 1e-5)
        wf = (wt * scale[:, None, None, None]).contiguous()
        bf = (beta - mean * scale).contiguous()
        args = (x, wt, gamma, beta, mean, var)
        variants = {"folded": (lambda x=x, wf=wf, bf=bf: F.silu(F.conv2d(x, wf, bf, padding=1)))}
        if os.environ.get("KG_OPS_COMPILE", "1") != "0":
            variants["compiled"] = ("compile", three, args)
        yield (f"conv_bn_swish_{n}x{c}x{h}x{w}_k{k}", 2.0 * n * k * h * w * c * 9,
               (lambda args=args, three=three: three(*args)), variants)


def measure_conv_bn_swish(only):
    rows = []
    for workload, flops, eager, variants in conv_bn_swish_variants():
        if only and only not in workload:
            continue
        expected = eager()
        r = {"workload": workload, "torch_us": round(per_call(eager), 3),
             "torch_gpu_us": round(graph_time(eager), 3)}
        r["torch_tflops"] = round(flops / r["torch_gpu_us"] / 1e6, 3)
        for key, fn in variants.items():
            try:
                if isinstance(fn, tuple):  # torch.compile, built here and timed like the others
                    _, three, args = fn
                    torch._dynamo.reset()
                    compiled = torch.compile(three, mode=os.environ.get(
                        "KG_COMPILE_MODE", "max-autotune-no-cudagraphs"), dynamic=False)
                    t0 = time.perf_counter()
                    compiled(*args)
                    torch.cuda.synchronize()
                    r[f"torch_{key}_compile_s"] = round(time.perf_counter() - t0, 1)
                    fn = (lambda compiled=compiled, args=args: compiled(*args))
                err = ((fn() - expected).abs() / expected.abs().clamp(min=1)).max().item()
                if not err <= 1e-3:
                    raise RuntimeError(f"{key} differs from eager by {err:.3g} (relative)")
                r[f"torch_{key}_us"] = round(per_call(fn), 3)
                r[f"torch_{key}_gpu_us"] = round(graph_time(fn), 3)
            except Exception as e:  # noqa: BLE001 - recorded, and the run goes on
                r[f"torch_{key}_error"] = f"{type(e).__name__}: {e}"
        print(r, flush=True)
        rows.append(r)
    return rows


def ours_names(opts):
    """The workloads of OpsGpuBench's report given by --ours (none without it)."""
    if "--ours" not in opts:
        return set()
    with open(opts["--ours"]) as f:
        return {r["workload"] for r in json.load(f)["results"]}


def main(argv):
    if not argv or argv[0].startswith("--"):
        print(__doc__)
        return 2
    out_path = argv[0]
    opts = dict(zip(argv[1::2], argv[2::2])) if len(argv) > 1 else {}
    only = opts.get("--only")
    configure()
    name = torch.cuda.get_device_name()
    print(f"ops_torch on {name}, torch {torch.__version__}")
    rows = []
    ours = ours_names(opts)
    for workload, flops, nbytes, fn in workloads():
        if only and only not in workload:
            continue
        if workload.endswith("_tuned") and workload not in ours:
            continue  # no tuned row of ours to stand beside
        r = {"workload": workload, "torch_us": round(per_call(fn), 3),
             "torch_gpu_us": round(graph_time(fn), 3)}
        if flops:
            r["torch_tflops"] = round(flops / r["torch_gpu_us"] / 1e6, 3)
        if nbytes:
            r["torch_gbps"] = round(nbytes / r["torch_gpu_us"] / 1e3, 3)
        print(r, flush=True)
        rows.append(r)
        with open(out_path, "w") as f:
            json.dump({"device": name, "torch": torch.__version__, "results": rows}, f, indent=2)
    rows += measure_conv_bn_swish(only)
    with open(out_path, "w") as f:
        json.dump({"device": name, "torch": torch.__version__, "results": rows}, f, indent=2)
    if "--ours" in opts:
        with open(opts["--ours"]) as f:
            ours = {r["workload"]: r for r in json.load(f)["results"]}
        merged = []
        print(f"{'workload':26s} {'ours GPU us':>12s} {'torch GPU us':>13s} {'torch/ours':>10s} kernels")
        for r in rows:
            o = ours.get(r["workload"])
            if o is None:
                continue
            m = dict(o)
            m.update(r)
            m["torch_over_ours"] = round(r["torch_gpu_us"] / o["ours_gpu_us"], 3)
            merged.append(m)
            print(f"{r['workload']:26s} {o['ours_gpu_us']:12.1f} {r['torch_gpu_us']:13.1f} "
                  f"{m['torch_over_ours']:10.3f} {o.get('kernels')}")
            for key in ("folded", "compiled"):  # the other PyTorch variants of a workload
                if f"torch_{key}_gpu_us" in r:
                    m[f"torch_{key}_over_ours"] = round(
                        r[f"torch_{key}_gpu_us"] / o["ours_gpu_us"], 3)
                    print(f"  {'torch ' + key:24s} {'':12s} {r[f'torch_{key}_gpu_us']:13.1f} "
                          f"{m[f'torch_{key}_over_ours']:10.3f}")
                elif f"torch_{key}_error" in r:
                    print(f"  {'torch ' + key:24s} failed: {r[f'torch_{key}_error']}")
        if "--merged" in opts:
            with open(opts["--merged"], "w") as f:
                json.dump({"device": name, "results": merged}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
