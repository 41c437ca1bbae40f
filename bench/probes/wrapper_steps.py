"""Probe: where `kforge.conv`'s host time goes, step by step (src/dense/NOTES.md, "Host cost per call").

Times, each on its own (timeit, `--calls` calls back to back, median of 7 batches, microseconds per call), the torch
and ctypes calls the wrapper makes, the whole wrapper, the C call it makes replayed alone (bench/host_cost.py) and
F.conv3d for scale, on a problem small enough that the GPU never holds the host back; then cProfile's top entries
for the whole wrapper. Run from the repository root on a GPU machine:
  python3 bench/probes/wrapper_steps.py [--kforge-path DIR]   (DIR holds the kforge package; default python/)
"""
import argparse
import cProfile
import os
import pstats
import statistics
import sys
import timeit

import torch
import torch.nn.functional as F

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--kforge-path", default=os.path.join(here, "..", "..", "python"))
ap.add_argument("--calls", type=int, default=2000)
args = ap.parse_args()
sys.path[:0] = [args.kforge_path, os.path.join(here, "..")]
import kforge  # noqa: E402
from host_cost import c_abi_call  # noqa: E402

fmt = torch.channels_last_3d
x = torch.randn(1, 64, 4, 8, 8, device="cuda", dtype=torch.bfloat16).contiguous(memory_format=fmt)
w = torch.randn(64, 64, 3, 3, 3, device="cuda", dtype=torch.bfloat16).contiguous(memory_format=fmt)
replayed = c_abi_call(x, w, {"stride": 1, "padding": 1}, None)
steps = {
    "F.conv3d (scale)": lambda: F.conv3d(x, w, None, 1, 1),
    "kforge.conv": lambda: kforge.conv(x, w, None, padding=1),
    "its C call replayed": replayed,
    "current_stream(x.device).cuda_stream": lambda: torch.cuda.current_stream(x.device).cuda_stream,
    "_cuda_getCurrentRawStream(x.get_device())": lambda: torch._C._cuda_getCurrentRawStream(x.get_device()),
    "torch.empty channels_last_3d": lambda: torch.empty([1, 64, 4, 8, 8], dtype=x.dtype, device=x.device,
                                                        memory_format=fmt),
    "x.is_contiguous() x2": lambda: (x.is_contiguous(), x.is_contiguous(memory_format=fmt)),
    "kforge._view(x)": lambda: kforge._view(x),
    "x.size(i), x.stride(i) per dim": lambda: [(x.size(i), x.stride(i)) for i in range(5)],
    "x.shape, x.stride()": lambda: (x.shape, x.stride()),
    "x.device": lambda: x.device,
    "x.data_ptr()": lambda: x.data_ptr(),
}
if hasattr(kforge, "_plan"):
    steps["kforge._plan worked out (not cached)"] = lambda: kforge._plan.__wrapped__(x.shape, w.shape, 1, 1, 1, 1, None)
print(f"kforge from {os.path.dirname(kforge.__file__)}; {torch.cuda.get_device_name()}; torch {torch.__version__}")
print(f"{'step':<44} {'us/call':>8} {'spread':>14}")
for name, fn in steps.items():
    fn(), torch.cuda.synchronize()
    runs = [t / args.calls * 1e6 for t in timeit.repeat(fn, setup=torch.cuda.synchronize, number=args.calls, repeat=7)]
    print(f"{name:<44} {statistics.median(runs):8.2f} {min(runs):6.2f}-{max(runs):<7.2f}")
torch.cuda.synchronize()
profile = cProfile.Profile()
profile.runcall(lambda: [kforge.conv(x, w, None, padding=1) for _ in range(args.calls)])
torch.cuda.synchronize()
pstats.Stats(profile).sort_stats("tottime").print_stats(14)
