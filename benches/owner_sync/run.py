"""Device side of the owner-computes experiment: NVRTC-compile
shaders/cuda/experiments/owner_sync.cu, run
it on grids, a chain and the road network, check every search, time it with
device events; the same for shaders/cuda/experiments/cluster_owner.cu.
shaders/cuda/experiments/async_relax.cu (async) too.
Usage: run.py OUT_DIR [MTX_GZ] [KERNELS: owner,cluster,bulk,async]
(bulk: cluster_owner.cu's BULK builds, apart so that a fault of theirs
leaves the other figures in place). With ASYNC_BASELINE=FILE in the
environment, the async set also times FILE, another revision of
async_relax.cu, as "async baseline" (and its SHARE_IN_WARP build), so that a
change's before and after run in one call; ASYNC_BUILDS=NAME,... runs only
the async builds named; GRAPHS=NAME,... only the graphs named, among them
"grid 3000x3000 diagonal" and "grid 1000x1000 diagonal" (numbered by
anti-diagonals), which run only when named."""
import ctypes, glob, gzip, json, os, statistics, sys, time

import torch

DEV = "cuda"
MAXNB, CHAN = 16, 512
BITMAP_VERTICES = 4096 * 32
NONE = 0xFFFFFFFF
cuda = nvrtc = log = None


def say(*a):
    s = " ".join(str(x) for x in a)
    print(s, flush=True)
    if log:
        log.write(s + "\n")
        log.flush()


def check(r, what):
    if r != 0:
        raise RuntimeError(f"{what} failed: {r}")


def compile_kernel(src, opts, name=b"owner_bfs"):
    prog = ctypes.c_void_p()
    check(nvrtc.nvrtcCreateProgram(ctypes.byref(prog), src, name + b".cu", 0, None, None), "create")
    arr = (ctypes.c_char_p * len(opts))(*opts)
    r = nvrtc.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(prog, buf)
    if r != 0:
        say(buf.value.decode())
        raise RuntimeError("compile")
    nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetPTX(prog, ptx)
    mod = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(mod), ptx), "load")
    f = ctypes.c_void_p()
    check(cuda.cuModuleGetFunction(ctypes.byref(f), mod, name), "function")
    return f


class Args(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in
                ["offsets", "targets", "depth", "parent", "nb", "nb_back", "chan_word", "chan",
                 "level_word", "status", "spare"]] + \
               [(n, ctypes.c_uint32) for n in ["n", "per", "source", "max_levels"]]


def csr_from_edges(n, src, dst):
    order = torch.argsort(src * n + dst)
    src, dst = src[order], dst[order]
    counts = torch.bincount(src, minlength=n)
    off = torch.zeros(n + 1, dtype=torch.int64, device=DEV)
    off[1:] = torch.cumsum(counts, 0)
    return off.to(torch.int32), dst.to(torch.int32)


def grid(rows, cols, diagonal=False):
    """A rows x cols grid, row by row, and its depths from vertex 0 (r + c).
    With `diagonal`, numbered by anti-diagonals instead (r + c, then r): the
    levels from the corner that vyre's by-breadth order gives a grid, each a
    run of consecutive ids. Vertex 0 is the corner either way."""
    n = rows * cols
    v = torch.arange(n, device=DEV, dtype=torch.int64)
    r, c = v // cols, v % cols
    parts = [(v[c < cols - 1], v[c < cols - 1] + 1), (v[c > 0], v[c > 0] - 1),
             (v[r < rows - 1], v[r < rows - 1] + cols), (v[r > 0], v[r > 0] - cols)]
    src, dst = torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts])
    depth = r + c
    if diagonal:
        old_of_new = torch.argsort(depth * rows + r)
        new_of_old = torch.empty_like(old_of_new)
        new_of_old[old_of_new] = v
        src, dst, depth = new_of_old[src], new_of_old[dst], depth[old_of_new]
    off, tgt = csr_from_edges(n, src, dst)
    return n, off, tgt, (depth, rows + cols - 1)


