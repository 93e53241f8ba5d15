// What the CPU checks of the owner-computes experiments share: small graphs
// of several shapes, a serial BFS, and the comparison of a search's depths,
// parents and level count with it. Included after cuda_emu.hpp by the
// checks (check*.cpp) and, for its grid, by lockstep_model.cpp.
#pragma once
#include <algorithm>
#include <deque>
#include <random>
#include <utility>
#include <vector>

struct Csr {
    u32 n;
    std::vector<u32> off, tgt;
};

using Edges = std::vector<std::pair<u32, u32>>;

static Csr from_edges(u32 n, Edges e, bool both_ways) {
    if (both_ways) {
        const size_t m = e.size();
        for (size_t i = 0; i < m; ++i) e.push_back({e[i].second, e[i].first});
    }
    Csr c{n, std::vector<u32>(n + 1, 0), std::vector<u32>(e.size())};
    for (auto& x : e) c.off[x.first + 1]++;
    for (u32 i = 0; i < n; ++i) c.off[i + 1] += c.off[i];
    std::vector<u32> pos(c.off.begin(), c.off.end() - 1);
    for (auto& x : e) c.tgt[pos[x.first]++] = x.second;
    return c;
}

static Csr grid(u32 rows, u32 cols) {
    Edges e;
    for (u32 i = 0; i < rows; ++i)
        for (u32 j = 0; j < cols; ++j) {
            const u32 v = i * cols + j;
            if (j + 1 < cols) e.push_back({v, v + 1});
            if (i + 1 < rows) e.push_back({v, v + cols});
        }
    return from_edges(rows * cols, e, true);
}

template <class T>
static T* upload(EmuDevice& dev, const std::vector<T>& v) {
    T* p = dev.alloc<T>(v.size() + 1);
    std::copy(v.begin(), v.end(), p);
    return p;
}

// Whether a search from `src` left the serial BFS's depths, a BFS parent for
// every reached vertex, `levels` levels and no status bits; prints a line.
static bool matches_bfs(const char* name, const Csr& g, u32 src, u32 blocks, u32 width,
                        const u32* depth, const u32* parent, const u32* status) {
    const u32 NO = 0xffffffffu;
    std::vector<u32> ref(g.n, NO);
    ref[src] = 0;
    std::deque<u32> queue{src};
    u32 levels = 0;
    while (!queue.empty()) {
        const u32 u = queue.front();
        queue.pop_front();
        levels = std::max(levels, ref[u] + 1);
        for (u32 i = g.off[u]; i < g.off[u + 1]; ++i)
            if (ref[g.tgt[i]] == NO) {
                ref[g.tgt[i]] = ref[u] + 1;
                queue.push_back(g.tgt[i]);
            }
    }
    bool ok = status[0] == 0 && status[1] == levels && parent[src] == src;
    for (u32 v = 0; v < g.n && ok; ++v) {
        if (depth[v] != ref[v]) {
            std::printf("  depth[%u] is %u, not %u\n", v, depth[v], ref[v]);
            ok = false;
        } else if (ref[v] != NO && v != src) {
            const u32 pa = parent[v];
            bool edge = false;
            for (u32 i = g.off[pa]; pa < g.n && i < g.off[pa + 1]; ++i) edge |= g.tgt[i] == v;
            if (!edge || ref[pa] + 1 != ref[v]) {
                std::printf("  parent[%u] = %u is no BFS parent\n", v, pa);
                ok = false;
            }
        }
    }
    std::printf("%-24s %u blocks of %u: %s (status %u, %u levels of %u)\n", name, blocks, width,
                ok ? "ok" : "FAIL", status[0], status[1], levels);
    return ok;
}

// Runs `check(name, graph, source, blocks, width)` on every shape; true when
// all passed.
template <class Check>
static bool every_shape(Check check) {
    std::mt19937 rng(7);
    bool ok = true;
    const Csr g = grid(40, 30);
    for (u32 b : {1u, 2u, 3u, 5u}) ok &= check("grid 40x30 from 0", g, 0, b, 64);
    ok &= check("grid 40x30 from inside", g, 615, 4, 64);
    ok &= check("grid 40x30 from last", g, 1199, 3, 128);
    {
        Edges e;
        for (u32 i = 0; i + 1 < 700; ++i) e.push_back({i, i + 1});
        const Csr c = from_edges(700, e, true);
        ok &= check("chain 700", c, 0, 4, 64);
        ok &= check("chain 700 from 350", c, 350, 3, 64);
    }
    {
        // Directed, banded (targets within 60 ids), a self-loop, a duplicate,
        // and a piece the source cannot reach.
        Edges e;
        for (u32 i = 0; i < 6000; ++i) {
            const u32 u = rng() % 1200, d = rng() % 60;
            const u32 v = (rng() & 1) ? std::min(u + d, 1199u) : (u >= d ? u - d : 0);
            e.push_back({u, v});
        }
        e.insert(e.end(), {{5, 5}, {5, 6}, {5, 6}});
        for (u32 i = 1200; i + 1 < 1500; ++i) e.push_back({i, i + 1});
        const Csr c = from_edges(1500, e, false);
        for (u32 b : {2u, 4u, 6u}) ok &= check("banded directed", c, 3, b, 64);
    }
    {
        Edges e;
        for (u32 i = 1; i < 900; ++i) e.push_back({0, i});
        const Csr c = from_edges(900, e, true);
        ok &= check("star 900", c, 0, 1, 64);
        ok &= check("star 900 from a leaf", c, 17, 1, 64);
    }
    ok &= check("no edges", from_edges(50, {}, false), 20, 3, 64);
    return ok;
}

// The end of a check: whether the launch ran, and then whether its search
// matched the serial BFS; prints a line either way.
static bool launched_and_matches(bool launched, const char* name, const Csr& g, u32 src,
                                 u32 blocks, u32 width, const u32* depth, const u32* parent,
                                 const u32* status) {
    if (!launched) {
        std::printf("%s: the launch failed\n", name);
        return false;
    }
    return matches_bfs(name, g, src, blocks, width, depth, parent, status);
}

// A check's main: `check(name, graph, source, blocks, width, device)` on
// every shape, with one emulated device.
template <class Check>
static int check_every_shape(Check check) {
    EmuDevice dev;
    dev.init(512ull << 20);
    const bool ok = every_shape([&](const char* name, const Csr& g, u32 src, u32 blocks,
                                    u32 width) { return check(name, g, src, blocks, width, dev); });
    std::printf(ok ? "every search matched\n" : "FAILURES\n");
    return ok ? 0 : 1;
}
