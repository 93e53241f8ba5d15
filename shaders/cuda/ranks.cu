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

// Top-down: a warp per owned frontier vertex, its lanes striding over the
// row. Owned targets are claimed here; every other target is queued once
// per level (the `sent` bits, zeroed by the host) with its parent for its
// owner. A destination's room holds every vertex it owns or every edge
// this rank stores, whichever is fewer, so no pair is ever dropped.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_rank_expand(const VyreRankArgs a) {
    const u64 len = a.counts[VYRE_RANK_FRONTIER];
    const u32 lane = lane_id();
    const u64 warps = grid_threads() / 32;
    u64 examined = 0, edges = 0;
    // Warp-uniform: every lane of a warp takes the same vertices.
    for (u64 i = global_thread() / 32; i < len; i += warps) {
        const u32 u = a.queue_in[i];
        const u32 local = u - a.range_start;
        const u64 end = a.out_offsets[local + 1];
        for (u64 e = a.out_offsets[local] + lane; e < end; e += 32) {
            const u32 v = a.out_targets[e];
            ++examined;
            if (v >= a.range_start && v < a.range_end) {
                edges += rank_claim(a, v, u);
                continue;
            }
            const u32 bit = 1u << (v & 31u);
            if (atomicOr(&a.sent[v >> 5], bit) & bit) continue;
            const u32 d = rank_owner(a, v);
            const u64 at = a.outbox_start[d] + 2ull * atomicAdd(&a.outbox_len[d], 1u);
            if (at + 2 <= a.outbox_start[d + 1]) {
                a.outbox[at] = v;
                a.outbox[at + 1] = u;
            }
        }
    }
    rank_count(a, examined, edges);
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
