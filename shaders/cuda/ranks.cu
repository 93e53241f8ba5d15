// One rank's share of a search partitioned across GPUs
// (crates/vyre-cuda/src/ranks). A rank owns the vertices
// range_start..range_end (range_start a multiple of 32), holds their rows
// with global target ids, and alone sets their depth and parent. The host
// drives each level and the exchange between ranks; these kernels only
// touch the rank's own buffers. Every kernel takes one VyreRankArgs
// (common.cuh).

// The rank owning global vertex v: the last rank whose range starts at or
// before v (an empty range shares its start with the next one).
__device__ __forceinline__ u32 rank_owner(const VyreRankArgs& a, u32 v) {
    u32 lo = 0, hi = a.ranks;  // starts[lo] <= v < starts[hi]
    while (hi - lo > 1) {
        const u32 mid = (lo + hi) / 2;
        if (a.starts[mid] <= v) lo = mid; else hi = mid;
    }
    return lo;
}

// Claim owned vertex v with `parent` unless it is reached already; a claimed
// vertex joins the next queue. Returns its out-degree when claimed, else 0.
__device__ __forceinline__ u64 rank_claim(const VyreRankArgs& a, u32 v, u32 parent) {
    const u32 local = v - a.range_start;
    if (atomicCAS(&a.depth[local], VYRE_UNREACHED, a.level + 1) != VYRE_UNREACHED) return 0;
    a.parent[local] = parent;
    const u64 slot = atomicAdd(&a.counts[VYRE_RANK_FOUND], 1ull);
    a.queue_out[slot] = v;
    return a.out_offsets[local + 1] - a.out_offsets[local];
}

// Add a block's examined edges and discoveries' out-edges to the counts.
// Every thread of the block must call it.
__device__ __forceinline__ void rank_count(const VyreRankArgs& a, u64 examined, u64 edges) {
    u64 unused = 0;
    block_sum3(examined, edges, unused);
    if (threadIdx.x != 0) return;
    if (examined != 0) atomicAdd(&a.counts[VYRE_RANK_EXAMINED], examined);
    if (edges != 0) atomicAdd(&a.counts[VYRE_RANK_EDGES], edges);
}

// Every owned vertex unreached.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_rank_init(const VyreRankArgs a) {
    const u64 owned = a.range_end - a.range_start;
    for (u64 i = global_thread(); i < owned; i += grid_threads()) {
        a.depth[i] = VYRE_UNREACHED;
        a.parent[i] = VYRE_UNREACHED;
    }
}

// The owned sources the host wrote into queue_in (counts[FRONTIER] of
// them) become depth 0 and their own parents. Runs after vyre_rank_init.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_rank_seed(const VyreRankArgs a) {
    const u64 len = a.counts[VYRE_RANK_FRONTIER];
    for (u64 i = global_thread(); i < len; i += grid_threads()) {
        const u32 v = a.queue_in[i];
        a.depth[v - a.range_start] = 0;
        a.parent[v - a.range_start] = v;
    }
}

// Edge u -> v of owned frontier vertex u, top-down: an owned target is
// claimed at once; any other is queued once per level (the `sent` bits,
// which vyre_rank_clear_sent clears after the exchange) with its parent for
// its owner. A destination's room holds every vertex it owns or every edge
// this rank stores, whichever is fewer, so no pair is ever dropped.
__device__ __forceinline__ void rank_push(const VyreRankArgs& a, u32 u, u32 v, u64& edges) {
    if (v >= a.range_start && v < a.range_end) {
        edges += rank_claim(a, v, u);
        return;
    }
    const u32 bit = 1u << (v & 31u);
    if (atomicOr(&a.sent[v >> 5], bit) & bit) return;
    const u32 d = rank_owner(a, v);
    const u64 at = a.outbox_start[d] + 2ull * atomicAdd(&a.outbox_len[d], 1u);
    if (at + 2 <= a.outbox_start[d + 1]) {
        a.outbox[at] = v;
        a.outbox[at + 1] = u;
    }
}

