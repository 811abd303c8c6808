#!/usr/bin/env python3
"""PyTorch side of the GPU benchmark of depthwise convolution (NCHW, float32).

Usage: python3 bench/gpu_torch.py WORKLOADS_JSON OUT_JSON [--only TEXT] [--no-compile]

WORKLOADS_JSON is a list of {workload, n, c, h, w, multiplier, kernel, stride, pad_top, pad_left,
pad_bottom, pad_right}, as CpuBench --gpu-workloads writes it (bench/workloads.json). For each
workload three implementations are measured:

  cudnn     F.conv2d(groups=C), cudnn.benchmark on, TF32 off
  eager3    the same conv, then y * scale + shift (one addcmul), then relu: three kernels
  compiled  torch.compile(mode="max-autotune-no-cudagraphs") of those three ops
  compiled_nchw  the same with Inductor's layout optimization off, so the conv stays NCHW

with two figures each: *_us, time per call of back-to-back launches (CUDA events around a batch
of launches, best batch), which includes launch overhead; and *_gpu_us, the same ops captured in
a CUDA graph and replayed, which is close to the GPU's own time. Asymmetric SAME pads (stride 2)
are applied once, outside the timed region, and the conv then runs with padding=0 ("prepadded").

The output JSON is rewritten after every workload, so a run cut short still leaves its results.
Only torch is needed.
"""

import json
import os
import math
import sys
import time
import traceback

import torch
import torch._dynamo
import torch._inductor.config
import torch.nn.functional as F

LAUNCHES = 200  # launches per timed batch
BATCHES = 5  # batches; the best one counts
GRAPH_ITERS = 50  # iterations captured in one CUDA graph
GRAPH_REPLAYS = 10  # replays; the best one counts
TOLERANCE = 1e-3  # max abs error of compiled against eager, as on the CPU side
COPY_BYTES = 1 << 30


def configure():
    torch.backends.cudnn.benchmark = True
    # TF32 would make cuDNN faster and wrong by 1e-3 relative: compare float32 with float32.
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    try:  # the newer precision API (PyTorch 2.9+); the flags above still work but warn later
        torch.backends.cudnn.conv.fp32_precision = "ieee"
        torch.backends.cuda.matmul.fp32_precision = "ieee"
    except (AttributeError, RuntimeError):
        pass
    try:
        # Each workload is a new shape; compile each afresh instead of hitting the recompile limit.
        torch._dynamo.config.cache_size_limit = 64
    except AttributeError:
        pass


def time_per_call(fn):
    """Best over BATCHES of the mean time of LAUNCHES back-to-back calls, in microseconds."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    best = math.inf
    for _ in range(BATCHES):
        start.record()
        for _ in range(LAUNCHES):
            fn()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) * 1000.0 / LAUNCHES)
    return best


def time_graph(fn):
    """GPU time per call: GRAPH_ITERS calls captured in a CUDA graph, best replay, microseconds."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up on a side stream, as graph capture requires
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(GRAPH_ITERS):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    best = math.inf
    for _ in range(GRAPH_REPLAYS):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) * 1000.0 / GRAPH_ITERS)
    del graph
    return best


def copy_gbps():
    """Device-to-device copy bandwidth, counting bytes read plus bytes written."""
    src = torch.empty(COPY_BYTES // 4, dtype=torch.float32, device="cuda").fill_(1.0)
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    best = math.inf
    for _ in range(10):
        start.record()
        dst.copy_(src)
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / 1000.0)
    del src, dst
    torch.cuda.empty_cache()
    return 2 * COPY_BYTES / best / 1e9


def workload_ops(wl):
    """Tensors and the three callables of one workload."""
    n, c, h, w = wl["n"], wl["c"], wl["h"], wl["w"]
    m, k, s = wl["multiplier"], wl["kernel"], wl["stride"]
    pt, pl, pb, pr = wl["pad_top"], wl["pad_left"], wl["pad_bottom"], wl["pad_right"]
    gen = torch.Generator(device="cuda").manual_seed(42)
    x = torch.rand((n, c, h, w), device="cuda", generator=gen) * 2 - 1
    # Filter [C, m, K, K] in memory is PyTorch's grouped-conv weight [C*m, 1, K, K].
    weight = torch.rand((c * m, 1, k, k), device="cuda", generator=gen) * 2 - 1
    scale = torch.rand((1, c * m, 1, 1), device="cuda", generator=gen) + 0.5
    shift = torch.rand((1, c * m, 1, 1), device="cuda", generator=gen) - 0.5
    prepadded = (pt, pl) != (pb, pr)
    if prepadded:
        x = F.pad(x, (pl, pr, pt, pb))
        padding = 0
    else:
        padding = (pt, pl)

    def conv(inp, wt):
        return F.conv2d(inp, wt, stride=s, padding=padding, groups=c)

    def three(inp, wt, sc, sh):
        return F.relu(torch.addcmul(sh, conv(inp, wt), sc))

    return x, weight, scale, shift, conv, three, prepadded


