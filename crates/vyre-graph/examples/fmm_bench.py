"""Time fast_matrix_market on a Matrix Market file, for comparison with
`graph_bench parse` (docs/BENCHMARKS.md). Usage: python3 fmm_bench.py PATH RUNS"""
import os
import statistics
import sys
import time

import fast_matrix_market as fmm

path, runs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5
size = os.path.getsize(path)
# Entries as the file lists them (the size line), for a rate comparable
# with graph_bench's; read_coo returns both triangles of symmetric files.
with open(path) as f:
    line = f.readline()
    while line.startswith("%"):
        line = f.readline()
    entries = int(line.split()[2])
print(f"# fast_matrix_market {fmm.__version__}, parallelism {os.cpu_count()}")
coo_times, csr_times = [], []
for _ in range(runs):
    t = time.perf_counter()
    (data, (rows, cols)), shape = fmm.read_coo(path)
    coo_times.append(time.perf_counter() - t)
    returned = len(rows)
    del data, rows, cols
    t = time.perf_counter()
    # Parse into scipy and build a CSR of the symmetric matrix: the nearest
    # equivalent of vyre's parse + build (which also symmetrizes and dedups).
    m = fmm.mmread(path).tocsr()
    csr_times.append(time.perf_counter() - t)
    del m
print(f"read_coo returned {returned} entries for the {entries} listed")
for name, times in [("read_coo (parse)", coo_times), ("mmread + tocsr (parse + build)", csr_times)]:
    s = statistics.median(times)
    print(f"{name}: {s:.3f} s  {size / s / 1e6:.0f} MB/s  {entries / s / 1e6:.1f} M entries/s")