def chain(n):
    """A path of n vertices and its depths from vertex 0."""
    v = torch.arange(n - 1, device=DEV, dtype=torch.int64)
    off, tgt = csr_from_edges(n, torch.cat([v, v + 1]), torch.cat([v + 1, v]))
    return n, off, tgt, (torch.arange(n, device=DEV, dtype=torch.int64), n)


def road(path):
    src, dst, n = [], [], 0
    with gzip.open(path, "rt") as f:
        header = True
        for line in f:
            if line.startswith("%"):
                continue
            a = line.split()
            if header:
                n = int(a[0])
                header = False
                continue
            u, w = int(a[0]) - 1, int(a[1]) - 1
            src += [u, w]
            dst += [w, u]
    s = torch.tensor(src, device=DEV, dtype=torch.int64)
    d = torch.tensor(dst, device=DEV, dtype=torch.int64)
    keep = s != d
    s, d = s[keep], d[keep]
    # Renumbered in BFS order from vertex 0 (which stays 0), so that ranges of
    # ids are pieces of the road network with few neighbouring pieces: as
    # given, some of 16 ranges border more than MAXNB others.
    off, tgt = csr_from_edges(n, s, d)
    depth, levels = reference_depths(n, off, tgt, 0)
    key = torch.where(depth < 0, torch.full_like(depth, n), depth) * n + torch.arange(n, device=DEV)
    new_id = torch.empty(n, dtype=torch.int64, device=DEV)
    new_id[torch.argsort(key)] = torch.arange(n, device=DEV)
    off, tgt = csr_from_edges(n, new_id[s], new_id[d])
    # Renumbering moves the depths with their vertices.
    new_depth = torch.empty_like(depth)
    new_depth[new_id] = depth
    return n, off, tgt, (new_depth, levels)


def reference_depths(n, off, tgt, source):
    """A level-synchronous BFS in torch: the depths the kernel must match."""
    depth = torch.full((n,), -1, dtype=torch.int64, device=DEV)
    depth[source] = 0
    frontier = torch.tensor([source], device=DEV, dtype=torch.int64)
    off64, tgt64 = off.to(torch.int64), tgt.to(torch.int64)
    level = 0
    while frontier.numel() > 0:
        starts, ends = off64[frontier], off64[frontier + 1]
        deg = ends - starts
        rep = torch.repeat_interleave(torch.arange(frontier.numel(), device=DEV), deg)
        pos = torch.arange(rep.numel(), device=DEV) - torch.repeat_interleave(torch.cumsum(deg, 0) - deg, deg)
        nbrs = tgt64[starts[rep] + pos]
        nbrs = torch.unique(nbrs[depth[nbrs] < 0])
        level += 1
        depth[nbrs] = level
        frontier = nbrs
    return depth, level


def neighbours(n, off, tgt, blocks):
    per = (n + blocks - 1) // blocks
    src = torch.repeat_interleave(torch.arange(n, device=DEV), (off[1:] - off[:-1]).to(torch.int64))
    a, b = src // per, tgt.to(torch.int64) // per
    m = a != b
    pairs = torch.unique(torch.cat([a[m] * blocks + b[m], b[m] * blocks + a[m]])).tolist()
    nb = [[] for _ in range(blocks)]
    for x in pairs:
        nb[x // blocks].append(x % blocks)
    if max((len(l) for l in nb), default=0) > MAXNB:
        return None, per
    nbl = [NONE] * (blocks * MAXNB)
    back = [NONE] * (blocks * MAXNB)
    for p, l in enumerate(nb):
        for k, q in enumerate(l):
            nbl[p * MAXNB + k] = q
            back[p * MAXNB + k] = nb[q].index(p)
    return (nbl, back), per


def u32_tensor(values):
    return torch.tensor([x - (1 << 32) if x >= (1 << 31) else x for x in values], dtype=torch.int32, device=DEV)


def occupancy(f, width):
    occ = ctypes.c_int()
    check(cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(occ), f, width, 0), "occupancy")
    return occ.value


def timed(start):
    """Run `start()` (a launch, returning its CUresult) between two device
    events: (result, microseconds)."""
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    r = start()
    e.record()
    torch.cuda.synchronize()
    return r, s.elapsed_time(e) * 1000.0


