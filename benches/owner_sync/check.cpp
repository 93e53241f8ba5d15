// CPU check of shaders/cuda/experiments/owner_sync.cu with vyre's CUDA
// emulator (crates/vyre-cuda/emu): whole searches on small graphs of several
// shapes and block counts, against a serial BFS in depths, parents and the
// number of levels. Built and run by check.sh.
#include "cuda_emu.hpp"
// The order run.py joins them in.
#include "common.cuh"
#include "experiments/owner_sync.cu"

#include <set>

#include "shapes.hpp"

// Every block's neighbour list and its place in each neighbour's list, as
// run.py builds them; false when a block has more than MAXNB neighbours.
static bool neighbour_lists(const Csr& g, u32 blocks, u32 per, std::vector<u32>& list,
                            std::vector<u32>& back) {
    std::vector<std::set<u32>> nb(blocks);
    for (u32 u = 0; u < g.n; ++u)
        for (u32 i = g.off[u]; i < g.off[u + 1]; ++i) {
            const u32 a = u / per, b = g.tgt[i] / per;
            if (a != b) {
                nb[a].insert(b);
                nb[b].insert(a);
            }
        }
    list.assign(blocks * MAXNB, NONE);
    back.assign(blocks * MAXNB, NONE);
    for (u32 p = 0; p < blocks; ++p) {
        if (nb[p].size() > MAXNB) return false;
        u32 k = 0;
        for (u32 q : nb[p]) list[p * MAXNB + k++] = q;
    }
    for (u32 p = 0; p < blocks; ++p)
        for (u32 k = 0; k < MAXNB && list[p * MAXNB + k] != NONE; ++k) {
            const u32 q = list[p * MAXNB + k];
            u32 j = 0;
            while (list[q * MAXNB + j] != p) ++j;
            back[p * MAXNB + k] = j;
        }
    return true;
}

static bool check(const char* name, const Csr& g, u32 src, u32 blocks, u32 width, EmuDevice& dev) {
    dev.reset();
    const u32 per = (g.n + blocks - 1) / blocks;
    std::vector<u32> list, back;
    if (!neighbour_lists(g, blocks, per, list, back)) {
        std::printf("%s: a block has more than %u neighbours\n", name, MAXNB);
        return false;
    }
    const u32 max_levels = g.n + 2 * blocks + 4;
    const size_t words = (size_t)blocks * MAXNB * 2;
    u32* depth = upload(dev, std::vector<u32>(g.n, NONE));
    u32* parent = upload(dev, std::vector<u32>(g.n, NONE));
    u32* status = upload(dev, std::vector<u32>(2, 0));
    const OwnerArgs a{upload(dev, g.off),
                      upload(dev, g.tgt),
                      depth,
                      parent,
                      upload(dev, list),
                      upload(dev, back),
                      upload(dev, std::vector<u64>(words, 0)),
                      dev.alloc<Entry>(words * CHAN),
                      upload(dev, std::vector<u64>(max_levels, 0)),
                      status,
                      nullptr,
                      g.n,
                      per,
                      src,
                      max_levels};
    return launched_and_matches(emu_launch(owner_bfs, blocks, width, a, 0, 120), name, g, src,
                                blocks, width, depth, parent, status);
}

int main() { return check_every_shape(check); }
