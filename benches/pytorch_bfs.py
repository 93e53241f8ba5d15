#!/usr/bin/env python3
"""Level-synchronous top-down BFS in PyTorch: the baseline vyre is compared with.

Reads a graph exported by `xtask bench` (raw little-endian arrays):
  <prefix>.offsets.u64  (n + 1 row offsets)
  <prefix>.targets.u32  (m targets)
  <prefix>.sources.u32  (search sources)
and prints one JSON line per source plus a summary line with the median time,
levels and harmonic-mean GTEPS (Graph500 counting: undirected edges in the
searched component, `edges_in_component / 2` for a symmetric CSR).
Times are CUDA-event medians after a warm-up search.
"""
import json
import statistics
import sys

import numpy as np
import torch


def bfs(offsets, targets, source, n):
    depth = torch.full((n,), -1, dtype=torch.int32, device="cuda")
    depth[source] = 0
    frontier = torch.tensor([source], dtype=torch.int64, device="cuda")
    level = 0
    while frontier.numel() > 0:
        starts = offsets[frontier]
        degrees = offsets[frontier + 1] - starts
        total = int(degrees.sum())
        if total == 0:
            break
        first = torch.cumsum(degrees, 0) - degrees
        owner_start = torch.repeat_interleave(starts - first, degrees)
        edge_index = owner_start + torch.arange(total, device="cuda")
        neighbours = targets[edge_index]
        neighbours = neighbours[depth[neighbours] < 0]
        neighbours = torch.unique(neighbours)
        level += 1
        depth[neighbours] = level
        frontier = neighbours
    return depth, level


def main():
    prefix = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    offsets_np = np.fromfile(prefix + ".offsets.u64", dtype=np.uint64).astype(np.int64)
    targets_np = np.fromfile(prefix + ".targets.u32", dtype=np.uint32).astype(np.int64)
    sources = np.fromfile(prefix + ".sources.u32", dtype=np.uint32).tolist()
    n = len(offsets_np) - 1
    offsets = torch.from_numpy(offsets_np).cuda()
    targets = torch.from_numpy(targets_np).cuda()
    degree = offsets[1:] - offsets[:-1]

    bfs(offsets, targets, sources[0], n)  # warm-up: allocator, kernels
    torch.cuda.synchronize()
    teps = []
    times = []
    for source in sources:
        samples = []
        for _ in range(repeats):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            depth, levels = bfs(offsets, targets, source, n)
            end.record()
            torch.cuda.synchronize()
            samples.append(start.elapsed_time(end) / 1000.0)
        seconds = statistics.median(samples)
        edges = int(degree[depth >= 0].sum()) // 2
        teps.append(edges / seconds)
        times.append(seconds)
        print(json.dumps({"source": source, "seconds": seconds, "levels": levels,
                          "edges": edges, "gteps": edges / seconds / 1e9}))
    hmean = len(teps) / sum(1.0 / t for t in teps)
    print(json.dumps({"summary": True, "device": torch.cuda.get_device_name(),
                      "torch": torch.__version__, "vertices": n,
                      "stored_edges": int(len(targets_np)),
                      "median_seconds": statistics.median(times),
                      "hmean_gteps": hmean / 1e9}))


if __name__ == "__main__":
    main()