def checked_times(label, repeats, reset, start, out, reference, off64, tgt64):
    """One untimed and `repeats` timed searches, each after clearing `out`
    (status, depth and parent tensors) and `reset()` (the kernel's own
    state), and each checked: their microseconds, or None after a launch
    error or a wrong search."""
    status, depth, parent = out
    ref, levels = reference
    times = []
    for rep in range(repeats + 1):
        status.zero_()
        depth.fill_(-1)
        parent.fill_(-1)
        reset()
        r, us = timed(start)
        if r != 0:
            say(f"{label}: launch error {r}")
            return None
        st = status.tolist()
        if not correct(st, depth, parent, ref, levels, off64, tgt64):
            say(f"{label}: WRONG (status {st}, levels {levels})")
            return None
        if rep > 0:
            times.append(us)
    return times


def cooperative(f, blocks, width, params):
    """A cooperative launch of `f` on `blocks` x `width` threads, to time."""
    return lambda: cuda.cuLaunchCooperativeKernel(f, blocks, 1, 1, width, 1, 1, 0, None, params)


def clustered(f, blocks, width, smem, params):
    """A launch of `f` as one cluster of `blocks` blocks of `width` threads
    with `smem` bytes of dynamic shared memory, to time."""
    attr = LaunchAttr()
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    attr.value[0], attr.value[1], attr.value[2] = blocks, 1, 1
    cfg = LaunchConfig(blocks, 1, 1, width, 1, 1, smem, None, ctypes.pointer(attr), 1)
    return lambda: cuda.cuLaunchKernelEx(ctypes.byref(cfg), f, params, None)


def timed_row(graph, blocks, width, levels, times, **extra):
    """A result row: the searches' median, min and max microseconds and
    the median per level."""
    med = statistics.median(times)
    return dict(graph=graph, blocks=blocks, width=width, levels=levels, median_us=med,
                min_us=min(times), max_us=max(times), us_per_level=med / levels, **extra)


def phase_means(spare, blocks, phases, slots=4):
    """Per-block sums of `phases` phases and a level count (word 3) in
    `spare` (`slots` words a block): each phase's ns a level, mean and max
    over the blocks."""
    sp = spare.view(blocks, slots).to(torch.float64)
    per_level = sp[:, :phases] / sp[:, 3:4].clamp(min=1)
    return per_level.mean(0).tolist(), per_level.max(0).values.tolist()


def correct(st, depth, parent, ref, levels, off64, tgt64):
    """Whether a search left the reference depths, the level count, no status
    bits, and for every reached vertex a parent one level up with an edge to it."""
    d = depth.to(torch.int64)
    good = st[0] == 0 and st[1] == levels and torch.equal(d, ref)
    if good:
        pa = parent.to(torch.int64)
        reached = (ref > 0).nonzero().squeeze(1)
        pv = pa[reached]
        # The parent is one level up and has an edge to the vertex.
        good = bool((pv >= 0).all()) and bool((ref[pv] == ref[reached] - 1).all())
        if good:
            lo, hi = off64[pv], off64[pv + 1]
            maxdeg = int((hi - lo).max())
            found = torch.zeros_like(reached, dtype=torch.bool)
            for j in range(maxdeg):
                idx = torch.clamp(lo + j, max=tgt64.numel() - 1)
                found |= (lo + j < hi) & (tgt64[idx] == reached)
            good = bool(found.all())
    return good


