#!/usr/bin/env python3
"""The standard workloads W1..W7 of shared/PERFORMANCE.md in PyTorch CUDA.

Times each workload's out-of-place op on the GPU with CUDA events (the
clone of self included, as the Go backend's device time includes its copy
of self), median of --reps runs after --warmup, and reports the same
columns as cuda/bench_test.go: gpu-ms/op, GB/s (the same byte counts),
copy-GB/s (a 256 MiB device-to-device copy in the same process) and %copy.

    python3 cuda/bench_torch.py [--reps 50] [--json out.json]

Data: float32 uniform in [-1, 1), int64 indices uniform, fixed seeds (the
values differ from the Go benchmark's, the distributions do not).
"""

import argparse
import json
import statistics
import sys

import torch


def timed(fn, reps, warmup):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def workloads(dev):
    g = torch.Generator(device=dev)
    g.manual_seed(2026)
    n1, m1 = 10_000_000, 1_000_000
    rows, cols, out_rows = 1_000_000, 64, 100_000

    def uniform(*shape):
        return torch.rand(*shape, generator=g, device=dev) * 2 - 1

    def index(n, hi):
        return torch.randint(0, hi, (n,), generator=g, device=dev, dtype=torch.int64)

    src1, idx1 = uniform(n1), index(n1, m1)
    zeros1 = torch.zeros(m1, device=dev)
    bytes1 = n1 * (8 + 4) + 2 * 4 * m1
    w = {}
    w["W1"] = (lambda: torch.scatter_add(zeros1, 0, idx1, src1), bytes1)
    w["W3"] = (lambda: torch.scatter_reduce(zeros1, 0, idx1, src1, "amax", include_self=False), bytes1)
    w["W4"] = (lambda: torch.scatter_reduce(zeros1, 0, idx1, src1, "mean", include_self=True), bytes1)  # the bytes of workload.Get(4): the count buffer is not counted

    row_idx = index(rows, out_rows)
    src2 = uniform(rows, cols)
    zeros2 = torch.zeros(out_rows, cols, device=dev)
    expanded = row_idx.view(-1, 1).expand(rows, cols)
    bytes2 = rows * 8 + rows * cols * 4 + 2 * 4 * out_rows * cols
    w["W2"] = (lambda: torch.scatter_add(zeros2, 0, expanded, src2), bytes2)
    self5 = uniform(out_rows, cols)
    w["W5"] = (lambda: self5.index_reduce(0, row_idx, src2, "amax"), bytes2)

    zeros6 = torch.zeros(16, device=dev)
    idx6 = index(n1, 16)
    w["W6"] = (lambda: torch.scatter_add(zeros6, 0, idx6, src1), n1 * (8 + 4) + 2 * 4 * 16)

    src7 = src1.to(torch.bfloat16)
    zeros7 = torch.zeros(m1, device=dev, dtype=torch.bfloat16)
    w["W7"] = (lambda: torch.scatter_add(zeros7, 0, idx1, src7), n1 * (8 + 2) + 2 * 2 * m1)
    return w


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("no CUDA device: torch.cuda.is_available() is False", file=sys.stderr)
        return 2
    dev = torch.device("cuda")
    name = torch.cuda.get_device_name(dev)
    size = 256 << 20
    a = torch.empty(size, dtype=torch.uint8, device=dev)
    b = torch.empty_like(a)
    copy_ms = timed(lambda: b.copy_(a), args.reps, args.warmup)
    copy_gbs = 2 * size / (copy_ms * 1e-3) / 1e9
    print(f"# PyTorch {torch.__version__} (CUDA {torch.version.cuda}) on {name}")
    print(f"# device-to-device copy, 256 MiB: {copy_ms:.4f} ms, {copy_gbs:.1f} GB/s")
    print(f"{'workload':<8} {'gpu-ms/op':>10} {'GB/s':>9} {'copy-GB/s':>10} {'%copy':>7}")
    results = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": name,
               "copy_gbs": copy_gbs, "workloads": {}}
    for key, (fn, nbytes) in sorted(workloads(dev).items()):
        ms = timed(fn, args.reps, args.warmup)
        gbs = nbytes / (ms * 1e-3) / 1e9
        results["workloads"][key] = {"ms": ms, "gbs": gbs}
        print(f"{key:<8} {ms:>10.4f} {gbs:>9.1f} {copy_gbs:>10.1f} {100 * gbs / copy_gbs:>6.1f}%")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
