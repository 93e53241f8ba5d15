// Runs vyre's CUDA kernels under cuda_emu.hpp and checks whole searches
// against a serial BFS. The host side mirrors crates/vyre-cuda/src (wave.rs,
// command.rs, backend.rs): same buffers, same launch sequence, same
// readback rules. See README.md.

#include "cuda_emu.hpp"
#include "kernels.inc"

#include <algorithm>
#include <cstdarg>
#include <deque>
#include <functional>
#include <random>
#include <string>

static const u32 UNREACHED = 0xffffffffu;

static int failures = 0;
static void fail(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::fprintf(stderr, "FAIL: ");
    std::vfprintf(stderr, fmt, ap);
    std::fprintf(stderr, "\n");
    va_end(ap);
    ++failures;
}

// ---- graphs ----------------------------------------------------------------

struct Csr {
    std::vector<u64> off;
    std::vector<u32> tgt;
    u32 n() const { return (u32)off.size() - 1; }
    u64 deg(u32 v) const { return off[v + 1] - off[v]; }
};

struct Graph {
    std::string name;
    Csr out;
    Csr in;  // == out when symmetric
    bool symmetric = true;
};

static Csr csr_from(u32 n, const std::vector<std::pair<u32, u32>>& edges) {
    Csr c;
    c.off.assign(n + 1, 0);
    for (auto& e : edges) c.off[e.first + 1]++;
    for (u32 i = 0; i < n; ++i) c.off[i + 1] += c.off[i];
    c.tgt.resize(edges.size());
    std::vector<u64> cur(c.off.begin(), c.off.end() - 1);
    for (auto& e : edges) c.tgt[cur[e.first]++] = e.second;
    return c;
}

static Graph make_graph(std::string name, u32 n, std::vector<std::pair<u32, u32>> edges, bool symmetrize) {
    Graph g;
    g.name = std::move(name);
    if (symmetrize) {
        const size_t m = edges.size();
        for (size_t i = 0; i < m; ++i) {
            if (edges[i].first != edges[i].second) edges.push_back({edges[i].second, edges[i].first});
        }
    }
    g.out = csr_from(n, edges);
    g.symmetric = symmetrize;
    if (symmetrize) {
        g.in = g.out;
    } else {
        std::vector<std::pair<u32, u32>> rev;
        for (auto& e : edges) rev.push_back({e.second, e.first});
        g.in = csr_from(n, rev);
    }
    return g;
}

