// Bottom-up (bitmap) levels: DenseFrontier and BlockDenseFrontier. Every
// unvisited vertex looks among its in-edges for a parent whose bit is set in
// bitmap_in and stops once it has one; discovered vertices get depth, parent
// and their bit in bitmap_out. Both kernels write every word of bitmap_out
// whole, so it needs no clearing between levels.
//
// A level is bound by memory latency unless many loads are in flight, so
// both kernels walk the vertices in words of 32 (lane l holds vertex l of a
// word), several words per warp at once, in stages whose loads are issued
// together (bu_probe_words): every depth and row of the words, then the
// first in-edge of every unvisited vertex and its frontier bit, then the
// next VYRE_BU_NEAR in-edges of those that missed. On dense levels most
// vertices find their parent there. The vertices with in-edges left are
// searched more widely: pooled across their warp (DenseFrontier) or across
// the whole block in shared memory (BlockDenseFrontier).

// In-edges after the first that a lane probes for its own vertex, with the
// loads issued together, before the vertex goes to the wider search.
#define VYRE_BU_NEAR 3u
// Words (of 32 vertices) a DenseFrontier warp probes at once.
#define VYRE_DENSE_WORDS 4u
// Words a BlockDenseFrontier warp probes at once (a divisor of 32).
#define VYRE_TILE_WORDS 4u
// In-edges a pooled vertex offers in its first round of a warp or block
// scan; the offer doubles every round, up to VYRE_TILE_MAX_OFFER.
#define VYRE_TILE_FIRST_OFFER 8u
#define VYRE_TILE_MAX_OFFER 1024u

// Depths and row offsets are read once per level: evict-first, so that they
// do not push the frontier bitmap and the in-edges out of the caches. (The
// CPU emulator has no cache hints.)
#ifdef __CUDA_ARCH__
#define VYRE_LOAD_ONCE(p) __ldcs(p)
#else
#define VYRE_LOAD_ONCE(p) (*(p))
#endif

__device__ __forceinline__ bool in_frontier(const VyreArgs& a, u32 u) {
    return (__ldg(&a.bitmap_in[u >> 5]) >> (u & 31u)) & 1u;
}

// Per-thread counters of the level, summed by finish_level.
struct BuCounters {
    u64 examined;   // in-edges looked at
    u64 out_edges;  // out-degrees of the vertices discovered
};

// v, unvisited, has parent u: it joins the next frontier.
__device__ __forceinline__ void bu_claim(const VyreArgs& a, u32 v, u32 u, u32 next_depth) {
    a.depth[v] = next_depth;
    a.parent[v] = u;
}

// Bitmap words holding a vertex with in-edges: the words a level searches.
__device__ __forceinline__ u64 bu_live_words(const VyreArgs& a) {
    return ((u64)a.in_edge_end + 31) / 32;
}

// Zero the next-frontier words from `live` on (vertices without in-edges,
// never found), over the whole grid: every word of bitmap_out is written.
__device__ __forceinline__ void bu_clear_tail(const VyreArgs& a, u64 live) {
    const u64 words = ((u64)a.vertex_count + 31) / 32;
    for (u64 w = live + global_thread(); w < words; w += grid_threads()) a.bitmap_out[w] = 0;
}

// A lane's vertex of one word, after bu_probe_words.
struct BuVertex {
    u64 next;    // first in-edge not examined yet
    u64 end;     // one past the last in-edge
    bool found;  // discovered at this level
    bool open;   // unvisited, not found, in-edges left
};

