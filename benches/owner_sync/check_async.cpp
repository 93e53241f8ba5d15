// CPU check of shaders/cuda/experiments/async_relax.cu with vyre's CUDA
// emulator: the same searches as check.cpp (every block count given is
// launched at once, as run.py's cooperative launch is) against a serial BFS
// in depths, parents and level count. Built and run by check.sh.
#include "cuda_emu.hpp"
// The order run.py joins them in.
#include "common.cuh"
#include "experiments/async_relax.cu"

#include "shapes.hpp"

// The kernel to check: async_bfs, or async_lean_bfs (-DASYNC_KERNEL=...).
#ifndef ASYNC_KERNEL
#define ASYNC_KERNEL async_bfs
#endif

static bool check(const char* name, const Csr& g, u32 src, u32 blocks, u32 width, EmuDevice& dev) {
    dev.reset();
    std::vector<uint4> joined;
    for (u32 t : g.tgt) joined.push_back({t, g.off[t], g.off[t + 1] - g.off[t], 0});
    // Room for every vertex pushed four times and a ticket for every lane;
    // a fuller queue comes back as a status bit.
    const u32 capacity = 4 * g.n + blocks * width + 64;
    std::vector<u64> best(g.n, EMPTY), slots(2 * (size_t)capacity, EMPTY), counter(32 * 16, 0);
    best[src] = src;
    slots[0] = src;
    slots[1] = ((u64)g.off[src] << 32) | (g.off[src + 1] - g.off[src]);
    counter[0] = 1ull << 32;
    u32* depth = upload(dev, std::vector<u32>(g.n, NONE));
    u32* parent = upload(dev, std::vector<u32>(g.n, NONE));
    u32* status = upload(dev, std::vector<u32>(2, 0));
    const AsyncArgs a{upload(dev, joined), upload(dev, best),   upload(dev, slots),
                      upload(dev, counter), depth,               parent,
                      status,               g.n,                 capacity,
                      1u << 24};
    return launched_and_matches(emu_launch(ASYNC_KERNEL, blocks, width, a, 0, 120), name, g, src,
                                blocks, width, depth, parent, status);
}

int main() { return check_every_shape(check); }