static std::vector<Graph> corpus() {
    std::vector<Graph> gs;
    std::mt19937_64 rng(7);
    {  // grid
        u32 w = 24, h = 17;
        std::vector<std::pair<u32, u32>> e;
        for (u32 y = 0; y < h; ++y)
            for (u32 x = 0; x < w; ++x) {
                if (x + 1 < w) e.push_back({y * w + x, y * w + x + 1});
                if (y + 1 < h) e.push_back({y * w + x, (y + 1) * w + x});
            }
        gs.push_back(make_graph("grid 24x17", w * h, e, true));
    }
    {  // chain
        std::vector<std::pair<u32, u32>> e;
        for (u32 v = 1; v < 300; ++v) e.push_back({v - 1, v});
        gs.push_back(make_graph("chain 300", 300, e, true));
    }
    {  // star with a hub heavier than any block
        std::vector<std::pair<u32, u32>> e;
        for (u32 v = 1; v <= 3000; ++v) e.push_back({0, v});
        gs.push_back(make_graph("star 3000", 3001, e, true));
    }
    {  // skewed random (hubs, medium and light vertices) with loops and duplicates
        u32 n = 2048;
        std::vector<std::pair<u32, u32>> e;
        for (int i = 0; i < 12000; ++i) {
            u32 a = (u32)(rng() % n), b = (u32)(rng() % n);
            a = (u32)((u64)a * a / n);  // skew toward low ids
            e.push_back({a, b});
        }
        for (u32 v = 0; v < 50; ++v) e.push_back({v, v});
        for (int i = 0; i < 200; ++i) e.push_back(e[i]);
        gs.push_back(make_graph("skewed random", n, e, true));
    }
    {  // directed, with in-edges differing from out-edges
        u32 n = 1500;
        std::vector<std::pair<u32, u32>> e;
        for (int i = 0; i < 6000; ++i) e.push_back({(u32)(rng() % n), (u32)(rng() % n)});
        for (u32 v = 1; v < 100; ++v) e.push_back({v - 1, v});
        gs.push_back(make_graph("directed random", n, e, false));
    }
    {  // disconnected: two paths and isolated vertices
        std::vector<std::pair<u32, u32>> e;
        for (u32 v = 1; v < 40; ++v) e.push_back({v - 1, v});
        for (u32 v = 61; v < 100; ++v) e.push_back({v - 1, v});
        gs.push_back(make_graph("disconnected", 130, e, true));
    }
    {  // broom: path 0-1, vertex 1 joined to 8 hubs of 300 leaves; a tail off one leaf
        std::vector<std::pair<u32, u32>> e;
        e.push_back({0, 1});
        u32 next = 2;
        for (u32 h = 0; h < 8; ++h) {
            const u32 hub = next++;
            e.push_back({1, hub});
            for (u32 l = 0; l < 300; ++l) e.push_back({hub, next++});
        }
        for (u32 k = 0; k < 20; ++k, ++next) e.push_back({next - 1, next});
        gs.push_back(make_graph("broom 8x300", next, e, true));
    }
    {  // hubs among light vertices: vertex 0 joined to 8 hubs and 600 light vertices
        // (more than a 64-wide block scans in shared memory), light ones in a ring
        std::vector<std::pair<u32, u32>> e;
        u32 next = 1;
        std::vector<u32> light;
        for (u32 k = 0; k < 608; ++k) {
            const u32 v = next++;
            e.push_back({0, v});
            if (k % 76 == 5) {
                for (u32 l = 0; l < 200; ++l) e.push_back({v, next++});
            } else {
                light.push_back(v);
            }
        }
        for (size_t k = 0; k < light.size(); ++k) e.push_back({light[k], light[(k + 1) % light.size()]});
        for (u32 k = 0; k < 100; ++k) e.push_back({light[k * 5], next++});
        gs.push_back(make_graph("hubs among 600 light", next, e, true));
    }
    gs.push_back(make_graph("one vertex", 1, {}, true));
    gs.push_back(make_graph("no edges", 70, {}, true));
    return gs;
}

struct Tree {
    std::vector<u32> depth, parent;
};

static Tree reference(const Graph& g, const std::vector<u32>& sources) {
    Tree t;
    t.depth.assign(g.out.n(), UNREACHED);
    t.parent.assign(g.out.n(), UNREACHED);
    std::deque<u32> q;
    for (u32 s : sources) {
        t.depth[s] = 0;
        t.parent[s] = s;
        q.push_back(s);
    }
    while (!q.empty()) {
        u32 u = q.front();
        q.pop_front();
        for (u64 e = g.out.off[u]; e < g.out.off[u + 1]; ++e) {
            u32 v = g.out.tgt[e];
            if (t.depth[v] == UNREACHED) {
                t.depth[v] = t.depth[u] + 1;
                t.parent[v] = u;
                q.push_back(v);
            }
        }
    }
    return t;
}

// ---- the backend, mirrored -------------------------------------------------

enum Topology { WarpSparse, Sparse, Hybrid, Dense, BlockDense, Fused };
static const char* NAMES[] = {"WarpSparse", "Sparse", "Hybrid", "Dense", "BlockDense", "Fused"};
static bool is_bitmap(Topology t) { return t == Dense || t == BlockDense; }

struct Record {
    u32 level, frontier_in, frontier_out;
    u64 out_edges, examined;
};

static const u32 HISTORY_LEVELS = 512;