// Words w0 .. w0 + WORDS (vertices past n are skipped): load every depth and
// row, probe the first in-edge of every unvisited vertex, then the next
// VYRE_BU_NEAR in-edges of those that missed, each stage's loads issued
// together. Vertices found are claimed and counted here.
template <u32 WORDS>
__device__ __forceinline__ void bu_probe_words(const VyreArgs& a, u64 w0, u32 next_depth,
                                               BuVertex (&x)[WORDS], BuCounters& c) {
    const u32 n = a.vertex_count;
    const u64 first = w0 * 32 + lane_id();
    // In a symmetric graph the in-edge row of a vertex is its out-edge row.
    const bool symmetric = a.out_offsets == a.in_offsets;
    u32 depth[WORDS];
#pragma unroll
    for (u32 i = 0; i < WORDS; ++i) {
        const u64 v = first + 32 * i;
        depth[i] = 0;
        x[i].next = 0;
        x[i].end = 0;
        if (v < n) {
            depth[i] = VYRE_LOAD_ONCE(&a.depth[v]);
            x[i].next = VYRE_LOAD_ONCE(&a.in_offsets[v]);
            x[i].end = VYRE_LOAD_ONCE(&a.in_offsets[v + 1]);
        }
    }
    u32 u[WORDS];
#pragma unroll
    for (u32 i = 0; i < WORDS; ++i) {
        x[i].open = depth[i] == VYRE_UNREACHED && x[i].next < x[i].end;
        u[i] = x[i].open ? __ldg(&a.in_targets[x[i].next]) : 0;
    }
#pragma unroll
    for (u32 i = 0; i < WORDS; ++i) x[i].found = x[i].open && in_frontier(a, u[i]);
#pragma unroll
    for (u32 i = 0; i < WORDS; ++i) {
        if (!x[i].open) continue;
        ++c.examined;
        if (x[i].found) {
            const u32 v = (u32)(first + 32 * i);
            bu_claim(a, v, u[i], next_depth);
            c.out_edges += symmetric ? x[i].end - x[i].next : out_degree(a, v);
        }
        x[i].open = !x[i].found && ++x[i].next < x[i].end;
    }

    // The next in-edges of the vertices whose first one missed.
    u32 near[WORDS][VYRE_BU_NEAR];
#pragma unroll
    for (u32 i = 0; i < WORDS; ++i) {
#pragma unroll
        for (u32 j = 0; j < VYRE_BU_NEAR; ++j) {
            const u64 e = x[i].next + j;
            near[i][j] = x[i].open && e < x[i].end ? __ldg(&a.in_targets[e]) : 0;
        }
    }
    bool hit[WORDS][VYRE_BU_NEAR];
#pragma unroll
    for (u32 i = 0; i < WORDS; ++i) {
#pragma unroll
        for (u32 j = 0; j < VYRE_BU_NEAR; ++j) {
            hit[i][j] = x[i].open && x[i].next + j < x[i].end && in_frontier(a, near[i][j]);
        }
    }
#pragma unroll
    for (u32 i = 0; i < WORDS; ++i) {
        if (!x[i].open) continue;
        const u64 left = x[i].end - x[i].next;
        const u32 probed = left < VYRE_BU_NEAR ? (u32)left : VYRE_BU_NEAR;
        c.examined += probed;
        u32 parent = VYRE_UNREACHED;
#pragma unroll
        for (u32 j = VYRE_BU_NEAR; j-- > 0;) {
            if (hit[i][j]) parent = near[i][j];
        }
        if (parent != VYRE_UNREACHED) {
            const u32 v = (u32)(first + 32 * i);
            bu_claim(a, v, parent, next_depth);
            // The row started one in-edge before `next`.
            c.out_edges += symmetric ? x[i].end - x[i].next + 1 : out_degree(a, v);
            x[i].found = true;
        }
        x[i].next += probed;
        x[i].open = !x[i].found && x[i].next < x[i].end;
    }
}

// The lane holding pool slot `slot`: the last lane whose offer starts at or
// before it (lanes offering nothing share the next lane's start and lose to
// it). Every lane must call it.
__device__ __forceinline__ u32 bu_slot_holder(u32 start, u32 slot) {
    u32 k = 0;
#pragma unroll
    for (u32 step = 16; step > 0; step >>= 1) {
        if (__shfl_sync(VYRE_FULL_MASK, start, k + step) <= slot) k += step;
    }
    return k;
}

// Lanes lo .. hi - 1 of a warp (clipped to 0 .. 32) as a mask.
__device__ __forceinline__ u32 bu_lane_range(int lo, int hi) {
    lo = lo < 0 ? 0 : lo;
    hi = hi > 32 ? 32 : hi;
    if (lo >= hi) return 0;
    const u32 below_hi = hi == 32 ? VYRE_FULL_MASK : (1u << hi) - 1u;
    return below_hi & ~((1u << lo) - 1u);
}

