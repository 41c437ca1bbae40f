"""What one `kforge.conv` call costs the host, next to the GPU time of its kernels, against F.conv3d.

The GPU-event timings of `kforge bench` start after the launch, so they leave out what each call spends on the CPU:
argument checks, dispatch, CUTLASS's argument set-up and TMA descriptor encoding (src/dense/NOTES.md, "Host cost per
call"). On a 36-us conv that may matter. Per case and layout, for kforge.conv, its C ABI alone (`kforge-c`: the
call kforge.conv makes, replayed, so the difference to kforge.conv is the Python wrapper) and F.conv3d on the same
bf16 tensors:
  host   microseconds of CPU per call while issuing `--calls` calls back to back (no synchronization in between);
  stream microseconds per call on the stream over those calls (CUDA events): the larger of the host's issue rate and
         the GPU's time; stream close to host means the calls are host-bound;
  gpu    microseconds per call when the GPU is not waiting for the host: the events around `--calls` calls queued
         behind a 50 ms spin kernel, so the whole batch is already issued when the GPU reaches it.
No L2 flush (the point is the per-call overhead; the kernels' own times come from `kforge bench`).

  python3 bench/host_cost.py [--case NAME]... [--layout ndhwc|ncdhw|both] [--calls N] [--variant V]
"""
import argparse
import json
import os
import statistics
import sys
import time
import types

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import kforge  # noqa: E402

SUITE = os.path.join(os.path.dirname(__file__), "suites", "dense.json")


def inputs(case, layout):
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(case["N"], case["C"], case["D"], case["H"], case["W"], device="cuda", generator=g).bfloat16()
    w = torch.randn(case["K"], case["C"], *case["kernel"], device="cuda", generator=g).bfloat16()
    if layout == "ndhwc":
        x, w = x.contiguous(memory_format=torch.channels_last_3d), w.contiguous(memory_format=torch.channels_last_3d)
    return x, w


def c_abi_call(x, w, case, variant):
    """The C ABI call kforge.conv makes, recorded once and replayed without its Python (the same output each call)."""
    lib, recorded = kforge._library(), []
    kforge._lib = types.SimpleNamespace(kforge_conv=lambda *a: recorded.append(a) or lib.kforge_conv(*a),
                                        kforge_last_error=lib.kforge_last_error)
    try:
        y = kforge.conv(x, w, None, stride=case["stride"], padding=case["padding"], variant=variant)
    finally:
        kforge._lib = lib
    args = recorded[0]  # ctypes.byref keeps the argument structs alive

    def call():
        if lib.kforge_conv(*args):
            raise RuntimeError(lib.kforge_last_error().decode())
    call.output = y  # keeps y's memory, which args point to
    return call


def per_call_us(fn, calls):
    """(host, stream, gpu) microseconds per call: see the module docstring."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    host = (time.perf_counter() - t0) / calls * 1e6
    end.record()
    torch.cuda.synchronize()
    stream = start.elapsed_time(end) / calls * 1e3
    torch.cuda._sleep(100_000_000)  # ~50 ms of spinning at ~2 GHz: the batch below is issued before it ends
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    torch.cuda.synchronize()
    gpu = start.elapsed_time(end) / calls * 1e3
    return host, stream, gpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--case", action="append", help="dense suite case (default: c64_stride2, c512_k111, c3_stem)")
    ap.add_argument("--layout", choices=["ndhwc", "ncdhw", "both"], default="both")
    ap.add_argument("--calls", type=int, default=100, help="calls per measurement (default 100)")
    ap.add_argument("--repeats", type=int, default=5, help="measurements per row; the median is shown (default 5)")
    ap.add_argument("--variant", help="run this kforge variant instead of the dispatch's choice (isolates dispatch)")
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("host_cost.py: no CUDA device visible to PyTorch")
    cases = {c["name"]: c for c in json.load(open(SUITE))["cases"]}
    names = args.case or ["c64_stride2", "c512_k111", "c3_stem"]
    unknown = [n for n in names if n not in cases]
    if unknown:
        sys.exit(f"host_cost.py: no case {unknown[0]!r} in {SUITE}")
    layouts = ["ndhwc", "ncdhw"] if args.layout == "both" else [args.layout]
    rows = []
    print(f"{'case':<14} {'layout':<6} {'conv':<8} {'host us':>8} {'stream us':>10} {'gpu us':>8}  host/gpu")
    for name in names:
        case = cases[name]
        pad = case["padding"]
        for layout in layouts:
            x, w = inputs(case, layout)
            fns = {"kforge": lambda: kforge.conv(x, w, None, stride=case["stride"], padding=pad, variant=args.variant),
                   "kforge-c": c_abi_call(x, w, case, args.variant),
                   "torch": lambda: F.conv3d(x, w, None, stride=case["stride"], padding=pad)}
            for label, fn in fns.items():
                for _ in range(20):  # warm-up: the tune cache's first read, cuDNN's algorithm choice, module loading
                    fn()
                runs = [per_call_us(fn, args.calls) for _ in range(args.repeats)]
                host, stream, gpu = (statistics.median(r[i] for r in runs) for i in range(3))
                rows.append({"case": name, "layout": layout, "conv": label, "host_us": host, "stream_us": stream,
                             "gpu_us": gpu, "calls": args.calls, "repeats": args.repeats})
                print(f"{name:<14} {layout:<6} {label:<8} {host:8.1f} {stream:10.1f} {gpu:8.1f}  {host / gpu:8.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