struct Backend {
    EmuDevice dev;
    const Graph* g = nullptr;
    u64 *out_off, *in_off;
    u32 *out_tgt, *in_tgt, *depth, *parent, *queue[2], *bitmap[2], *control, *history, *level_log, *work;
    u32 max_out_degree = 0;
    u64 work_words = 0;
    // search state
    u32 level = 0, frontier_len = 0, cur_queue = 0, cur_bitmap = 0, epoch = 0;
    bool bitmap_form = false;

    Backend() { dev.init(size_t(256) << 20); }

    VyreArgs base() const {
        VyreArgs a;
        std::memset(&a, 0, sizeof a);
        a.out_offsets = out_off;
        a.out_targets = out_tgt;
        a.in_offsets = in_off;
        a.in_targets = in_tgt;
        a.depth = depth;
        a.parent = parent;
        a.queue_in = queue[0];
        a.queue_out = queue[1];
        a.bitmap_in = bitmap[0];
        a.bitmap_out = bitmap[1];
        a.control = (VyreControl*)control;
        a.history = (VyreLevelRecord*)history;
        a.level_log = (VyreLevelRecord*)level_log;
        a.max_out_degree = max_out_degree;
        a.work = work;
        a.work_words = work_words;
        a.band_max_frontier_edges = ~0ull;
        a.vertex_count = g->out.n();
        a.max_levels = 1;
        return a;
    }

    static u32 setup_blocks(u64 items) { return (u32)std::min<u64>(std::max<u64>((items + 63) / 64, 1), 4); }

    bool upload(const Graph& graph) {
        dev.reset();
        g = &graph;
        const u32 n = graph.out.n();
        const u64 e = graph.out.tgt.size();
        const u64 vwords = std::max<u64>(n, 1), bwords = std::max<u64>((n + 31) / 32, 1);
        out_off = dev.alloc<u64>(n + 1);
        out_tgt = dev.alloc<u32>(std::max<u64>(e, 1));
        std::memcpy(out_off, graph.out.off.data(), (n + 1) * 8);
        std::memcpy(out_tgt, graph.out.tgt.data(), e * 4);
        if (graph.symmetric) {
            in_off = out_off;
            in_tgt = out_tgt;
        } else {
            in_off = dev.alloc<u64>(n + 1);
            in_tgt = dev.alloc<u32>(std::max<u64>(e, 1));
            std::memcpy(in_off, graph.in.off.data(), (n + 1) * 8);
            std::memcpy(in_tgt, graph.in.tgt.data(), e * 4);
        }
        depth = dev.alloc<u32>(vwords);
        parent = dev.alloc<u32>(vwords);
        queue[0] = dev.alloc<u32>(vwords);
        queue[1] = dev.alloc<u32>(vwords);
        bitmap[0] = dev.alloc<u32>(bwords);
        bitmap[1] = dev.alloc<u32>(bwords);
        control = dev.alloc<u32>(64);
        history = dev.alloc<u32>(HISTORY_LEVELS * 8);
        level_log = dev.alloc<u32>(HISTORY_LEVELS * 8);
        max_out_degree = 0;
        for (u32 v = 0; v < n; ++v) max_out_degree = std::max<u64>(max_out_degree, graph.out.deg(v));
        // DeviceLayout::work_bytes: 2n + ceil(m / 512) + 1024 words.
        work_words = 2 * (u64)n + (e + 511) / 512 + 1024;
        work = dev.alloc<u32>(work_words);
        std::memset(control, 0, 256);
        return emu_launch(vyre_init_search, setup_blocks(n), 64, base());
    }

    bool begin(const std::vector<u32>& sources) {
        std::memset(control, 0, 256);
        std::copy(sources.begin(), sources.end(), queue[0]);
        VyreArgs a = base();
        a.queue_out = queue[0];
        a.aux = (u32)sources.size();
        if (!emu_launch(vyre_init_search, setup_blocks(g->out.n()), 64, a)) return false;
        if (!emu_launch(vyre_seed_sources, setup_blocks(sources.size()), 64, a)) return false;
        level = 0;
        frontier_len = (u32)sources.size();
        cur_queue = cur_bitmap = 0;
        bitmap_form = false;
        epoch = 0;
        return true;
    }

