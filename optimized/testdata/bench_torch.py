"""Times PyTorch on the standard workloads W1-W7 (PERFORMANCE.md), for a
side-by-side ratio with BenchmarkW1..W7 of the Go package, run in the same
session:

    go test ./optimized/ -run XXX -bench '^BenchmarkW[1-7]$' -benchtime 10x -count 3
    /usr/bin/python3 optimized/testdata/bench_torch.py

Out-of-place calls (the Go backend's calls are out of place too), two
threads, median and minimum of 10 timed calls after one warm-up, in ms.
"""
import statistics
import sys
import time

import torch

torch.set_num_threads(2)
torch.manual_seed(0)
N, OUT = 10_000_000, 1_000_000
ROWS, OUT_ROWS, C = 1_000_000, 100_000, 64


def uniform(*shape):
    return torch.rand(*shape) * 2 - 1


def workloads():
    src = uniform(N)
    idx = torch.randint(0, OUT, (N,))
    zeros = torch.zeros(OUT)
    yield "W1", lambda: zeros.scatter_add(0, idx, src)
    rsrc = uniform(ROWS, C)
    ridx = torch.randint(0, OUT_ROWS, (ROWS,))
    rzeros = torch.zeros(OUT_ROWS, C)
    eidx = ridx.view(-1, 1).expand(-1, C)
    yield "W2", lambda: rzeros.scatter_add(0, eidx, rsrc)
    yield "W3", lambda: zeros.scatter_reduce(0, idx, src, "amax", include_self=False)
    yield "W4", lambda: zeros.scatter_reduce(0, idx, src, "mean", include_self=True)
    rself = uniform(OUT_ROWS, C)
    yield "W5", lambda: rself.index_reduce(0, ridx, rsrc, "amax")
    idx16 = torch.randint(0, 16, (N,))
    z16 = torch.zeros(16)
    yield "W6", lambda: z16.scatter_add(0, idx16, src)
    bsrc = src.bfloat16()
    bzeros = torch.zeros(OUT, dtype=torch.bfloat16)
    yield "W7", lambda: bzeros.scatter_add(0, idx, bsrc)


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {reps} calls each")
    for name, f in workloads():
        f()
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            f()
            ts.append((time.perf_counter() - t0) * 1e3)
        print(f"{name}: median {statistics.median(ts):8.2f} ms   min {min(ts):8.2f} ms")


if __name__ == "__main__":
    main()