def run_graph(name, n, off, tgt, reference, source, f, configs, repeats, profile=False):
    levels = reference[1]
    off64, tgt64 = off.to(torch.int64), tgt.to(torch.int64)
    rows = []
    for blocks, width in configs:
        (lists, per) = neighbours(n, off, tgt, blocks)
        if per > BITMAP_VERTICES:
            say(f"{name}: {blocks} blocks own {per} vertices each, more than the bitmap's {BITMAP_VERTICES}, skipped")
            continue
        if lists is None:
            say(f"{name}: {blocks} blocks: a block has more than {MAXNB} neighbours, skipped")
            continue
        nbl, back = u32_tensor(lists[0]), u32_tensor(lists[1])
        max_levels = levels + 2 * blocks + 16
        depth = torch.empty(n, dtype=torch.int32, device=DEV)
        parent = torch.empty(n, dtype=torch.int32, device=DEV)
        words = torch.zeros(blocks * MAXNB * 2, dtype=torch.int64, device=DEV)
        chan = torch.zeros(blocks * MAXNB * 2 * CHAN * 4, dtype=torch.int32, device=DEV)
        lw = torch.zeros(max_levels, dtype=torch.int64, device=DEV)
        status = torch.zeros(2, dtype=torch.int32, device=DEV)
        spare = torch.zeros(blocks * 4, dtype=torch.int64, device=DEV)
        args = Args(off.data_ptr(), tgt.data_ptr(), depth.data_ptr(), parent.data_ptr(), nbl.data_ptr(),
                    back.data_ptr(), words.data_ptr(), chan.data_ptr(), lw.data_ptr(), status.data_ptr(),
                    spare.data_ptr(), n, per, source, max_levels)
        params = (ctypes.c_void_p * 1)(ctypes.addressof(args))
        occ = occupancy(f, width)

        def reset():
            words.zero_()
            lw.zero_()

        times = checked_times(f"{name}: {blocks}x{width} (occupancy {occ} a SM)", repeats, reset,
                              cooperative(f, blocks, width, params),
                              (status, depth, parent), reference, off64, tgt64)
        if times:
            row = timed_row(name, blocks, width, levels, times, occupancy=occ)
            med = row["median_us"]
            if profile:
                # Each block's nanoseconds a level in its three phases (last search).
                mean, top = phase_means(spare, blocks, 3)
                row["ns_per_level_mean"], row["ns_per_level_max"] = mean, top
                say(f"{name}: {blocks}x{width}: ns a level, mean (max) over blocks: expand "
                    f"{mean[0]:.0f} ({top[0]:.0f}), publish and wait {mean[1]:.0f} ({top[1]:.0f}), "
                    f"claim what was sent {mean[2]:.0f} ({top[2]:.0f})")
            rows.append(row)
            say(f"{name}: {blocks} blocks x {width}: {med/1000:.3f} ms ({min(times)/1000:.3f}-{max(times)/1000:.3f}), "
                f"{levels} levels, {med/levels:.2f} us/level, checked")
    return rows


class ClusterArgs(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in
                ["offsets", "targets", "depth", "parent", "status", "joined", "spare"]] + \
               [(n, ctypes.c_uint32) for n in ["n", "per", "source", "max_levels", "bitmap_words",
                                               "edge_slots"]]


class LaunchAttr(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_uint32 * 16)]


class LaunchConfig(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint) for n in ["gx", "gy", "gz", "bx", "by", "bz", "smem"]] + \
               [("stream", ctypes.c_void_p), ("attrs", ctypes.POINTER(LaunchAttr)), ("num", ctypes.c_uint)]


# (blocks of the cluster, threads a block) timed on each graph.
CLUSTER_CONFIGS = {"grid 3000x3000": [(16, 256), (16, 512), (8, 512)],
                   "grid 1000x1000": [(16, 128), (16, 256), (8, 128)],
                   "chain 200000": [(1, 64), (2, 64), (16, 64)],
                   "luxembourg_osm": [(1, 128), (4, 128), (16, 128)]}
CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14
# Shared memory a block of the H100/H200 may have, less cluster_owner.cu's static lists.
CLUSTER_DYNAMIC_MAX = 227 * 1024 - 33 * 1024
# Copied edge entries (16 bytes) a list of a BULK build may hold at most.
EDGE_SLOTS_MAX = 4096


