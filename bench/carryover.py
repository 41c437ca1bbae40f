#!/usr/bin/env python3
"""Each variant's round-robin samples split by the variant timed just before them: the carry-over on a power-capped
board, where a sample's clock depends on how much power the kernel before it drew.

usage: carryover.py BENCH.json [--case NAME]

With `--samples-per-visit N` a variant's samples come N in a row; they are also split by their place in the turn
(0: right after a neighbour, unless `--settle-ms` ran the variant alone first), which shows how fast the carry-over
fades.

BENCH.json is what `kforge bench ... --interleave --out DIR` writes: every round-robin row carries `samples_ms` and
`samples_after` (the variant timed before each sample). Prints, per case and variant, the median of its samples
after each predecessor and the spread of those medians: a spread past the variants' own differences says the
round-robin medians compare kernels *and* the neighbours they were timed after (`round_robin_order` balances the
neighbours over a cycle of rounds, so the medians of a full cycle weigh every neighbour alike).
"""
import argparse, json, statistics, sys


def carryover(rows):
    """{(case, layout, variant): {predecessor: [ms, ...]}} for the round-robin rows of a bench JSON."""
    out = {}
    for r in rows:
        after = r.get("samples_after")
        if not after:
            continue
        if len(after) != len(r["samples_ms"]):
            raise ValueError(f"{r['variant']}: {len(after)} predecessors for {len(r['samples_ms'])} samples")
        by = out.setdefault((r["case"], r["layout"], r["variant"]), {})
        for before, ms in zip(after, r["samples_ms"]):
            by.setdefault(before or "(none)", []).append(ms)
    return out


def by_position(rows):
    """{(case, layout, variant): {place in its turn: [ms, ...]}} for the rows timed with samples_per_visit > 1."""
    out = {}
    for r in rows:
        per_visit = r.get("samples_per_visit", 1)
        if r.get("samples_after") and per_visit > 1:
            by = out.setdefault((r["case"], r["layout"], r["variant"]), {})
            for i, ms in enumerate(r["samples_ms"]):
                by.setdefault(i % per_visit, []).append(ms)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench_json")
    ap.add_argument("--case", help="only this case")
    a = ap.parse_args(argv)
    with open(a.bench_json) as f:
        rows = json.load(f)["rows"]
    rows = [r for r in rows if a.case in (None, r["case"])]
    table, positions = carryover(rows), by_position(rows)
    if not table:
        print("carryover.py: no round-robin rows with samples_after (run kforge bench with --interleave --out)",
              file=sys.stderr)
        return 1
    for (case, layout, variant), by in table.items():
        medians = {before: statistics.median(ms) for before, ms in by.items()}
        lo, hi = min(medians.values()), max(medians.values())
        print(f"{case} {layout} {variant}: after-neighbour medians {lo:.4f}-{hi:.4f} ms ({(hi / lo - 1) * 100:.1f}%)")
        for before, med in sorted(medians.items(), key=lambda kv: kv[1]):
            print(f"  after {before:<60} {med:9.4f} ms  ({len(by[before])} samples)")
        pos = positions.get((case, layout, variant))
        if pos:
            print("  by place in the turn: " +
                  ", ".join(f"{p}: {statistics.median(ms):.4f} ms ({len(ms)})" for p, ms in sorted(pos.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