// Top-down, first part: a thread per owned frontier vertex. A vertex of
// fewer than VYRE_LIGHT_DEGREE out-edges is expanded by its thread; any
// other is cut into pieces (common.cuh, by local index) for
// vyre_rank_expand_pieces, which deals them evenly over its whole grid, so
// that a few hubs do not hold a few warps for the whole level.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_rank_expand(const VyreRankArgs a) {
    const u64 len = a.counts[VYRE_RANK_FRONTIER];
    const VyrePieces pieces = {0, (u32*)&a.counts[VYRE_RANK_PIECES]};
    u64 examined = 0, edges = 0;
    // Warp-uniform bounds: the piece appends are warp-wide.
    for (u64 base = global_thread() - lane_id(); base < len; base += grid_threads()) {
        const u64 i = base + lane_id();
        u32 u = 0, local = 0;
        u64 start = 0, degree = 0;
        if (i < len) {
            u = a.queue_in[i];
            local = u - a.range_start;
            start = a.out_offsets[local];
            degree = a.out_offsets[local + 1] - start;
        }
        warp_append_pieces(a, pieces, degree, local);
        if (degree >= VYRE_LIGHT_DEGREE) continue;
        for (u64 e = start; e < start + degree; ++e) {
            ++examined;
            rank_push(a, u, a.out_targets[e], edges);
        }
    }
    rank_count(a, examined, edges);
}

// Top-down, second part: block b takes its even share of the pieces
// vyre_rank_expand listed and expands them a tile of blockDim pieces at a
// time, each thread one edge per round (VyreItems), so that a tile's edges
// spread over all its threads whatever its pieces' lengths.
// Dynamic shared memory: 20 * blockDim + 8 bytes (as vyre_hybrid).
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_rank_expand_pieces(const VyreRankArgs a) {
    extern __shared__ u64 rank_smem[];
    const u32 width = blockDim.x;
    VyreItems items;
    items.scan = rank_smem;                  // width + 1
    items.row = items.scan + width + 1;      // width
    items.src = (u32*)(items.row + width);   // width
    const u64 total = a.counts[VYRE_RANK_PIECES];
    const u64 last = share_start(total, gridDim.x, blockIdx.x + 1);
    u64 examined = 0, edges = 0;
    for (u64 tile = share_start(total, gridDim.x, blockIdx.x); tile < last; tile += width) {
        load_piece_tile(a, 0, tile, last, items);
        const u64 tile_edges = items.scan[width];
        for (u64 e = threadIdx.x; e < tile_edges; e += width) {
            const u32 k = item_of(items.scan, width, e);
            ++examined;
            rank_push(a, a.range_start + items.src[k], a.out_targets[items.row[k] + (e - items.scan[k])],
                      edges);
        }
        __syncthreads();
    }
    rank_count(a, examined, edges);
}

// After the exchange: clear the `sent` bits of the vertices this rank
// queued (every set bit has its pair in the outbox), so that a lists level
// costs its pairs rather than a bitmap of the whole graph.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_rank_clear_sent(const VyreRankArgs a) {
    for (u32 d = 0; d < a.ranks; ++d) {
        const u64 first = a.outbox_start[d];
        const u64 room = (a.outbox_start[d + 1] - first) / 2;
        const u64 queued = a.outbox_len[d] < room ? a.outbox_len[d] : room;
        for (u64 i = global_thread(); i < queued; i += grid_threads()) {
            const u32 v = a.outbox[first + 2 * i];
            a.sent[v >> 5] = 0;
        }
    }
}

// The pairs other ranks sent: the first claim of each unreached vertex wins
// (every sender is at depth `level`, so any is a valid parent).
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_rank_merge(const VyreRankArgs a) {
    u64 edges = 0;
    for (u64 i = global_thread(); i < a.pair_count; i += grid_threads()) {
        const u32 v = a.pairs[2 * i];
        if (v >= a.range_start && v < a.range_end) edges += rank_claim(a, v, a.pairs[2 * i + 1]);
    }
    rank_count(a, 0, edges);
}

// The owned frontier as the words of the owned range, the rank's block of
// the bitmap all-gather.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_rank_frontier_words(const VyreRankArgs a) {
    const u64 len = a.counts[VYRE_RANK_FRONTIER];
    for (u64 i = global_thread(); i < len; i += grid_threads()) {
        const u32 local = a.queue_in[i] - a.range_start;
        atomicOr(&a.block[local >> 5], 1u << (local & 31u));
    }
}

// Bottom-up: each owned unreached vertex takes the first in-neighbour set
// in the whole frontier's bitmap as its parent.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_rank_pull(const VyreRankArgs a) {
    const u64 owned = a.range_end - a.range_start;
    u64 examined = 0, edges = 0;
    for (u64 i = global_thread(); i < owned; i += grid_threads()) {
        if (a.depth[i] != VYRE_UNREACHED) continue;
        const u64 end = a.in_offsets[i + 1];
        for (u64 e = a.in_offsets[i]; e < end; ++e) {
            const u32 u = a.in_targets[e];
            ++examined;
            if (a.bitmap[u >> 5] & (1u << (u & 31u))) {
                edges += rank_claim(a, a.range_start + (u32)i, u);
                break;
            }
        }
    }
    rank_count(a, examined, edges);
}
