// Runs vyre's CUDA kernels under cuda_emu.hpp and checks whole searches
// against a serial BFS. The host side mirrors crates/vyre-cuda/src (wave.rs,
// backend.rs): same buffers, same launch sequence, same readback rules; the
// grids are the engine's rules as the driver states them (the first level's
// workgroups for its slots and, edge-balanced, its edges at the command's
// edges per lane; every later level of a chain the most the largest level
// can use), with the search position (level, form, buffer) kept here as the
// engine keeps it. Built with -DVYRE_TEST_STUCK_BARRIER, its `stuck` mode
// checks that a fused launch whose barrier never opens ends once the host
// sets the abort word. See README.md.

#include "cuda_emu.hpp"
#include "kernels.inc"

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <deque>
#include <functional>
#include <random>
#include <string>

static const u32 UNREACHED = 0xffffffffu;

static int failures = 0;
// `cluster` mode: fused commands of several blocks run as one cluster.
static bool emu_cluster_mode = false;
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
static bool is_edge_balanced(Topology t) { return t == Sparse || t == Hybrid; }

struct Record {
    u32 level, frontier_in, frontier_out;
    u64 out_edges, examined;
};

static const u32 HISTORY_LEVELS = 512;

struct Backend {
    EmuDevice dev;
    const Graph* g = nullptr;
    u64 *out_off, *in_off;
    u64* level_times;  // per-wave levels' start and end (records.rs's times)
    u32 *out_tgt, *in_tgt, *depth, *parent, *queue[2], *bitmap[2], *control, *history, *level_log, *work;
    u32* abort_word;  // pinned host memory in the backend; here the shared mapping
    u32 max_out_degree = 0;
    u32 in_edge_end = 0;  // one past the last vertex with an in-edge (buffers.rs)
    u64 work_words = 0;
    // The search position, as the engine keeps it: the frontier lives in
    // buffer `buffer` of its form.
    u32 level = 0, frontier_len = 0, buffer = 0, epoch = 0;
    u64 frontier_edges = 0;
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
        a.in_edge_end = in_edge_end;
        a.work = work;
        a.abort_flag = abort_word;
        a.work_words = work_words;
        a.band_max_frontier_edges = ~0ull;
        a.band_max_frontier_vertices = ~0ull;
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
        level_times = dev.alloc<u64>(HISTORY_LEVELS * 2);
        max_out_degree = 0;
        for (u32 v = 0; v < n; ++v) max_out_degree = std::max<u64>(max_out_degree, graph.out.deg(v));
        const auto& in = graph.symmetric ? graph.out : graph.in;
        in_edge_end = 0;
        for (u32 v = 0; v < n; ++v)
            if (in.deg(v) != 0) in_edge_end = v + 1;
        // DeviceLayout::work_bytes: 2n + ceil(m / 512) + WORK_RESERVE_WORDS words.
        work_words = 2 * (u64)n + (e + 511) / 512 + 2112;
        work = dev.alloc<u32>(work_words);
        abort_word = dev.alloc<u32>(1);
        *abort_word = 0;
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
        frontier_edges = 0;
        for (u32 s : sources) frontier_edges += g->out.deg(s);
        buffer = 0;
        bitmap_form = false;
        epoch = 0;
        return true;
    }

    // One command; returns its records (empty on a failure).
    std::vector<Record> run(Topology t, u32 max_levels, u64 band, u32 band_vertices, u32 width,
                            u32 first_blocks, u32 later_blocks, u32 slice, u32 per_lane) {
        std::vector<Record> out;
        epoch = epoch + 1 == 0 ? 1 : epoch + 1;
        VyreArgs a = base();
        a.epoch = epoch;
        for (u32 i = 0; i < max_levels && i < HISTORY_LEVELS; ++i) history[8 * i + 3] = 0;
        a.band_max_frontier_edges = band;
        a.band_max_frontier_vertices = band_vertices;
        a.max_levels = max_levels;
        a.edges_per_lane = is_edge_balanced(t) ? per_lane : 0;
        const u32 n = g->out.n();
        // A search's commands time themselves (wave.rs): per-wave levels the
        // first from its conversion on, a fused launch as a whole.
        a.level_times = level_times;
        for (u32 i = 0; i < 2 * max_levels && i < 2 * HISTORY_LEVELS; ++i) level_times[i] = 0;
        // A conversion moves the frontier into the same buffer of the other
        // form.
        if (is_bitmap(t) && !bitmap_form) {
            // Both bitmaps are zero while the frontier is a queue.
            a.queue_in = queue[buffer];
            a.bitmap_out = bitmap[buffer];
            if (!emu_launch(vyre_queue_to_bitmap, setup_blocks(frontier_len), 64, a)) return out;
        } else if (!is_bitmap(t) && bitmap_form) {
            a.bitmap_in = bitmap[buffer];
            a.bitmap_out = bitmap[buffer ^ 1];
            a.queue_out = queue[buffer];
            if (!emu_launch(vyre_bitmap_to_queue, setup_blocks((n + 31) / 32), 64, a)) return out;
        }
        if (t == Fused) {
            a.queue_in = queue[buffer];
            a.queue_out = queue[buffer ^ 1];
            a.level = level;
            a.max_levels = max_levels;
            // The cluster mode launches light graphs' fused commands of
            // several blocks as one cluster, as the engine does on a device
            // with FusedCluster.
            if (emu_cluster_mode && first_blocks > 1 && a.max_out_degree < VYRE_LIGHT_DEGREE) {
                if (!emu_launch_cluster(vyre_fused_cluster, first_blocks, width, a)) return out;
            } else if (!emu_launch(vyre_fused, first_blocks, width, a)) {
                return out;
            }
        } else {
            void (*k)(VyreArgs) = t == WarpSparse ? vyre_warp_sparse
                                  : t == Sparse   ? vyre_sparse
                                  : t == Hybrid   ? vyre_hybrid
                                  : t == Dense    ? vyre_dense
                                                  : vyre_block_dense;
            for (u32 i = 0; i < max_levels; ++i) {
                // SearchPosition::buffer_of_level: level i reads buffer ^ (i & 1).
                const u32 p = buffer ^ (i & 1);
                a.queue_in = queue[p];
                a.queue_out = queue[p ^ 1];
                a.bitmap_in = bitmap[p];
                a.bitmap_out = bitmap[p ^ 1];
                a.level = level + i;
                a.history_index = i;
                if (!emu_launch(k, i == 0 ? first_blocks : later_blocks, width, a, slice)) return out;
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
            if (t == Fused && i == 0 && (level_times[0] == 0 || level_times[1] < level_times[0]))
                fail("fused launch timed %llu to %llu", level_times[0], level_times[1]);
            if (t != Fused) {
                const u64 start = level_times[2 * i], end = level_times[2 * i + 1];
                if (start == 0 || end < start) fail("level %u timed %llu to %llu", i, start, end);
                if (i > 0 && start < level_times[2 * i - 1])
                    fail("level %u started at %llu before level %u ended", i, start, i - 1);
            }
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
        if (control[52] != 0 || control[53] != 0)
            fail("conv_start_ns not clear after the command");
        for (u32 i = 22; i < 27; ++i) {
            // work_ticket, work_done, piece_count[3]
            if (control[i] != 0) fail("control word %u is %u after the command", i, control[i]);
        }
        const u64 cur_edges = control[20] | ((u64)control[21] << 32);
        if (cur_edges != out.back().out_edges)
            fail("cur_edges %llu but the last record says %llu", cur_edges, out.back().out_edges);
        // SearchPosition::after.
        const u32 run = (u32)out.size();
        level += run;
        frontier_len = out.back().frontier_out;
        frontier_edges = out.back().out_edges;
        bitmap_form = is_bitmap(t);
        buffer ^= run & 1;
        if (!bitmap_form) {
            // A queue frontier leaves both bitmaps zero (queue_to_bitmap
            // relies on it).
            const u64 words = std::max<u64>((n + 31) / 32, 1);
            for (u32 b = 0; b < 2; ++b)
                for (u64 w = 0; w < words; ++w)
                    if (bitmap[b][w] != 0) {
                        fail("bitmap %u word %llu is %x with a queue frontier", b, w, bitmap[b][w]);
                        return {};
                    }
        }
        return out;
    }
};

// ---- checks -----------------------------------------------------------------

struct Choice {
    Topology t;
    u32 max_levels = 1;
    u64 band = ~0ull;
    u32 blocks = 0;  // 0: the simple rule
    // Per-wave launches run this many blocks at a time (0: all at once), so
    // that a chained level's surplus blocks start after the level closed.
    u32 slice = 0;
    // Most frontier vertices a later level runs on; the chain's later grid
    // is what such a level needs, as the engine sizes a long chain's.
    u32 band_vertices = ~0u;
    // FrontierBand::ends_after.
    bool ends_after(u32 found, u64 out_edges) const {
        return found == 0 || out_edges > band || found > band_vertices;
    }
};

static u32 slots(Topology t, u32 frontier, u32 n) {
    switch (t) {
        case WarpSparse: return frontier * 32;
        case Dense: return n;
        case BlockDense: return (n + 31) / 32;
        default: return frontier;
    }
}

// Most workgroups of a per-wave launch here (the emulated device's "resident" grid).
static const u32 MOST_BLOCKS = 6;

// The engine's edges per lane of a command (plan/grid/launch.rs): one while
// the frontier's out-edges fit on the resident lanes, else EDGES_PER_LANE.
static u32 edges_per_lane(u64 frontier_edges, u32 width) {
    return frontier_edges <= (u64)MOST_BLOCKS * width ? 1u : VYRE_ENGINE_EDGES_PER_LANE;
}

// LevelSizing::workgroups: lanes for every slot and, edge-balanced, for every
// `per_lane` edges; between 1 and MOST_BLOCKS workgroups.
static u32 workgroups(Topology t, u32 width, u32 vertices, u64 edges, u32 n, u32 per_lane) {
    u64 lanes = slots(t, vertices, n);
    if (is_edge_balanced(t)) lanes = std::max<u64>(lanes, (edges + per_lane - 1) / per_lane);
    return (u32)std::min<u64>(std::max<u64>((lanes + width - 1) / width, 1), MOST_BLOCKS);
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
        if (b.frontier_edges != oe[level0]) fail("%s: the position says %llu frontier edges, the reference %llu", what.c_str(), b.frontier_edges, oe[level0]);
        // The engine's grids: the first level's by its frontier, later ones the largest level's.
        const u32 per_lane = edges_per_lane(b.frontier_edges, width);
        u32 blocks = c.blocks ? c.blocks : workgroups(c.t, width, len0, b.frontier_edges, n, per_lane);
        if (c.t == Fused && !c.blocks) blocks = std::min<u32>(std::max<u32>((len0 + width - 1) / width, 1), 4);
        const u32 later = c.t == Fused ? blocks
                                       : workgroups(c.t, width, std::min(n, c.band_vertices),
                                                    std::min<u64>(g.out.tgt.size(), c.band), n, per_lane);
        auto recs = b.run(c.t, c.max_levels, c.band, c.band_vertices, width, blocks, later, c.slice, per_lane);
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
            if (i + 1 < recs.size() && c.ends_after(r.frontier_out, r.out_edges)) fail("%s: ran past a stop at level %u", what.c_str(), l);
        }
        const Record& last = recs.back();
        if (!(c.ends_after(last.frontier_out, last.out_edges) || recs.size() == c.max_levels))
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

#ifdef VYRE_TEST_STUCK_BARRIER
// The test-only fused kernel whose barrier never opens: a launch of several
// blocks must end once the host sets the abort word, a one-block launch
// (no barrier) still runs, and after a fresh begin every search matches.
static void stuck_barrier(Backend& b, const Graph& g) {
    using Clock = std::chrono::steady_clock;
    if (!b.upload(g) || !b.begin({0})) {
        fail("%s: upload failed", g.name.c_str());
        return;
    }
    VyreArgs a = b.base();
    a.queue_in = b.queue[0];
    a.queue_out = b.queue[1];
    a.epoch = 1;
    a.max_levels = HISTORY_LEVELS;
    const auto start = Clock::now();
    std::thread host([&] {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        __atomic_store_n(b.abort_word, 1u, __ATOMIC_SEQ_CST);
    });
    const bool ended = emu_launch(vyre_fused, 3, 64, a);
    host.join();
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    if (!ended) fail("%s: the aborted fused launch did not end cleanly", g.name.c_str());
    if (s < 0.9) fail("%s: the stuck launch ended after %.2f s, before the abort", g.name.c_str(), s);
    if (s > 10) fail("%s: the launch took %.2f s to leave after the abort", g.name.c_str(), s);
    *b.abort_word = 0;
    search(b, g, {0}, "sparse after an abort on " + g.name, [](u32, u32) { return Choice{Sparse}; });
    search(b, g, {0}, "one-block fused after an abort on " + g.name,
           [](u32, u32) { return Choice{Fused, HISTORY_LEVELS, ~0ull, 1}; });
    if (!failures) std::printf("ok: %s: a stuck fused launch left %.2f s after its start (abort at 1 s)\n", g.name.c_str(), s);
}
#endif

int main(int argc, char** argv) {
    const std::string only = argc > 1 ? argv[1] : "";
    emu_cluster_mode = only == "cluster";
    Backend b;
    if (only == "stuck") {
#ifdef VYRE_TEST_STUCK_BARRIER
        // Light (no pieces) and heavy (the first frontier's pieces, a barrier before level 0).
        for (const Graph& g : corpus()) {
            if (g.name == "grid 24x17" || g.name == "star 3000") stuck_barrier(b, g);
        }
        return failures ? 1 : 0;
#else
        std::fprintf(stderr, "the stuck mode needs a build with -DVYRE_TEST_STUCK_BARRIER (run.sh stuck)\n");
        return 2;
#endif
    }
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
                // Queue levels use the first blocks of a chain's later grid;
                // run one block at a time, the others start after the level
                // closed, when the next frontier is current.
                for (Topology t : {WarpSparse, Sparse, Hybrid})
                    search(b, g, sources, std::string("chains of ") + NAMES[t] + ", a block at a time, on " + from,
                           [t](u32, u32) { return Choice{t, 4, ~0ull, 0, 1}; });
                // A band of vertices, and later grids sized for it: chains
                // hand back where the frontier outgrows 3 or 40 vertices.
                for (Topology t : {WarpSparse, Sparse, Hybrid})
                    search(b, g, sources, std::string("chains of ") + NAMES[t] + " in a band of vertices on " + from,
                           [t](u32 wave, u32) { return Choice{t, 8, ~0ull, 0, 0, wave % 2 ? 3u : 40u}; });
            }
            if (only.empty() || only == "fused" || emu_cluster_mode) {
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
