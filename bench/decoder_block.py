"""Times Wan 2.1's up3 residual block as a decoder runs it, with the convs forced to named kforge variants.

Short `kforge bench` runs and long round-robin ones rank the halo kernels and v21 differently on wan21_up3
(src/dense/NOTES.md, "Halo rows"): the board's clock depends on what runs between the convs. Here what runs between
them is what a decoder runs: per conv an RMS norm over channels, SiLU, the causal pad (2 frames before, 1 pixel
around) into a channels-last buffer, and the residual add, on [1, 96, 4, 720, 1280] bf16 activations. A round is
`--blocks` residual blocks (two convs each); rounds go round-robin over the variants (and PyTorch's F.conv3d as
`torch`), CUDA events around each round, no L2 flush (the activations are 0.7 GB each). Output is checked once per
variant against F.conv3d's block (calc_diff).

  python3 bench/decoder_block.py dense_v21_persistent_256x96x32_c2x1 dense_v30_halo_256x96x32_c2x1_d8 [--rounds N]
"""
import argparse
import os
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import kforge  # noqa: E402

CL = torch.channels_last_3d


def calc_diff(x, y):
    x, y = x.double(), y.double()
    return (1 - 2 * (x * y).sum() / (x * x + y * y).sum()).item()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("variants", nargs="+", help="kforge variant names ('torch': F.conv3d)")
    ap.add_argument("--blocks", type=int, default=2, help="residual blocks per timed round (default 2)")
    ap.add_argument("--rounds", type=int, default=20, help="timed rounds per variant (default 20)")
    args = ap.parse_args()
    torch.manual_seed(0)
    dev, dt, c = "cuda", torch.bfloat16, 96
    x = torch.randn(1, c, 4, 720, 1280, device=dev, dtype=dt).contiguous(memory_format=CL)
    convs = [(torch.randn(c, c, 3, 3, 3, device=dev, dtype=dt).mul_(0.06).contiguous(memory_format=CL),
              torch.randn(c, device=dev, dtype=dt).mul_(0.1)) for _ in range(2)]
    gamma = torch.ones(c, device=dev, dtype=dt)
    padded = torch.zeros(1, c, 6, 722, 1282, device=dev, dtype=dt).contiguous(memory_format=CL)

    def norm_silu_pad(h):
        h = F.rms_norm(h.permute(0, 2, 3, 4, 1), (c,), gamma, 1e-6).permute(0, 4, 1, 2, 3)
        padded[:, :, 2:, 1:-1, 1:-1].copy_(F.silu(h))
        return padded

    def block(h, variant):
        r = h
        for w, b in convs:
            p = norm_silu_pad(h)
            h = F.conv3d(p, w, b) if variant == "torch" else kforge.conv(p, w, b, variant=variant)
        return r + h

    def run(variant):
        h = x
        for _ in range(args.blocks):
            h = block(h, variant)
        return h

    ref = run("torch")
    for v in args.variants:
        d = calc_diff(run(v), ref)
        print(f"{v}: calc_diff vs F.conv3d's blocks {d:.2e}")
        if not d < 1e-4:  # bf16 activations through 2 * blocks convs and norms; NaN fails too
            sys.exit(f"{v} disagrees with F.conv3d")
    names = args.variants + ["torch"]
    times = {v: [] for v in names}
    for v in names:  # warm-up
        run(v)
    for r in range(args.rounds):
        for i in range(len(names)):
            v = names[(r + i) % len(names)]
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            run(v)
            stop.record()
            stop.synchronize()
            times[v].append(start.elapsed_time(stop))
    convs_per_round = 2 * args.blocks
    print(f"{torch.cuda.get_device_name()}, {args.blocks} blocks ({convs_per_round} convs) per round, "
          f"{args.rounds} rounds round-robin")
    base = statistics.median(times[names[0]])
    for v in names:
        t = sorted(times[v])
        med = statistics.median(t)
        print(f"{v:<40} median {med:8.3f} ms  min {t[0]:8.3f}  max {t[-1]:8.3f}  x first {base / med:5.3f}")


if __name__ == "__main__":
    main()