def measure_compiled(key, layout_opt, row, errors, attempt, three, args, expected):
    """Compiles, checks and times the three ops as row[key + "_us"] and row[key + "_gpu_us"].

    Inductor's layout optimization turns a conv's input to channels-last, where cuDNN's float32
    depthwise conv is several times slower than in NCHW; with it off ("nchw") the conv stays in
    the workload's layout. Both are reported: the default, and the better-suited configuration.
    """
    torch._dynamo.reset()  # a fresh compile, not the previous variant's cache entry
    with torch._inductor.config.patch(layout_optimization=layout_opt):
        try:
            compiled = torch.compile(three, mode=COMPILE_MODE, dynamic=False)
            t0 = time.perf_counter()
            got = compiled(*args)
            torch.cuda.synchronize()
            row[key + "_compile_s"] = round(time.perf_counter() - t0, 1)
            err = (got - expected).abs().max().item()
            row[key + "_max_abs_err"] = err
            if not err <= TOLERANCE:
                raise RuntimeError(f"compiled output differs from eager by {err:.3g}")
        except Exception as e:  # noqa: BLE001 - recorded, and the run goes on
            errors[key] = f"{type(e).__name__}: {e}"
            traceback.print_exc()
            return
        attempt(key + "_us", lambda: time_per_call(lambda: compiled(*args)))
        attempt(key + "_gpu_us", lambda: time_graph(lambda: compiled(*args)))


# Which torch.compile variants to measure (each compile takes 15-25 s per workload): set
# KG_COMPILE_VARIANTS=compiled_nchw to keep only the one that suits NCHW depthwise best.
COMPILE_VARIANTS = os.environ.get("KG_COMPILE_VARIANTS", "compiled,compiled_nchw").split(",")
COMPILE_MODE = os.environ.get("KG_COMPILE_MODE", "max-autotune-no-cudagraphs")


def measure(wl, compile_enabled):
    name = wl["workload"]
    row = {
        "workload": name,
        "cudnn_us": None,
        "cudnn_gpu_us": None,
        "eager3_us": None,
        "eager3_gpu_us": None,
        "compiled_us": None,
        "compiled_gpu_us": None,
        "compiled_nchw_us": None,
        "compiled_nchw_gpu_us": None,
    }
    errors = {}
    x, weight, scale, shift, conv, three, prepadded = workload_ops(wl)
    row["prepadded"] = prepadded
    expected = three(x, weight, scale, shift)
    out_shape = list(expected.shape)
    want = [wl["n"], wl["c"] * wl["multiplier"]]
    if out_shape[:2] != want:
        raise RuntimeError(f"{name}: output shape {out_shape}, expected {want} + [outH, outW]")
    row["out_shape"] = out_shape

    def attempt(key, thunk):
        try:
            row[key] = round(thunk(), 2)
        except Exception as e:  # noqa: BLE001 - one failure must not end the run
            errors[key] = f"{type(e).__name__}: {e}"

    attempt("cudnn_us", lambda: time_per_call(lambda: conv(x, weight)))
    attempt("cudnn_gpu_us", lambda: time_graph(lambda: conv(x, weight)))
    attempt("eager3_us", lambda: time_per_call(lambda: three(x, weight, scale, shift)))
    attempt("eager3_gpu_us", lambda: time_graph(lambda: three(x, weight, scale, shift)))

    if compile_enabled:
        variants = [v for v in (("compiled", True), ("compiled_nchw", False))
                    if v[0] in COMPILE_VARIANTS]
        for key, layout_opt in variants:
            measure_compiled(key, layout_opt, row, errors, attempt, three, (x, weight, scale, shift),
                             expected)
    else:
        errors["compiled"] = "skipped (--no-compile)"

    if errors:
        row["errors"] = errors
    return row


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    only = None
    compile_enabled = "--no-compile" not in argv
    if "--only" in argv:
        i = argv.index("--only")
        if i + 1 >= len(argv):
            sys.exit("--only needs a value")
        only = argv[i + 1]
        args.remove(only)
    if len(args) != 2:
        sys.exit(__doc__)
    workloads_path, out_path = args
    with open(workloads_path) as f:
        workloads = json.load(f)
    if only is not None:
        workloads = [wl for wl in workloads if only in wl["workload"]]
    if not torch.cuda.is_available():
        sys.exit("gpu_torch.py: no CUDA device visible to PyTorch")

    configure()
    report = {
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "cudnn": torch.backends.cudnn.version(),
        "copy_gbps": None,
        "results": [],
    }
    report["copy_gbps"] = round(copy_gbps(), 1)
    print(f"{report['device']}, torch {report['torch']}, cudnn {report['cudnn']}, "
          f"copy {report['copy_gbps']} GB/s", flush=True)

    header = f"{'workload':30} {'cudnn':>9} {'cudnn_g':>9} {'eager3':>9} {'eager3_g':>9} " \
             f"{'compiled':>9} {'compil_g':>9} {'c_nchw':>9} {'c_nchw_g':>9}"
    print(header, flush=True)
    for wl in workloads:
        try:
            row = measure(wl, compile_enabled)
        except Exception as e:  # noqa: BLE001 - a broken workload is reported, not fatal
            traceback.print_exc()
            row = {"workload": wl.get("workload"), "errors": {"setup": f"{type(e).__name__}: {e}"}}
        report["results"].append(row)
        cells = [row.get(k) for k in ("cudnn_us", "cudnn_gpu_us", "eager3_us", "eager3_gpu_us",
                                      "compiled_us", "compiled_gpu_us", "compiled_nchw_us",
                                      "compiled_nchw_gpu_us")]
        print(f"{row['workload']:30} " + " ".join(
            f"{'-' if v is None else format(v, '.1f'):>9}" for v in cells), flush=True)
        if row.get("errors"):
            print(f"  errors: {row['errors']}", flush=True)
        with open(out_path, "w") as f:
            json.dump(report, f, indent=2)
            f.write("\n")
        torch.cuda.empty_cache()
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main(sys.argv)