    // One command; returns its records (empty on a failure).
    std::vector<Record> run(Topology t, u32 max_levels, u64 band, u32 width, u32 first_blocks,
                            u32 later_blocks) {
        std::vector<Record> out;
        epoch = epoch + 1 == 0 ? 1 : epoch + 1;
        VyreArgs a = base();
        a.epoch = epoch;
        for (u32 i = 0; i < max_levels && i < HISTORY_LEVELS; ++i) history[8 * i + 3] = 0;
        a.band_max_frontier_edges = band;
        a.max_levels = max_levels;
        const u32 n = g->out.n();
        if (is_bitmap(t) && !bitmap_form) {
            a.queue_in = queue[cur_queue];
            a.bitmap_out = bitmap[cur_bitmap];
            std::memset(bitmap[cur_bitmap], 0, std::max<u64>((n + 31) / 32, 1) * 4);
            if (!emu_launch(vyre_queue_to_bitmap, setup_blocks(frontier_len), 64, a)) return out;
        } else if (!is_bitmap(t) && bitmap_form) {
            a.bitmap_in = bitmap[cur_bitmap];
            a.queue_out = queue[cur_queue];
            if (!emu_launch(vyre_bitmap_to_queue, setup_blocks((n + 31) / 32), 64, a)) return out;
        }
        if (t == Fused) {
            a.queue_in = queue[cur_queue];
            a.queue_out = queue[cur_queue ^ 1];
            a.level = level;
            a.max_levels = max_levels;
            if (!emu_launch(vyre_fused, first_blocks, width, a)) return out;
        } else {
            void (*k)(VyreArgs) = t == WarpSparse ? vyre_warp_sparse
                                  : t == Sparse   ? vyre_sparse
                                  : t == Hybrid   ? vyre_hybrid
                                  : t == Dense    ? vyre_dense
                                                  : vyre_block_dense;
            for (u32 i = 0; i < max_levels; ++i) {
                const u32 p = i & 1;
                a.queue_in = queue[cur_queue ^ p];
                a.queue_out = queue[cur_queue ^ p ^ 1];
                a.bitmap_in = bitmap[cur_bitmap ^ p];
                a.bitmap_out = bitmap[cur_bitmap ^ p ^ 1];
                a.level = level + i;
                a.history_index = i;
                if (!emu_launch(k, i == 0 ? first_blocks : later_blocks, width, a)) return out;
            }
        }
        u32 count = 1;
        if (max_levels > 1) {
            count = control[16];
            if (count == 0 || count > max_levels) {
                fail("levels_run %u for a command of %u", count, max_levels);
                return out;
            }
        }
        for (u32 i = 0; i < count; ++i) {
            const u32* r = history + 8 * i;
            if (r[3] != epoch) {
                fail("record %u has epoch %u, not %u", i, r[3], epoch);
                return {};
            }
            out.push_back(Record{r[0], r[1], r[2], r[4] | ((u64)r[5] << 32), r[6] | ((u64)r[7] << 32)});
        }
        if (max_levels > 1 && control[15] != out.back().frontier_out) {
            fail("cur_len %u but the last record says %u", control[15], out.back().frontier_out);
        }
        for (u32 i = 0; i < 48 / 4 + 3; ++i) {
            // Counters (out_edges, examined, next_len) must be clear between commands.
            if (control[i] != 0) fail("control word %u is %u after the command", i, control[i]);
        }
        if (control[18] != 0 || control[19] != 0 || control[32] != 0 || control[48] != 0)
            fail("blocks_done/conv_cursor/bar_count not clear after the command");
        for (u32 i = 22; i < 27; ++i) {
            // work_ticket, work_done, piece_count[3]
            if (control[i] != 0) fail("control word %u is %u after the command", i, control[i]);
        }
        const u64 cur_edges = control[20] | ((u64)control[21] << 32);
        if (cur_edges != out.back().out_edges)
            fail("cur_edges %llu but the last record says %llu", cur_edges, out.back().out_edges);
        const u32 run = (u32)out.size();
        level += run;
        frontier_len = out.back().frontier_out;
        bitmap_form = is_bitmap(t);
        if (bitmap_form) cur_bitmap ^= run & 1; else cur_queue ^= run & 1;
        return out;
    }
};

