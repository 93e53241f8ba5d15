"""Device side of shaders/cuda/experiments/latency_probe.cu: how long each
step a BFS level is built from takes on this GPU, each step waiting for the
one before. Prints ns a step, median (min-max) of 5 launches, and writes
probe.json.
Usage: probe.py OUT_DIR"""
import ctypes, json, os, statistics, sys, time

import torch

import run

STEPS = 20000


def args(*values):
    """A kernel's parameter array (each value a ctypes object, kept alive
    with the array that points at it)."""
    params = (ctypes.c_void_p * len(values))(*[ctypes.addressof(v) for v in values])
    params.values = values
    return params


def ptr(t):
    return ctypes.c_uint64(t.data_ptr())


def launch(f, blocks, width, params, cluster=False, cooperative=False):
    """`f` launched once: as one cluster of all its blocks, cooperatively, or plainly."""
    if cooperative:
        return run.cooperative(f, blocks, width, params)()
    if cluster:
        return run.clustered(f, blocks, width, 0, params)()
    return run.cuda.cuLaunchKernel(f, blocks, 1, 1, width, 1, 1, 0, None, params, None)


def measure(rows, what, f, blocks, width, params, out, steps=STEPS, reset=None, **kind):
    ns = []
    out.zero_()  # chains start at index 0 of this measure's array
    for _ in range(6):
        if reset:
            reset()
        torch.cuda.synchronize()
        run.check(launch(f, blocks, width, params, **kind), what)
        run.check(run.cuda.cuCtxSynchronize(), what)
        ns.append(int(out[0]) / steps)
    ns = ns[1:]  # the first launch warms caches and TLBs
    med = statistics.median(ns)
    rows.append(dict(step=what, median_ns=med, min_ns=min(ns), max_ns=max(ns)))
    run.say(f"{what}: {med:.0f} ns a step ({min(ns):.0f}-{max(ns):.0f})")


def cycle(n, dtype):
    """next[i] for a random cycle through all n indices."""
    perm = torch.randperm(n, device=run.DEV)
    nxt = torch.empty(n, dtype=torch.int64, device=run.DEV)
    nxt[perm] = torch.roll(perm, -1)
    return nxt.to(dtype)


def main(out_dir):
    run.open_device(os.path.join(out_dir, "probe.log"))
    src = run.program("latency_probe.cu")
    fn = {name: run.compile_kernel(src, [b"--gpu-architecture=compute_90"], name.encode())
          for name in ["chase_load", "chase_atomic", "chase_hop", "cluster_barriers", "chase_shared",
                       "grid_barriers", "slot_barriers", "count_barriers", "claim_rounds"]}
    for name in ["cluster_barriers", "chase_shared"]:
        run.check(run.cuda.cuFuncSetAttribute(fn[name], run.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
                  "non-portable")
    out = torch.zeros(2, dtype=torch.int64, device=run.DEV)
    steps = ctypes.c_uint32(STEPS)
    rows = []
    # 4 MB stays in L2 (50 MB); 1 GB does not.
    for label, words in [("4 MB", 1 << 20), ("1 GB", 1 << 28)]:
        nxt = cycle(words, torch.int32)
        measure(rows, f"load through L2, {label}", fn["chase_load"], 1, 32, args(ptr(nxt), steps, ptr(out)), out)
        del nxt
        nxt = cycle(words // 2, torch.int64)
        measure(rows, f"64-bit atomicMin, {label}", fn["chase_atomic"], 1, 32, args(ptr(nxt), steps, ptr(out)),
                out)
        del nxt
    for label, n in [("3.2 MB of entries", 200000), ("512 MB of entries", 1 << 25)]:
        entries = torch.zeros(n, 4, dtype=torch.int32, device=run.DEV)
        entries[:, 0] = torch.randperm(n, device=run.DEV).to(torch.int32)
        entries[:, 1] = cycle(n, torch.int32)
        best = torch.zeros(n, dtype=torch.int64, device=run.DEV)
        measure(rows, f"hop (entry load, then atomicMin), {label}", fn["chase_hop"], 1, 32,
                args(ptr(entries), ptr(best), steps, ptr(out)), out)
        del entries, best
    for blocks, width in [(2, 64), (16, 256), (16, 512)]:
        for release in [1, 0]:
            measure(rows, f"cluster barrier, {blocks} x {width}, {'release/acquire' if release else 'relaxed'}",
                    fn["cluster_barriers"], blocks, width,
                    args(steps, ctypes.c_uint32(release), ptr(out)), out, cluster=True)
    for target, label in [(0, "own block"), (1, "another block of the cluster")]:
        measure(rows, f"shared-memory atomic add, {label}", fn["chase_shared"], 2, 64,
                args(steps, ctypes.c_uint32(target), ptr(out)), out, cluster=True)
    counter = torch.zeros(1, dtype=torch.int32, device=run.DEV)
    for blocks in [16, 66, 132]:
        measure(rows, f"grid barrier of one counter, {blocks} x 256", fn["grid_barriers"], blocks, 256,
                args(ptr(counter), steps, ptr(out)), out, reset=counter.zero_, cooperative=True)
    # fused_local's barrier in isolation: one slot a block, polled by warp 0
    # of every block, the slots 8, 16, 32 or 128 bytes apart.
    slots = torch.zeros(2 * 128 * 16, dtype=torch.int64, device=run.DEV)
    for blocks in [8, 21, 40, 64, 85, 128]:
        for stride in [1, 2, 4, 16]:
            measure(rows, f"slot barrier, {blocks} x 256, slots {8 * stride} bytes apart", fn["slot_barriers"],
                    blocks, 256, args(ptr(slots), ctypes.c_uint32(stride), steps, ptr(out)), out,
                    reset=slots.zero_, cooperative=True)
        for flag, label in [(0, "every block polls it"), (1, "the last raises a flag")]:
            counter = torch.zeros(64, dtype=torch.int32, device=run.DEV)
            measure(rows, f"relaxed counter barrier, {blocks} x 256, {label}", fn["count_barriers"], blocks, 256,
                    args(ptr(counter), ctypes.c_uint32(flag), steps, ptr(out)), out, reset=counter.zero_,
                    cooperative=True)
    # A warp's round of claims: its lanes' words on one line or on 32.
    words = torch.zeros(32 << 20, dtype=torch.int32, device=run.DEV)
    patterns = ["lanes' words consecutive", "each lane's word on its own line", "lane 0 alone",
                "loads through L2, lanes' words consecutive", "atomicOr of each lane's bit of one word"]
    for blocks, width in [(1, 32), (32, 128), (64, 256)]:
        for pattern, label in enumerate(patterns):
            measure(rows, f"a round of 3 claims a lane, {blocks} x {width}, {label}", fn["claim_rounds"], blocks,
                    width, args(ptr(words), ctypes.c_uint32(pattern), steps, ptr(out)), out)
    props = torch.cuda.get_device_properties(0)
    rows.insert(0, dict(device=props.name, uuid=str(getattr(props, "uuid", "")),
                        date=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())))
    json.dump(rows, open(os.path.join(out_dir, "probe.json"), "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