// The lanes' open vertices of the word starting at `first_vertex`, searched
// together by the whole warp, so that one long row or many short ones keep
// 32 loads in flight: each round every open vertex offers its next in-edges
// (VYRE_TILE_FIRST_OFFER at first, twice as many each round), a warp scan
// lays the offers end to end, and the lanes take them 32 at a time, four
// chunks' loads issued together. A vertex's first hit claims it; its later
// offers are skipped. All lanes must call it.
__device__ void bu_warp_rest(const VyreArgs& a, u64 first_vertex, u32 next_depth, BuVertex& x,
                             BuCounters& c) {
    const u32 lane = lane_id();
    u32 cap = VYRE_TILE_FIRST_OFFER;
    while (__ballot_sync(VYRE_FULL_MASK, x.open) != 0) {
        const u64 left = x.open ? x.end - x.next : 0;
        const u32 offer = left < cap ? (u32)left : cap;
        const u32 start = warp_inclusive_sum(offer) - offer;
        const u32 total = __shfl_sync(VYRE_FULL_MASK, start + offer, 31);
        bool claimed = false;
        u32 parent = 0;
        for (u32 base = 0; base < total; base += 4 * 32) {
            const u32 done = __ballot_sync(VYRE_FULL_MASK, claimed);
            u32 u[4];
            bool ok[4];
#pragma unroll
            for (u32 j = 0; j < 4; ++j) {
                const u32 slot = base + 32 * j + lane;
                const u32 k = bu_slot_holder(start, slot);
                const u64 row = __shfl_sync(VYRE_FULL_MASK, x.next, k);
                const u32 from = __shfl_sync(VYRE_FULL_MASK, start, k);
                ok[j] = slot < total && !((done >> k) & 1u);
                u[j] = ok[j] ? __ldg(&a.in_targets[row + (slot - from)]) : 0;
                c.examined += ok[j];
            }
#pragma unroll
            for (u32 j = 0; j < 4; ++j) ok[j] = ok[j] && in_frontier(a, u[j]);
#pragma unroll
            for (u32 j = 0; j < 4; ++j) {
                const u32 first_slot = base + 32 * j;
                const int lo = (int)start - (int)first_slot;
                const u32 mine = __ballot_sync(VYRE_FULL_MASK, ok[j]) &
                                 bu_lane_range(lo, lo + (int)offer);
                const u32 hit_lane = mine != 0 ? __ffs(mine) - 1 : 0;
                const u32 candidate = __shfl_sync(VYRE_FULL_MASK, u[j], hit_lane);
                if (mine != 0 && !claimed) {
                    claimed = true;
                    parent = candidate;
                }
            }
        }
        if (claimed) {
            const u32 v = (u32)(first_vertex + lane);
            bu_claim(a, v, parent, next_depth);
            c.out_edges += out_degree(a, v);
            x.found = true;
        }
        if (x.open) {
            x.next += offer;
            x.open = !claimed && x.next < x.end;
        }
        cap = cap < VYRE_TILE_MAX_OFFER ? 2 * cap : VYRE_TILE_MAX_OFFER;
    }
}

// DenseFrontier: each warp takes VYRE_DENSE_WORDS words (32 vertices each)
// at a time over the whole vertex range, searches the vertices the probes
// left open together with the whole warp (bu_warp_rest), and writes each
// word with one ballot.
// Slots: one per vertex (a warp per VYRE_DENSE_WORDS words; surplus blocks
// only take part in the epilogue).
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_dense(const VyreArgs a) {
    if (command_stopped(a)) return;
    level_started(a);
    const u64 words = bu_live_words(a);
    const u64 batches = (words + VYRE_DENSE_WORDS - 1) / VYRE_DENSE_WORDS;
    const u32 active = active_blocks(batches * 32);
    const u32 next_depth = a.level + 1;
    BuCounters c = {0, 0};
    u64 discovered = 0;
    if (blockIdx.x < active) {
        const u32 warps = blockDim.x >> 5;
        const u64 stride = (u64)active * warps;
        const u32 lane = lane_id();
        for (u64 b = (u64)blockIdx.x * warps + warp_in_block(); b < batches; b += stride) {
            const u64 w0 = b * VYRE_DENSE_WORDS;
            BuVertex x[VYRE_DENSE_WORDS];
            bu_probe_words<VYRE_DENSE_WORDS>(a, w0, next_depth, x, c);
            u32 mine = 0;
#pragma unroll
            for (u32 i = 0; i < VYRE_DENSE_WORDS; ++i) {
                bu_warp_rest(a, (w0 + i) * 32, next_depth, x[i], c);
                const u32 word = __ballot_sync(VYRE_FULL_MASK, x[i].found);
                if (lane == i) mine = word;
            }
            if (lane < VYRE_DENSE_WORDS && w0 + lane < words) {
                a.bitmap_out[w0 + lane] = mine;
                discovered += __popc(mine);
            }
        }
    }
    bu_clear_tail(a, words);
    finish_level(a, gridDim.x, c.examined, c.out_edges, discovered);
}

// ---- BlockDenseFrontier ------------------------------------------------------

// A tile's shared memory (dynamic, 20 * blockDim + 16 bytes; 20 * blockDim
// + 8 used): the pool of open vertices and their next in-edges, the tile's
// next-frontier words, and the pool's block scan.
struct BuTile {
    u64* next;        // blockDim entries: first in-edge not examined
    u32* words;       // blockDim entries: the tile's next-frontier words
    u32* pool;        // blockDim entries: the pooled vertices
    u32* scan;        // blockDim + 1 entries: offers laid end to end
    u32* count;       // vertices pooled (may pass blockDim; the rest overflowed)
};