def run_cluster(name, n, off, tgt, reference, source, f, configs, repeats, joined=None, bulk=False, grain=0):
    """cluster_owner.cu: one cluster of `blocks` blocks runs the whole search
    (with `joined`, the JOINED build: each edge's target beside its row; with
    `bulk`, a BULK build, given what shared memory the bitmap leaves for
    copied entries; with `grain`, a GRAIN build, whose blocks own runs of
    that many ids)."""
    levels = reference[1]
    off64, tgt64 = off.to(torch.int64), tgt.to(torch.int64)
    check(cuda.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1), "non-portable")
    rows = []
    for blocks, width in configs:
        per = (n + blocks - 1) // blocks
        if grain:
            per = ((n + grain - 1) // grain + blocks - 1) // blocks * grain
        words = (per + 127) // 128 * 4  # copied entries after the bitmap start 16-byte aligned
        if words * 4 > CLUSTER_DYNAMIC_MAX:
            say(f"{name}: {blocks} blocks own {per} vertices each, more than shared memory holds, skipped")
            continue
        slots = min(EDGE_SLOTS_MAX, (CLUSTER_DYNAMIC_MAX - words * 4) // 32) if bulk else 0
        smem = words * 4 + slots * 32
        check(cuda.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem), "smem")
        depth = torch.empty(n, dtype=torch.int32, device=DEV)
        parent = torch.empty(n, dtype=torch.int32, device=DEV)
        status = torch.zeros(2, dtype=torch.int32, device=DEV)
        spare = torch.zeros(blocks * 8, dtype=torch.int64, device=DEV)
        args = ClusterArgs(off.data_ptr(), tgt.data_ptr(), depth.data_ptr(), parent.data_ptr(),
                           status.data_ptr(), 0 if joined is None else joined.data_ptr(),
                           spare.data_ptr(),
                           n, per, source, levels + 16, words, slots)
        params = (ctypes.c_void_p * 1)(ctypes.addressof(args))
        times = checked_times(f"{name}: cluster of {blocks}x{width}", repeats, lambda: None,
                              clustered(f, blocks, width, smem, params),
                              (status, depth, parent), reference, off64, tgt64)
        if times:
            row = timed_row(name, blocks, width, levels, times, edge_slots=slots)
            med = row["median_us"]
            if int(spare[3]) != 0:
                # Thread 0's ns a level expanding and at the barrier (last
                # search), and until its first rows and claims were back, a
                # level it had a vertex in (words 2 and 4).
                mean, top = phase_means(spare, blocks, 2, 8)
                sp = spare.view(blocks, 8).to(torch.float64)
                first = (sp[:, 2].sum() / sp[:, 4].sum().clamp(min=1)).item()
                row["ns_per_level_mean"], row["ns_per_level_max"] = mean, top
                row["ns_to_first_claims"] = first
                say(f"{name}: cluster of {blocks}x{width}: ns a level, mean (max) over blocks: "
                    f"expand {mean[0]:.0f} ({top[0]:.0f}), barrier {mean[1]:.0f} ({top[1]:.0f}); "
                    f"level start to first rows and claims back {first:.0f}")
            rows.append(row)
            say(f"{name}: cluster of {blocks} x {width}: {med/1000:.3f} ms ({min(times)/1000:.3f}-"
                f"{max(times)/1000:.3f}), {levels} levels, {med/levels:.2f} us/level, checked")
    return rows


class AsyncArgs(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in
                ["joined", "best", "slots", "counter", "depth", "parent", "status"]] + \
               [(n, ctypes.c_uint32) for n in ["n", "capacity", "max_rounds"]]


# (blocks, threads a block) of async_relax.cu on every graph: lanes beyond
# the widest frontier only poll.
ASYNC_CONFIGS = [(132, 64), (132, 128), (132, 256), (264, 256)]
EMPTY = -1  # 0xffffffffffffffff as an int64


# Where async_lean_bfs's PROFILE builds leave their sums in the counter
# words: hops, then cycles of the loop and vote since the hop before, the
# entries' load, the claims, and the pushes and count.
ASYNC_PROFILE_AT = 24
ASYNC_PARTS = ["loop and vote", "entries", "claims", "pushes and count"]
CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13


def run_async(name, n, off, tgt, reference, source, f, configs, repeats, joined, profile=False):
    """async_relax.cu: every lane runs chains of claims with no barrier; the
    queue holds every vertex four times over and a ticket for every lane.
    With `profile`, also the mean of each part of a hop in the last search."""
    levels = reference[1]
    off64, tgt64 = off.to(torch.int64), tgt.to(torch.int64)
    rows = []
    for blocks, width in configs:
        capacity = 4 * n + blocks * width + 64
        best = torch.empty(n, dtype=torch.int64, device=DEV)
        slots = torch.empty(2 * capacity, dtype=torch.int64, device=DEV)
        counter = torch.zeros(32 * 16, dtype=torch.int64, device=DEV)  # up to 16 queues
        depth = torch.empty(n, dtype=torch.int32, device=DEV)
        parent = torch.empty(n, dtype=torch.int32, device=DEV)
        status = torch.zeros(2, dtype=torch.int32, device=DEV)
        start, degree = int(off64[source]), int(off64[source + 1] - off64[source])
        args = AsyncArgs(joined.data_ptr(), best.data_ptr(), slots.data_ptr(), counter.data_ptr(),
                         depth.data_ptr(), parent.data_ptr(), status.data_ptr(), n, capacity,
                         1 << 22)
        params = (ctypes.c_void_p * 1)(ctypes.addressof(args))

        def reset():
            # The source's word, its item in slot 0, one item pushed.
            best.fill_(EMPTY)
            best[source] = source
            slots.fill_(EMPTY)
            slots[0], slots[1] = source, (start << 32) | degree
            counter.zero_()
            counter[0] = 1 << 32

        times = checked_times(f"{name}: {blocks}x{width}", repeats, reset,
                              cooperative(f, blocks, width, params),
                              (status, depth, parent), reference, off64, tgt64)
        if times:
            # Every queue's pushes (one counter word each, 32 words apart).
            pushed = sum((int(w) >> 32) & 0xFFFFFFFF for w in counter[::32].tolist())
            row = timed_row(name, blocks, width, levels, times, pushed=pushed)
            med = row["median_us"]
            rows.append(row)
            say(f"{name}: {blocks} x {width}: {med/1000:.3f} ms ({min(times)/1000:.3f}-{max(times)/1000:.3f}), "
                f"{levels} levels, {med/levels:.2f} us/level, {pushed} items queued "
                f"({pushed / n:.2f} a vertex), checked")
            if profile:
                sums = [int(x) for x in counter[ASYNC_PROFILE_AT:ASYNC_PROFILE_AT + 5].tolist()]
                khz = ctypes.c_int()
                check(cuda.cuDeviceGetAttribute(ctypes.byref(khz), CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 0), "clock")
                hops = max(sums[0], 1)
                ns = [c / hops / (khz.value / 1e6) for c in sums[1:]]
                row["hops"], row["hop_ns"] = sums[0], dict(zip(ASYNC_PARTS, ns))
                say(f"{name}: {blocks} x {width}: {sums[0]} hops ({sums[0] / n:.2f} a vertex), ns a hop: " +
                    ", ".join(f"{part} {x:.0f}" for part, x in zip(ASYNC_PARTS, ns)))
    return rows


SHADERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shaders", "cuda")


def program(kernel):
    """One program, common.cuh first, as vyre-cuda joins its kernels: `kernel`
    is a file of shaders/cuda/experiments/, or an absolute path."""
    path = kernel if os.path.isabs(kernel) else os.path.join(SHADERS, "experiments", kernel)
    return b"".join(open(f, "rb").read() for f in [os.path.join(SHADERS, "common.cuh"), path])


def open_device(log_path):
    """A CUDA context (through torch), libcuda and NVRTC, and the log."""
    global cuda, nvrtc, log
    torch.zeros(1, device=DEV)
    cuda = ctypes.CDLL("libcuda.so.1")
    nvrtc = ctypes.CDLL(sorted(glob.glob("/usr/local/cuda/lib64/libnvrtc.so*"))[0])
    log = open(log_path, "w")


def main(out_dir, mtx, kernels):
    open_device(os.path.join(out_dir, "+".join(kernels) + ".log"))
    src = program("owner_sync.cu")
    variants = {}
    # Polls 20 ns apart or back to back; a neighbour's entries read after
    # its word, or (up to 4) beside it.
    if "owner" in kernels:
        for key, extra in [("base", []), ("spin", [b"-DPAUSE_NS=0"]), ("early", [b"-DSPECULATE=4u"]),
                           ("early+spin", [b"-DSPECULATE=4u", b"-DPAUSE_NS=0"]),
                           ("profile", [b"-DPROFILE"])]:
            variants[key] = compile_kernel(src, [b"--gpu-architecture=compute_90"] + extra)
    clustered = {}
    cluster_builds = []
    if "cluster" in kernels:
        cluster_builds += [("cluster", []), ("cluster store-at-claim", [b"-DSTORE_AT_CLAIM"]),
                           ("cluster joined", [b"-DJOINED"]),
                           ("cluster relaxed-arrive", [b"-DRELAXED_ARRIVE"]),
                           ("cluster joined relaxed-arrive", [b"-DJOINED", b"-DRELAXED_ARRIVE"]),
                           ("cluster profile", [b"-DPROFILE"]),
                           ("cluster joined profile", [b"-DJOINED", b"-DPROFILE"])]
    if "bulk" in kernels:
        cluster_builds += [("cluster joined bulk", [b"-DJOINED", b"-DBULK"]),
                           ("cluster joined bulk profile", [b"-DJOINED", b"-DBULK", b"-DPROFILE"]),
                           ("cluster joined bulk relaxed-arrive", [b"-DJOINED", b"-DBULK", b"-DRELAXED_ARRIVE"])]
    if "cluster" in kernels:
        # Ids dealt to the blocks in runs, for graphs numbered by breadth.
        for grain in (32, 256):
            cluster_builds += [(f"cluster grain-{grain}", [f"-DGRAIN={grain}u".encode()]),
                               (f"cluster store-at-claim grain-{grain}",
                                [b"-DSTORE_AT_CLAIM", f"-DGRAIN={grain}u".encode()])]
    only = os.environ.get("CLUSTER_BUILDS")  # names to run, comma-separated (all if unset)
    cluster_builds = [b for b in cluster_builds if not only or b[0] in only.split(",")]
    if cluster_builds:
        cluster_src = program("cluster_owner.cu")
        for key, extra in cluster_builds:
            clustered[key] = compile_kernel(cluster_src, [b"--gpu-architecture=compute_90"] + extra,
                                            b"cluster_bfs")
    asynchronous = {}
    if "async" in kernels:
        # (name, source, options, entry point)
        builds = [("async", "async_relax.cu", [], b"async_bfs"),
                  ("async share-in-warp", "async_relax.cu", [b"-DSHARE_IN_WARP"], b"async_bfs"),
                  ("async relaxed-count", "async_relax.cu", [b"-DRELAXED_COUNT"], b"async_bfs"),
                  ("async share-in-warp relaxed-count", "async_relax.cu",
                   [b"-DSHARE_IN_WARP", b"-DRELAXED_COUNT"], b"async_bfs"),
                  ("async lean", "async_relax.cu", [], b"async_lean_bfs"),
                  ("async lean relaxed-count", "async_relax.cu", [b"-DRELAXED_COUNT"], b"async_lean_bfs"),
                  ("async lean poll-when-idle", "async_relax.cu", [b"-DPOLL_WHEN_IDLE"], b"async_lean_bfs"),
                  ("async lean profile", "async_relax.cu", [b"-DPROFILE"], b"async_lean_bfs"),
                  ("async lean poll-when-idle profile", "async_relax.cu", [b"-DPOLL_WHEN_IDLE", b"-DPROFILE"],
                   b"async_lean_bfs")]
        # Idle warps' polls (every lane's ticket slot each pause, lane 0's
        # look at the counter every LOOK_EVERY pauses) spaced further apart.
        for pause in (300, 1000):
            for look in (8, 64):
                name = f"async lean pause-{pause} look-{look}"
                extra = [f"-DPAUSE_NS={pause}u".encode(), f"-DLOOK_EVERY={look}u".encode()]
                builds += [(name, "async_relax.cu", extra, b"async_lean_bfs"),
                           (name + " profile", "async_relax.cu", extra + [b"-DPROFILE"], b"async_lean_bfs")]
        builds += [("async lean look-64", "async_relax.cu", [b"-DLOOK_EVERY=64u"], b"async_lean_bfs")]
        # Queues and counters shared by fewer lanes each.
        for shards in (2, 4, 8, 16):
            builds += [(f"async lean shards-{shards}", "async_relax.cu", [f"-DSHARDS={shards}u".encode()],
                        b"async_lean_bfs"),
                       (f"async lean shards-{shards} profile", "async_relax.cu",
                        [f"-DSHARDS={shards}u".encode(), b"-DPROFILE"], b"async_lean_bfs")]
        baseline = os.environ.get("ASYNC_BASELINE")
        if baseline:
            builds += [("async baseline", os.path.abspath(baseline), [], b"async_bfs"),
                       ("async baseline share-in-warp", os.path.abspath(baseline), [b"-DSHARE_IN_WARP"],
                        b"async_bfs")]
        only = os.environ.get("ASYNC_BUILDS")  # names to run, comma-separated (all if unset)
        for key, kernel, extra, entry in builds:
            if not only or key in only.split(","):
                asynchronous[key] = compile_kernel(program(kernel), [b"--gpu-architecture=compute_90"] + extra,
                                                   entry)
    rows = []
    graphs = [("grid 3000x3000", lambda: grid(3000, 3000)), ("grid 1000x1000", lambda: grid(1000, 1000)),
              ("chain 200000", lambda: chain(200000)),
              ("grid 3000x3000 diagonal", lambda: grid(3000, 3000, True)),
              ("grid 1000x1000 diagonal", lambda: grid(1000, 1000, True))]
    if mtx:
        graphs.append(("luxembourg_osm", lambda: road(mtx)))
    # GRAPHS=name,... runs only those (the first four, and the road network
    # when a file is given, if unset).
    chosen = os.environ.get("GRAPHS")
    graphs = [g for g in graphs if (g[0] in chosen.split(",") if chosen else "diagonal" not in g[0])]
    for name, make in graphs:
        n, off, tgt, reference = make()
        torch.cuda.synchronize()
        for key, f in variants.items():
            configs = [(132, 64), (132, 128), (100, 64), (70, 64), (70, 128)] if key == "base" else [(132, 64)]
            if name.startswith("chain"):
                configs = [(2, 64), (8, 64), (132, 64)] if key == "base" else [(8, 64)]
            if name.startswith("lux"):
                configs = [(16, 64), (32, 64), (64, 64), (132, 64)] if key == "base" else [(32, 64)]
            for row in run_graph(f"{name} [{key}]", n, off, tgt, reference, 0, f, configs, 5,
                                 profile=key == "profile"):
                row["graph"], row["variant"] = name, key
                rows.append(row)
        joined = None
        if asynchronous or any("joined" in key for key in clustered):
            # Preprocessing, once a graph, timed apart from the searches.
            t0 = time.perf_counter()
            t64 = tgt.to(torch.int64)
            joined = torch.stack([tgt, off[t64], off[t64 + 1] - off[t64], torch.zeros_like(tgt)], 1).contiguous()
            torch.cuda.synchronize()
            say(f"{name}: joined edge entries ({joined.numel() * 4} bytes) built in "
                f"{(time.perf_counter() - t0) * 1000:.1f} ms")
        for key, f in asynchronous.items():
            configs = ASYNC_CONFIGS if key in ("async share-in-warp", "async lean") else ASYNC_CONFIGS[2:3]
            for row in run_async(f"{name} [{key}]", n, off, tgt, reference, 0, f, configs, 5, joined,
                                 profile=key.endswith("profile")):
                row["graph"], row["variant"] = name, key
                rows.append(row)
        for key, f in clustered.items():
            grain = int(key.split("grain-")[1]) if "grain-" in key else 0
            for row in run_cluster(f"{name} [{key}]", n, off, tgt, reference, 0, f,
                                   CLUSTER_CONFIGS[name.removesuffix(" diagonal")], 5, joined if "joined" in key else None,
                                   bulk="bulk" in key, grain=grain):
                row["graph"], row["variant"] = name, key
                rows.append(row)
        del off, tgt, reference, joined
    props = torch.cuda.get_device_properties(0)
    rows.insert(0, dict(device=props.name, uuid=str(getattr(props, "uuid", "")),
                        date=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())))
    json.dump(rows, open(os.path.join(out_dir, "+".join(kernels) + ".json"), "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None,
         sys.argv[3].split(",") if len(sys.argv) > 3 else ["owner", "cluster"])
