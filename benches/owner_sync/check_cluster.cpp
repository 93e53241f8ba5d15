// CPU check of shaders/cuda/experiments/cluster_owner.cu with vyre's CUDA
// emulator: the cluster's blocks are processes whose "shared memory" slots
// lie in memory they all map, so their claims, appends and tallies cross
// blocks as on the GPU; the same searches as check.cpp against a serial BFS.
// Built and run by check.sh.
#include "cuda_emu.hpp"
// The order run.py joins them in.
#include "common.cuh"
#include "experiments/cluster_owner.cu"

#include "shapes.hpp"

static bool check(const char* name, const Csr& g, u32 src, u32 blocks, u32 width, EmuDevice& dev) {
    dev.reset();
#ifdef GRAIN
    // Bits a block holds: its runs of GRAIN ids, every run whole.
    const u32 per = ((g.n + GRAIN - 1) / GRAIN + blocks - 1) / blocks * GRAIN;
#else
    const u32 per = (g.n + blocks - 1) / blocks;
#endif
    const u32 words = (per + 127) / 128 * 4;
    // Few enough copied entries that larger levels also take the way
    // around a full buffer (BULK).
    const u32 edge_slots = 48;
    emu_cluster_stride = (sizeof(Lists) + words * 4 + 2 * edge_slots * 16 + 255) & ~size_t(255);
    emu_cluster_base = dev.alloc<unsigned char>(blocks * emu_cluster_stride);
    emu_cluster_barrier = dev.alloc<pthread_barrier_t>(1);
    pthread_barrierattr_t attr;
    pthread_barrierattr_init(&attr);
    pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_barrier_init(emu_cluster_barrier, &attr, blocks * width);
    u32* depth = upload(dev, std::vector<u32>(g.n, NONE));
    u32* parent = upload(dev, std::vector<u32>(g.n, NONE));
    u32* status = upload(dev, std::vector<u32>(2, 0));
    u64* spare = upload(dev, std::vector<u64>(8 * blocks, 0));
    // Each edge's target beside its row, for the JOINED build.
    std::vector<uint4> joined;
    for (u32 t : g.tgt) joined.push_back({t, g.off[t], g.off[t + 1] - g.off[t], 0});
    const ClusterArgs a{upload(dev, g.off), upload(dev, g.tgt), depth, parent, status,
                        upload(dev, joined), spare, g.n, per, src, g.n + 4, words, edge_slots};
    return launched_and_matches(emu_launch(cluster_bfs, blocks, width, a, 0, 120), name, g, src,
                                blocks, width, depth, parent, status);
}

int main() { return check_every_shape(check); }
