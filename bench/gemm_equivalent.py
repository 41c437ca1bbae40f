#!/usr/bin/env python3
"""Time cuBLAS on the implicit GEMM of each dense suite case: the rate a plain bf16 GEMM of that shape reaches.

usage: gemm_equivalent.py SUITE.json [--only NAME,...] [--seconds S] [--max-a-gib G] [--json OUT.json]

A conv's implicit GEMM is M = N*Do*Ho*Wo rows, N = K output channels, K = C*T*R*S (y[M,N] = x_im2col[M,K] w[N,K]^T,
channels-last). cuBLAS multiplies a random A of that shape (M capped so that A fits in --max-a-gib; the rows used
are printed) by a random w, timed like torch_baseline.py (CUDA events, a 256 MiB L2 flush before each sample,
median) but for --seconds of samples, long enough for the board to reach its power-capped clock on the large
cases. It is not a conv (A is not im2col'ed from one input), so it answers one question: how fast does the
vendor's GEMM run at this M x N x K on this GPU right now. The cuBLAS kernel's name (its tile and cluster) is
printed too.
"""
import argparse, json, statistics, sys
import torch


def out_size(n, k, s, p, d):
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def gemm_shape(c):
    T, R, S = c["kernel"]
    dl = c.get("dilation", [1, 1, 1])
    Do, Ho, Wo = (out_size(n, k, s, p, d) for n, k, s, p, d in
                  zip((c["D"], c["H"], c["W"]), (T, R, S), c["stride"], c["padding"], dl))
    return c["N"] * Do * Ho * Wo, c["K"], c["C"] * T * R * S


def time_samples(fn, seconds):
    scratch = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device="cuda")  # L2 flush buffer
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts, spent = [], 0.0
    while spent < seconds * 1e3 or len(ts) < 10:
        scratch.zero_()
        s.record(); fn(); e.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
        spent += ts[-1]
    return ts


def kernel_names(fn):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn(); torch.cuda.synchronize()
    return sorted({ev.key for ev in prof.key_averages() if ev.device_type == torch.autograd.DeviceType.CUDA})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("suite"); ap.add_argument("--only", default=""); ap.add_argument("--json", default="")
    ap.add_argument("--seconds", type=float, default=1.0); ap.add_argument("--max-a-gib", type=float, default=4.0)
    a = ap.parse_args()
    suite = json.load(open(a.suite))
    if suite["suite"] != "dense":
        sys.exit(f"gemm_equivalent.py: expected the dense suite, but got '{suite['suite']}'")
    only = set(x for x in a.only.split(",") if x)
    rows = []
    print(f"# torch {torch.__version__} cublas via torch.matmul, {torch.cuda.get_device_name()}")
    print(f"{'case':18} {'M used':>9} {'of M':>9} {'N':>5} {'K':>6} {'ms':>8} {'TFLOP/s':>8} {'iqr%':>5}  kernel")
    for c in suite["cases"]:
        if only and c["name"] not in only:
            continue
        M, N, K = gemm_shape(c)
        rows_used = min(M, int(a.max_a_gib * 2**30 / (2 * K)) // 256 * 256)
        x = torch.randn(rows_used, K, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16) / K ** 0.5
        fn = lambda: torch.matmul(x, w.t())
        ts = sorted(time_samples(fn, a.seconds))
        med = statistics.median(ts)
        iqr = (ts[3 * len(ts) // 4] - ts[len(ts) // 4]) / med * 100
        tflops = 2.0 * rows_used * N * K / med / 1e9
        names = kernel_names(fn)
        rows.append(dict(case=c["name"], m=M, m_used=rows_used, n=N, k=K, ms=med, min_ms=ts[0], max_ms=ts[-1],
                         samples=len(ts), iqr_pct=iqr, tflops=tflops, kernels=names))
        print(f"{c['name']:18} {rows_used:9d} {M:9d} {N:5d} {K:6d} {med:8.3f} {tflops:8.1f} {iqr:5.1f}  "
              f"{' | '.join(names)[:160]}", flush=True)
        del x, w
        torch.cuda.empty_cache()
    if a.json:
        json.dump(dict(torch=torch.__version__, device=torch.cuda.get_device_name(), seconds=a.seconds, rows=rows),
                  open(a.json, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