// ---- checks -----------------------------------------------------------------

struct Choice {
    Topology t;
    u32 max_levels = 1;
    u64 band = ~0ull;
    u32 blocks = 0;  // 0: the simple rule
};

static u32 slots(Topology t, u32 frontier, u32 n) {
    switch (t) {
        case WarpSparse: return frontier * 32;
        case Dense: return n;
        case BlockDense: return (n + 31) / 32;
        default: return frontier;
    }
}

static void search(Backend& b, const Graph& g, const std::vector<u32>& sources, const std::string& what,
                   const std::function<Choice(u32 wave, u32 level)>& choose, u32 width = 64) {
    if (!b.begin(sources)) {
        fail("%s: begin failed", what.c_str());
        return;
    }
    const Tree ref = reference(g, sources);
    const u32 n = g.out.n();
    std::vector<u64> count(n + 2, 0), oe(n + 2, 0);
    for (u32 v = 0; v < n; ++v) {
        if (ref.depth[v] != UNREACHED) {
            count[ref.depth[v]]++;
            oe[ref.depth[v]] += g.out.deg(v);
        }
    }
    u32 wave = 0;
    while (b.frontier_len > 0) {
        if (b.level > n + 1) {
            fail("%s: runs past %u levels", what.c_str(), n);
            return;
        }
        Choice c = choose(wave, b.level);
        const u32 level0 = b.level, len0 = b.frontier_len;
        u32 blocks = c.blocks ? c.blocks : std::min<u32>(std::max<u32>((slots(c.t, len0, n) + width - 1) / width, 1), 6);
        if (!c.blocks && (c.t == Sparse || c.t == Hybrid)) {
            // Edge-balanced levels get blocks for their edges, as the backend sizes them.
            const u64 per = 4ull * width;
            const u64 work = oe[level0] + (c.t == Sparse ? len0 : 0);
            blocks = std::max<u32>(blocks, (u32)std::min<u64>((work + per - 1) / per, 6));
        }
        if (c.t == Fused && !c.blocks) blocks = std::min<u32>(std::max<u32>((len0 + width - 1) / width, 1), 4);
        const u32 later = c.t == Fused ? blocks : std::min<u32>(std::max<u32>((slots(c.t, n, n) + width - 1) / width, 1), 6);
        auto recs = b.run(c.t, c.max_levels, c.band, width, blocks, later);
        if (recs.empty()) {
            fail("%s: wave %u (%s) failed", what.c_str(), wave, NAMES[c.t]);
            return;
        }
        if (recs[0].frontier_in != len0) fail("%s: frontier_in %u != %u", what.c_str(), recs[0].frontier_in, len0);
        for (size_t i = 0; i < recs.size(); ++i) {
            const Record& r = recs[i];
            const u32 l = level0 + (u32)i;
            if (r.level != l) fail("%s: record level %u != %u", what.c_str(), r.level, l);
            if (r.frontier_in != count[l]) fail("%s: level %u frontier_in %u != %llu", what.c_str(), l, r.frontier_in, count[l]);
            if (r.frontier_out != count[l + 1]) fail("%s: level %u (%s) frontier_out %u != %llu", what.c_str(), l, NAMES[c.t], r.frontier_out, count[l + 1]);
            if (r.out_edges != oe[l + 1]) fail("%s: level %u out_edges %llu != %llu", what.c_str(), l, r.out_edges, oe[l + 1]);
            if (!is_bitmap(c.t) && r.examined != oe[l]) fail("%s: level %u (%s) examined %llu != %llu", what.c_str(), l, NAMES[c.t], r.examined, oe[l]);
            if (is_bitmap(c.t) && (r.examined < r.frontier_out || r.examined > g.out.tgt.size())) fail("%s: level %u bottom-up examined %llu", what.c_str(), l, r.examined);
            if (i + 1 < recs.size() && (r.frontier_out == 0 || r.out_edges > c.band)) fail("%s: ran past a stop at level %u", what.c_str(), l);
        }
        const Record& last = recs.back();
        if (!(last.frontier_out == 0 || last.out_edges > c.band || recs.size() == c.max_levels))
            fail("%s: command returned early after %zu levels", what.c_str(), recs.size());
        if (failures) return;
        ++wave;
    }
    for (u32 v = 0; v < n; ++v) {
        if (b.depth[v] != ref.depth[v]) {
            fail("%s: depth[%u] = %u, reference %u", what.c_str(), v, b.depth[v], ref.depth[v]);
            return;
        }
        const u32 d = b.depth[v], p = b.parent[v];
        if (d == UNREACHED) {
            if (p != UNREACHED) fail("%s: unreached %u has parent %u", what.c_str(), v, p);
        } else if (d == 0) {
            if (p != v) fail("%s: source %u has parent %u", what.c_str(), v, p);
        } else {
            bool edge = false;
            if (p < n) {
                for (u64 e = g.out.off[p]; e < g.out.off[p + 1]; ++e) edge |= g.out.tgt[e] == v;
            }
            if (p >= n || b.depth[p] + 1 != d || !edge) {
                fail("%s: bad parent %u of %u", what.c_str(), p, v);
                return;
            }
        }
    }
}

