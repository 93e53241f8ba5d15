// A model of async_relax.cu's schedule, not a GPU measurement: lanes take
// turns in rounds, one hop (one vertex expanded and its targets claimed) a
// round, in a shuffled order each round. A lane keeps the first target it
// won and queues the rest; a lane without a chain takes the oldest queued
// item, which is skipped if its vertex has since been claimed with a smaller
// depth. `slow` is the chance that a hop takes one round more, standing in
// for a GPU's uneven latencies.
//
// It answers one question the emulator cannot (its threads run at the OS's
// pace): does the front of a corner search on a grid move one level a round,
// at the pace of a chain's hop, or at the queue's? It prints rounds per level
// and how often vertices were queued and expanded, and checks every depth
// against the grid distance r + c.
//
// From the repository root (shapes.hpp, the checks' grid, needs the emulator's types):
// g++ -O2 -std=c++20 -pthread -Icrates/vyre-cuda/emu -o lockstep_model benches/owner_sync/lockstep_model.cpp
// ./lockstep_model 3000 3000 16896 0.3
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <vector>

#include "cuda_emu.hpp"
#include "shapes.hpp"

namespace {

constexpr uint32_t kUnreached = UINT32_MAX;

struct Lane {
    int64_t v = -1;  // the vertex it expands next, -1 for none
    uint32_t depth = 0;
    bool queued = false;  // taken from the queue (so checked for staleness)
};

struct Counts {
    uint64_t rounds = 0, pushed = 0, expanded = 0;
};

Counts run(const Csr& g, std::vector<uint32_t>& depth, uint32_t lanes, double slow, uint32_t seed) {
    std::vector<Lane> lane(lanes);
    std::deque<std::pair<uint32_t, uint32_t>> queue, pushed_this_round;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> uniform(0, 1);
    std::vector<uint32_t> order(lanes);
    for (uint32_t i = 0; i < lanes; ++i) order[i] = i;
    depth[0] = 0;
    lane[0].v = 0;
    Counts k;
    for (;;) {
        const bool busy = std::any_of(lane.begin(), lane.end(), [](const Lane& l) { return l.v >= 0; });
        if (!busy && queue.empty()) return k;
        ++k.rounds;
        std::shuffle(order.begin(), order.end(), rng);
        for (const uint32_t i : order) {
            Lane& l = lane[i];
            if (l.v < 0 && !queue.empty()) {
                l.v = queue.front().first;
                l.depth = queue.front().second;
                l.queued = true;
                queue.pop_front();
            }
            if (l.v < 0) continue;
            if (l.queued && depth[l.v] < l.depth) {
                l.v = -1;
                continue;
            }
            if (uniform(rng) < slow) continue;
            ++k.expanded;
            l.queued = false;
            const uint32_t next = l.depth + 1;
            int64_t kept = -1;
            for (u32 e = g.off[l.v]; e < g.off[l.v + 1]; ++e) {
                const uint32_t w = g.tgt[e];
                if (next >= depth[w]) continue;
                depth[w] = next;
                if (kept < 0) {
                    kept = w;
                } else {
                    pushed_this_round.emplace_back(w, next);
                    ++k.pushed;
                }
            }
            l.v = kept;
            l.depth = next;
        }
        // Pushed items are visible from the next round on, as a slot written
        // in one round is read by a ticket holder in a later one.
        queue.insert(queue.end(), pushed_this_round.begin(), pushed_this_round.end());
        pushed_this_round.clear();
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: %s ROWS COLS LANES SLOW [SEED]\n", argv[0]);
        return 2;
    }
    const uint32_t rows = std::atoi(argv[1]), cols = std::atoi(argv[2]), lanes = std::atoi(argv[3]);
    const double slow = std::atof(argv[4]);
    const uint32_t seed = argc > 5 ? std::atoi(argv[5]) : 1;
    if (rows == 0 || cols == 0 || lanes == 0 || !(slow >= 0 && slow < 1)) {
        std::fprintf(stderr, "ROWS, COLS and LANES must be positive and 0 <= SLOW < 1\n");
        return 2;
    }
    Csr g = grid(rows, cols);
    // Rows in ascending order, as vyre's CSR and run.py's grid hold them: the
    // first target won is the one a chain keeps, so the order matters.
    for (u32 v = 0; v < g.n; ++v) std::sort(g.tgt.begin() + g.off[v], g.tgt.begin() + g.off[v + 1]);
    std::vector<uint32_t> depth(g.n, kUnreached);
    const Counts k = run(g, depth, lanes, slow, seed);
    for (uint32_t v = 0; v < depth.size(); ++v)
        if (depth[v] != v / cols + v % cols) {
            std::fprintf(stderr, "vertex %u: depth %u, grid distance %u\n", v, depth[v], v / cols + v % cols);
            return 1;
        }
    const double n = depth.size(), levels = rows + cols - 1;
    std::printf("%ux%u, %u lanes, slow %.2f: %.0f levels, %llu rounds, %.3f rounds a level, "
                "%.2f queued and %.2f expanded a vertex, depths exact\n",
                rows, cols, lanes, slow, levels, (unsigned long long)k.rounds, k.rounds / levels,
                k.pushed / n, k.expanded / n);
}