__device__ __forceinline__ BuTile bu_tile(u64* smem) {
    const u32 width = blockDim.x;
    BuTile s;
    s.next = smem;
    s.words = (u32*)(smem + width);
    s.pool = s.words + width;
    s.scan = s.pool + width;
    s.count = s.scan + width + 1;
    return s;
}

// Exclusive sum of `x` over the block into out[threadIdx.x], the total into
// out[blockDim.x]. Every thread must call it.
__device__ void bu_block_scan(u32 x, u32* out) {
    __shared__ u32 warp_base[VYRE_MAX_WARPS];
    const u32 lane = lane_id();
    const u32 warp = warp_in_block();
    const u32 warps = blockDim.x >> 5;
    const u32 inclusive = warp_inclusive_sum(x);
    if (lane == 31) warp_base[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        const u32 total = lane < warps ? warp_base[lane] : 0;
        const u32 running = warp_inclusive_sum(total);
        if (lane < warps) warp_base[lane] = running - total;
        if (lane == 31) out[blockDim.x] = running;
    }
    __syncthreads();
    out[threadIdx.x] = warp_base[warp] + inclusive - x;
    __syncthreads();
}

__device__ __forceinline__ bool bu_tile_has(BuTile s, u64 first_vertex, u32 v) {
    return (s.words[(u32)((v - first_vertex) >> 5)] >> (v & 31u)) & 1u;
}

// Hand the lanes' open vertices of the word starting at `first_vertex` to
// the tile's pool; those past its capacity are scanned by the warp now.
// All lanes must call it.
__device__ __forceinline__ void bu_pool_rest(const VyreArgs& a, BuTile s, u64 first_vertex,
                                             u32 next_depth, BuVertex& x, BuCounters& c) {
    const u32 open = __ballot_sync(VYRE_FULL_MASK, x.open);
    if (open == 0) return;
    const u32 lane = lane_id();
    u32 base = 0;
    if (lane == 0) base = atomicAdd(s.count, (u32)__popc(open));
    base = __shfl_sync(VYRE_FULL_MASK, base, 0);
    const u32 slot = base + __popc(open & lanes_below());
    if (x.open && slot < blockDim.x) {
        s.pool[slot] = (u32)(first_vertex + lane);
        s.next[slot] = x.next;
        x.open = false;
    }
    bu_warp_rest(a, first_vertex, next_depth, x, c);
}

// The block scans the in-edges left to the `count` (<= blockDim) pooled
// vertices of the tile starting at `first_vertex`. Thread k owns pooled
// vertex k. Each round every open vertex offers its next in-edges (8 at
// first, twice as many each round), a block scan lays the offers end to
// end, and the threads take them in turn, four at a time. The first hit of
// a vertex sets its bit in the tile's words and claims it; edges of a vertex
// already claimed are skipped. Empties the pool. Every thread must call it.
__device__ void bu_block_rest(const VyreArgs& a, BuTile s, u64 first_vertex, u32 count,
                              u32 next_depth, BuCounters& c) {
    const u32 t = threadIdx.x;
    const u32 width = blockDim.x;
    u32 v = 0;
    u64 next = 0, end = 0;
    bool open = t < count;
    if (open) {
        v = s.pool[t];
        next = s.next[t];
        end = a.in_offsets[v + 1];
    }
    u32 offer_cap = VYRE_TILE_FIRST_OFFER;
    for (;;) {
        const u64 left = open ? end - next : 0;
        const u32 offer = left < offer_cap ? (u32)left : offer_cap;
        bu_block_scan(offer, s.scan);
        const u32 total = s.scan[width];
        for (u32 base = 0; base < total; base += 4 * width) {
            u32 k[4], u[4];
            bool ok[4];
#pragma unroll
            for (u32 j = 0; j < 4; ++j) {
                const u32 slot = base + j * width + t;
                ok[j] = slot < total;
                k[j] = ok[j] ? holder_of(s.scan, count, slot) : 0;
                ok[j] = ok[j] && !bu_tile_has(s, first_vertex, s.pool[k[j]]);
                u[j] = ok[j] ? __ldg(&a.in_targets[s.next[k[j]] + (slot - s.scan[k[j]])]) : 0;
                c.examined += ok[j];
            }
#pragma unroll
            for (u32 j = 0; j < 4; ++j) {
                if (!ok[j] || !in_frontier(a, u[j])) continue;
                const u32 w = s.pool[k[j]];
                const u32 bit = 1u << (w & 31u);
                if (atomicOr(&s.words[(u32)((w - first_vertex) >> 5)], bit) & bit) continue;
                bu_claim(a, w, u[j], next_depth);
                c.out_edges += out_degree(a, w);
            }
        }
        __syncthreads();
        if (open) {
            next += offer;
            open = next < end && !bu_tile_has(s, first_vertex, v);
            s.next[t] = next;
        }
        if (__syncthreads_count(open) == 0) break;
        offer_cap = offer_cap < VYRE_TILE_MAX_OFFER ? 2 * offer_cap : VYRE_TILE_MAX_OFFER;
    }
    if (t == 0) *s.count = 0;
    __syncthreads();
}

