// Top-down (queue) levels: WarpSparseFrontier, SparseFrontier,
// HybridFrontier. Each reads the current frontier from queue_in (length in
// control->cur_len, out-edges in control->cur_edges), claims undiscovered
// out-neighbours, appends them to queue_out, and ends with finish_level.
//
// SparseFrontier and HybridFrontier balance the frontier's edges over the
// whole grid: they use edge_blocks(a, cur_edges) blocks, so a frontier of a
// few hubs spreads over as many blocks as its edges need, wherever the hubs
// sit in the queue.

// WarpSparseFrontier: one warp per frontier vertex, lanes stride over its
// out-edges. Slots: 32 per frontier vertex.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_warp_sparse(const VyreArgs a) {
    const VyreFrontier f = level_frontier(a);
    if (f.stopped) return;
    level_started(a);
    const u32 len = f.len;
    const u32 active = level_blocks(active_blocks((u64)len * 32));
    if (surplus_block(f, active)) return;
    const u32 next_depth = a.level + 1;
    u32* cursor = &a.control->next_len[0];
    u64 examined = 0, out_edges = 0;
    const u32 warps = blockDim.x >> 5;
    const u64 stride = (u64)active * warps;
    const u32 lane = lane_id();
    for (u64 i = (u64)blockIdx.x * warps + warp_in_block(); i < len; i += stride) {
        const u32 u = a.queue_in[i];
        const u64 end = a.out_offsets[u + 1];
        for (u64 e = a.out_offsets[u] + lane, top = end + lane; e < top; e += 32) {
            bool found = false;
            u32 v = 0;
            u64 degree = 0;
            if (e < end) {
                v = a.out_targets[e];
                ++examined;
                found = discover<true>(a, v, u, next_depth, out_edges, degree);
            }
            warp_append(a.queue_out, cursor, found, v);
        }
    }
    finish_level(a, active, examined, out_edges, 0);
}

// ---- SparseFrontier ----------------------------------------------------------

// Frontier vertices one block scans in shared memory.
__device__ __forceinline__ u32 sparse_capacity() {
    const u32 four = 4 * blockDim.x;
    return four < VYRE_SMALL_FRONTIER_MAX ? four : VYRE_SMALL_FRONTIER_MAX;
}

// Scan the degrees of the whole frontier (len <= sparse_capacity()) into
// the block's items; returns its out-edges. Every thread must call it.
__device__ u64 scan_whole_frontier(const VyreArgs& a, u32 len, VyreItems items, u64* tmp) {
    const u32 t = threadIdx.x;
    // All loads first, so that their latencies overlap; the degrees wait in
    // scan[] for the block scans.
    for (u32 i = t; i < len; i += blockDim.x) {
        const u32 u = a.queue_in[i];
        const u64 start = a.out_offsets[u];
        items.src[i] = u;
        items.row[i] = start;
        items.scan[i] = a.out_offsets[u + 1] - start;
    }
    __syncthreads();
    u64 carry = 0;
    for (u32 base = 0; base < len; base += blockDim.x) {
        const u32 i = base + t;
        const u64 degree = i < len ? items.scan[i] : 0;
        block_exclusive_scan(degree, tmp);
        if (i < len) items.scan[i] = carry + tmp[t];
        // The next scan writes tmp only after a barrier every thread
        // reaches after this read.
        carry += tmp[blockDim.x];
    }
    if (t == 0) items.scan[len] = carry;
    __syncthreads();
    return carry;
}

// Where a large frontier's device-wide scan lives in the work array: the
// exclusive prefix of each vertex's degree within its chunk (one u64 per
// frontier vertex), then the chunk totals.
struct SparseScan {
    u64* local;     // 2n words
    u64* totals;    // VYRE_SCAN_CHUNKS u64 after them
    u32 chunk_len;  // frontier vertices per chunk, a multiple of blockDim
    u32 chunks;     // at most VYRE_SCAN_CHUNKS
};

__device__ SparseScan sparse_scan_plan(const VyreArgs& a, u32 len) {
    SparseScan s;
    s.local = (u64*)a.work;
    s.totals = s.local + a.vertex_count;
    const u64 per = (u64)blockDim.x * VYRE_SCAN_CHUNKS;
    s.chunk_len = blockDim.x * (u32)((len + per - 1) / per);
    s.chunks = (u32)(((u64)len + s.chunk_len - 1) / s.chunk_len);
    return s;
}

// Phase 1 of a large frontier: blocks claim chunks and scan them. Every
// block takes part; every thread must call it.
__device__ void scan_chunks(const VyreArgs& a, u32 len, SparseScan s, u64* tmp) {
    VyreControl* c = a.control;
    for (;;) {
        const u32 k = block_claim(&c->work_ticket, s.chunks);
        if (k >= s.chunks) break;
        const u64 first = (u64)k * s.chunk_len;
        u64 carry = 0;
        for (u32 off = 0; off < s.chunk_len && first + off < len; off += blockDim.x) {
            const u64 i = first + off + threadIdx.x;
            u64 degree = 0;
            if (i < len) degree = out_degree(a, a.queue_in[i]);
            block_exclusive_scan(degree, tmp);
            if (i < len) s.local[i] = carry + tmp[threadIdx.x];
            carry += tmp[blockDim.x];
        }
        if (threadIdx.x == 0) s.totals[k] = carry;
        block_finished_chunk(&c->work_done);
    }
}