int main(int argc, char** argv) {
    const std::string only = argc > 1 ? argv[1] : "";
    Backend b;
    const Topology all[] = {WarpSparse, Sparse, Hybrid, Dense, BlockDense, Fused};
    for (const Graph& g : corpus()) {
        if (!b.upload(g)) {
            fail("%s: upload failed", g.name.c_str());
            break;
        }
        const u32 n = g.out.n();
        std::vector<std::vector<u32>> source_sets = {{0}};
        if (n > 5) source_sets.push_back({n - 1, n / 2, 1});
        for (const auto& sources : source_sets) {
            std::string from = g.name + " from " + std::to_string(sources[0]) + (sources.size() > 1 ? "+" : "");
            if (only.empty() || only == "forced") {
                for (Topology t : all)
                    search(b, g, sources, std::string("forced ") + NAMES[t] + " on " + from,
                           [t](u32, u32) { return Choice{t}; });
            }
            if (only.empty() || only == "rotate") {
                search(b, g, sources, "rotating on " + from,
                       [&](u32 wave, u32) { return Choice{all[(wave * 5 + sources.size()) % 6]}; });
            }
            if (only.empty() || only == "chains") {
                for (Topology t : {WarpSparse, Sparse, Hybrid, Dense, BlockDense})
                    search(b, g, sources, std::string("chains of ") + NAMES[t] + " on " + from,
                           [t](u32 wave, u32) {
                               return Choice{wave % 2 ? Dense : t, 5, wave % 3 ? ~0ull : 40};
                           });
            }
            if (only.empty() || only == "fused") {
                search(b, g, sources, "fused band 40 on " + from, [](u32 wave, u32) {
                    return wave % 2 ? Choice{BlockDense} : Choice{Fused, HISTORY_LEVELS, 40};
                });
                search(b, g, sources, "fused whole, 3 blocks, on " + from,
                       [](u32, u32) { return Choice{Fused, HISTORY_LEVELS, ~0ull, 3}; });
                search(b, g, sources, "fused 4 levels, 1 block of 128, on " + from,
                       [](u32, u32) { return Choice{Fused, 4, ~0ull, 1}; }, 128);
                // 4 warps per block: frontiers dealt over part of a block's warps.
                search(b, g, sources, "fused whole, 4 blocks of 128, on " + from,
                       [](u32, u32) { return Choice{Fused, HISTORY_LEVELS, ~0ull, 4}; }, 128);
            }
            if (failures) {
                std::fprintf(stderr, "%d failure(s)\n", failures);
                return 1;
            }
            std::printf("ok: %s\n", from.c_str());
            std::fflush(stdout);
        }
    }
    std::printf("all emulated searches match the reference\n");
    return failures ? 1 : 0;
}