// Bitmap words each warp of a BlockDenseFrontier tile probes: the live words
// spread over every warp of the grid, in whole steps of VYRE_TILE_WORDS, at
// most 32. A level's time is its steps per warp (each step waits, at the
// block's barrier, for its slowest warp's chain of probes): a graph whose
// live words fill fewer than the grid's blocks at 32 words per warp takes
// fewer steps on smaller tiles instead of leaving blocks idle.
__device__ __forceinline__ u32 bu_warp_words(u64 words) {
    const u64 warps = (u64)gridDim.x * (blockDim.x >> 5);
    const u64 steps = (words + warps * VYRE_TILE_WORDS - 1) / (warps * VYRE_TILE_WORDS);
    const u64 share = steps * VYRE_TILE_WORDS;
    return share < 32 ? (u32)(share == 0 ? VYRE_TILE_WORDS : share) : 32u;
}

// BlockDenseFrontier: a block owns a tile of bu_warp_words words per warp
// (at most blockDim words, 32 vertices each). Its warps probe the tile's
// words, VYRE_TILE_WORDS at a time, into the tile's next-frontier words in
// shared memory; vertices left open are pooled and searched by the whole
// block whenever the pool is half full and at the end of the tile. The
// tile's words are then written whole.
// Slots: one per bitmap word.
// Dynamic shared memory: 20 * blockDim + 16 bytes (bu_tile).
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_block_dense(const VyreArgs a) {
    extern __shared__ u64 tile_smem[];
    if (command_stopped(a)) return;
    level_started(a);
    const u64 words = bu_live_words(a);
    const u32 warp_words = bu_warp_words(words);
    const u32 tile_words = (blockDim.x >> 5) * warp_words;
    const u64 tiles = (words + tile_words - 1) / tile_words;
    const u32 active = tiles < (u64)gridDim.x ? (u32)tiles : gridDim.x;
    const u32 next_depth = a.level + 1;
    const u32 width = blockDim.x;
    const u32 t = threadIdx.x;
    const BuTile s = bu_tile(tile_smem);
    BuCounters c = {0, 0};
    u64 discovered = 0;
    if (blockIdx.x < active) {
        const u32 lane = lane_id();
        for (u64 tile = blockIdx.x; tile < tiles; tile += active) {
            const u64 first_word = tile * tile_words;
            const u64 first_vertex = first_word * 32;
            if (t == 0) *s.count = 0;
            __syncthreads();
            for (u32 step = 0; step < warp_words; step += VYRE_TILE_WORDS) {
                // This warp's words of the step, relative to the tile.
                const u32 local = warp_in_block() * warp_words + step;
                BuVertex x[VYRE_TILE_WORDS];
                bu_probe_words<VYRE_TILE_WORDS>(a, first_word + local, next_depth, x, c);
                u32 mine = 0;
#pragma unroll
                for (u32 i = 0; i < VYRE_TILE_WORDS; ++i) {
                    bu_pool_rest(a, s, first_vertex + 32 * (local + i), next_depth, x[i], c);
                    const u32 word = __ballot_sync(VYRE_FULL_MASK, x[i].found);
                    if (lane == i) mine = word;
                }
                if (lane < VYRE_TILE_WORDS) s.words[local + lane] = mine;
                __syncthreads();
                const u32 pooled = *s.count;
                // Every thread has read the count before the next step adds.
                __syncthreads();
                if (pooled != 0 && (2 * pooled >= width || step + VYRE_TILE_WORDS >= warp_words)) {
                    bu_block_rest(a, s, first_vertex, pooled < width ? pooled : width, next_depth,
                                  c);
                }
            }
            if (t < tile_words && first_word + t < words) {
                const u32 word = s.words[t];
                a.bitmap_out[first_word + t] = word;
                discovered += __popc(word);
            }
            __syncthreads();
        }
    }
    bu_clear_tail(a, words);
    finish_level(a, gridDim.x, c.examined, c.out_edges, discovered);
}