// Phase 2 of a large frontier: once every chunk is scanned, this block's
// share of the frontier's edges, expanded one window of blockDim frontier
// vertices at a time. Every thread must call it.
__device__ void expand_scanned(const VyreArgs& a, u32 len, SparseScan s, u32 parts,
                               VyreItems items, u64* tmp, u64* bases, u32* cursor,
                               u32 next_depth, u64& examined, u64& out_edges) {
    const u32 t = threadIdx.x;
    const u32 width = blockDim.x;
    if (!block_wait_for(a, &a.control->work_done, s.chunks)) return;
    u64 total = 0;
    for (u32 base = 0; base < s.chunks; base += width) {
        const u32 k = base + t;
        block_exclusive_scan(k < s.chunks ? __ldcg(&s.totals[k]) : 0, tmp);
        if (k < s.chunks) bases[k] = total + tmp[t];
        total += tmp[width];
    }
    if (t == 0) bases[s.chunks] = total;
    __syncthreads();
    const u64 from = share_start(total, parts, blockIdx.x);
    const u64 to = share_start(total, parts, blockIdx.x + 1);
    if (from >= to) return;
    // The frontier position holding edge `from`: its chunk by binary search
    // of the chunk bases, then within the chunk by a block-wide search in
    // which every thread probes one point per step.
    const u32 chunk = item_of(bases, s.chunks, from);
    const u64 rest = from - bases[chunk];
    u64 lo = (u64)chunk * s.chunk_len;
    u64 hi = lo + s.chunk_len < len ? lo + s.chunk_len : len;
    while (hi - lo > 1) {
        const u64 step = (hi - lo + width - 1) / width;
        const u64 probe = lo + (u64)t * step;
        // local[lo] <= rest holds, so at least thread 0 counts.
        const bool below = probe < hi && __ldcg(&s.local[probe]) <= rest;
        const u64 count = (u64)__syncthreads_count(below);
        const u64 next_hi = lo + count * step;
        lo += (count - 1) * step;
        hi = next_hi < hi ? next_hi : hi;
    }
    const VyrePieces none = {0, nullptr};
    for (u64 p = lo;; p += width) {
        const u64 pos = p + t;
        if (pos < len) {
            const u32 u = a.queue_in[pos];
            items.src[t] = u;
            items.row[t] = a.out_offsets[u];
            items.scan[t] = bases[(u32)pos / s.chunk_len] + __ldcg(&s.local[pos]);
        } else {
            items.src[t] = 0;
            items.row[t] = 0;
            items.scan[t] = total;
        }
        if (t == 0) {
            const u64 q = p + width;
            items.scan[width] =
                q < len ? bases[(u32)q / s.chunk_len] + __ldcg(&s.local[q]) : total;
        }
        __syncthreads();
        const u64 begin = items.scan[0] > from ? items.scan[0] : from;
        const u64 end = items.scan[width] < to ? items.scan[width] : to;
        expand_items<true, false>(a, items, width, begin, end, a.queue_out, cursor, next_depth,
                                  none, examined, out_edges);
        const bool more = items.scan[width] < to;
        __syncthreads();
        if (!more) break;
    }
}

// SparseFrontier: device-wide edge-balanced push. Block b of the
// edge_blocks(a, E + len) blocks (a block walks frontier vertices as well as
// edges) takes edges [b E / B, (b + 1) E / B) of the
// concatenated out-edges of the frontier and finds each edge's source by
// binary search in a scan of the frontier's degrees. A frontier of up to
// sparse_capacity() vertices is scanned by each block in shared memory (one
// pass, no waiting); a larger one once, device-wide, into the work array.
// Slots: one per frontier vertex.
// Dynamic shared memory: 20 * C + 8 * blockDim + 8 * VYRE_SCAN_CHUNKS + 24
// bytes, C = sparse_capacity().
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_sparse(const VyreArgs a) {
    extern __shared__ u64 sparse_smem[];
    const VyreFrontier f = level_frontier(a);
    if (f.stopped) return;
    level_started(a);
    VyreControl* c = a.control;
    const u32 len = f.len;
    const u64 edges = f.edges;
    const u32 capacity = sparse_capacity();
    const u32 parts = edges == 0 ? 0u : edge_blocks(a, edges + len);
    // Every block scans a large frontier's chunks.
    const u32 blocks = level_blocks(len <= capacity || parts == 0 ? parts : gridDim.x);
    if (surplus_block(f, blocks)) return;
    VyreItems items;
    items.scan = sparse_smem;                              // capacity + 1
    items.row = items.scan + capacity + 1;                 // capacity
    u64* tmp = items.row + capacity;                       // blockDim + 1
    u64* bases = tmp + blockDim.x + 1;                     // VYRE_SCAN_CHUNKS + 1
    items.src = (u32*)(bases + VYRE_SCAN_CHUNKS + 1);      // capacity
    const u32 next_depth = a.level + 1;
    u32* cursor = &c->next_len[0];
    u64 examined = 0, out_edges = 0;
    if (len <= capacity) {
        if (blockIdx.x < parts) {
            const u64 total = scan_whole_frontier(a, len, items, tmp);
            const VyrePieces none = {0, nullptr};
            expand_items<true, false>(a, items, len, share_start(total, parts, blockIdx.x),
                                      share_start(total, parts, blockIdx.x + 1), a.queue_out,
                                      cursor, next_depth, none, examined, out_edges);
        }
    } else if (parts != 0) {
        const SparseScan s = sparse_scan_plan(a, len);
        scan_chunks(a, len, s, tmp);
        if (blockIdx.x < parts) {
            expand_scanned(a, len, s, parts, items, tmp, bases, cursor, next_depth, examined,
                           out_edges);
        }
    }
    finish_level(a, blocks, examined, out_edges, 0);
}

// ---- HybridFrontier and the fused kernel ---------------------------------------

// The light edges of this thread's vertex u (fewer than VYRE_LIGHT_DEGREE;
// heavier ones are expanded as pieces), walked by the thread itself. The
// loop runs to the warp's largest light degree so that appends stay
// warp-wide. With EMIT, discovered vertices are cut into pieces for the next
// level. Every thread must call it.
template <bool PRECHECK, bool EMIT>
__device__ void expand_light(const VyreArgs& a, u32 u, u64 start, u64 degree, u32* queue_out,
                             u32* cursor, u32 next_depth, VyrePieces next, u64& examined,
                             u64& out_edges) {
    const u32 mine = degree < VYRE_LIGHT_DEGREE ? (u32)degree : 0u;
    const u32 rounds = warp_max(mine);
    for (u32 k = 0; k < rounds; ++k) {
        bool found = false;
        u32 v = 0;
        u64 found_degree = 0;
        if (k < mine) {
            v = a.out_targets[start + k];
            ++examined;
            found = discover<PRECHECK>(a, v, u, next_depth, out_edges, found_degree);
        }
        warp_append(queue_out, cursor, found, v);
        if (EMIT) warp_append_pieces(a, next, found ? found_degree : 0, v);
    }
}

// HybridFrontier: light vertices per thread; every other vertex is cut into
// pieces of at most VYRE_PIECE_EDGES edges, which the edge_blocks(a, E) blocks
// share evenly once every chunk of the frontier has published its pieces.
// Blocks claim chunks of blockDim frontier vertices by ticket, so those
// waiting for the pieces only wait for running blocks. Slots: one per
// frontier vertex.
// Dynamic shared memory: 20 * blockDim + 8 bytes.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_hybrid(const VyreArgs a) {
    extern __shared__ u64 hybrid_smem[];
    const VyreFrontier f = level_frontier(a);
    if (f.stopped) return;
    level_started(a);
    VyreControl* c = a.control;
    const u32 len = f.len;
    const u64 edges = f.edges;
    const u32 width = blockDim.x;
    VyreItems items;
    items.scan = hybrid_smem;                  // width + 1
    items.row = items.scan + width + 1;        // width
    items.src = (u32*)(items.row + width);     // width
    // A frontier without out-edges has nothing to expand.
    const u32 chunks = edges == 0 ? 0u : (u32)(((u64)len + width - 1) / width);
    const u32 parts = edges == 0 ? 0u : edge_blocks(a, edges);
    // Blocks past both the chunks and the parts would only count themselves in.
    const u32 claimers = chunks < gridDim.x ? chunks : gridDim.x;
    const u32 blocks = level_blocks(parts > claimers ? parts : claimers);
    if (surplus_block(f, blocks)) return;
    const u32 next_depth = a.level + 1;
    u32* cursor = &c->next_len[0];
    const VyrePieces pieces = {0, &c->piece_count[0]};
    const VyrePieces none = {0, nullptr};
    u64 examined = 0, out_edges = 0;
    for (;;) {
        const u32 k = block_claim(&c->work_ticket, chunks);
        if (k >= chunks) break;
        const u64 i = (u64)k * width + threadIdx.x;
        u32 u = 0;
        u64 start = 0, degree = 0;
        if (i < len) {
            u = a.queue_in[i];
            start = a.out_offsets[u];
            degree = a.out_offsets[u + 1] - start;
        }
        warp_append_pieces(a, pieces, degree, u);
        // The pieces are out: blocks waiting for them need not wait for the
        // light edges too.
        block_finished_chunk(&c->work_done);
        expand_light<true, false>(a, u, start, degree, a.queue_out, cursor, next_depth, none,
                                  examined, out_edges);
    }
    if (blockIdx.x < parts && block_wait_for(a, &c->work_done, chunks)) {
        const u32 total = load_volatile(&c->piece_count[0]);
        expand_pieces<true, false>(a, 0, share_start(total, parts, blockIdx.x),
                                   share_start(total, parts, blockIdx.x + 1), items, a.queue_out,
                                   cursor, next_depth, none, examined, out_edges);
    }
    finish_level(a, blocks, examined, out_edges, 0);
}
