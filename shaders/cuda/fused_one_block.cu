// FusedWave in a single block, on a graph without heavy vertices (no vertex
// of VYRE_LIGHT_DEGREE out-edges or more): what the engine launches for the
// smallest frontiers (a chain's, a road network's, the ends of a grid's).
//
// With one block, __syncthreads is the barrier, so a level needs only the
// round trips of its own work. The kernel keeps everything else on chip:
// - the append cursor and the level's counts are shared-memory atomics;
// - the first VYRE_ONE_BLOCK_QUEUE entries of each frontier (vertex and row
//   word, as FusedRows holds them) stay in shared memory, so a level reads
//   its frontier without a global round trip; entries beyond them, and
//   every vertex (the host and later commands read the queue), also go to
//   global memory;
// - a vertex's out-targets are prefetched into L1 when it is discovered, so
//   the next level's first load hits L1.
// A level is then one dependent global round trip: the claim of a target
// (its row loaded beside it).

// Frontier entries of each list held in shared memory (12 B each). The
// CPU emulator builds it smaller, so that its small graphs' frontiers
// spill to global memory too.
#ifndef VYRE_ONE_BLOCK_QUEUE
#define VYRE_ONE_BLOCK_QUEUE 512u
#endif

__device__ void fused_one_block(const VyreArgs& a) {
    extern __shared__ u64 fused_smem[];
    __shared__ u32 list_vertex[2][VYRE_ONE_BLOCK_QUEUE];
    __shared__ u64 list_word[2][VYRE_ONE_BLOCK_QUEUE];
    // The next frontier's append cursor, and its [0] out-edges and [1]
    // edges examined.
    __shared__ u32 cursor;
    __shared__ u64 counts[2];
    const u32 width = blockDim.x;
    const u32 t = threadIdx.x;
    VyreItems items;
    items.scan = fused_smem;             // width + 1
    items.row = items.scan + width + 1;  // width
    items.src = (u32*)(items.row + width);
    const FusedRows rows = {(u64*)a.work, a.vertex_count};
    u32* queue_in = a.queue_in;
    u32* queue_out = a.queue_out;
    u32 len = load_volatile(&a.control->cur_len);
    u32 level = a.level;
    u32 run = 0;
    u64 next_edges = 0;
    if (t == 0) cursor = 0;
    if (t < 2) counts[t] = 0;
    __syncthreads();
    for (;;) {
        const u32 cur = run & 1;
        const u32 next = cur ^ 1;
        const u32 next_depth = level + 1;
        u64 examined = 0, out_edges = 0;
        for (u32 base = 0; base < len; base += width) {
            const u32 i = base + t;
            u32 u = 0;
            u64 start = 0, degree = 0;
            if (i < len) {
                u64 word;
                if (run == 0) {
                    // The launch's first frontier has no row words yet.
                    u = __ldcg(queue_in + i);
                    start = a.out_offsets[u];
                    word = start << 5 | (a.out_offsets[u + 1] - start);
                } else if (i < VYRE_ONE_BLOCK_QUEUE) {
                    u = list_vertex[cur][i];
                    word = list_word[cur][i];
                } else {
                    u = __ldcg(queue_in + i);
                    word = __ldcg(rows.slot(cur, i));
                }
                start = word >> 5;
                degree = word & 31;
            }
            items.src[t] = u;
            items.row[t] = start;
            block_exclusive_scan(degree, items.scan);
            const u64 total = items.scan[width];
            const u32 count = len - base < width ? len - base : width;
            for (u64 e0 = 0; e0 < total; e0 += width) {
                const u64 e = e0 + t;
                u32 v = 0;
                u64 word = 0;
                const bool found = e < total && claim_light_edge(a, items, count, e, next_depth,
                                                                 v, word, examined, out_edges);
                // v's targets, the next level's first load, go into L1.
                if (found && (word & 31) != 0) prefetch_l1(a.out_targets + (word >> 5));
                const u32 mask = __ballot_sync(VYRE_FULL_MASK, found);
                if (mask == 0) continue;  // warp-uniform
                const u32 at = warp_slot(mask, &cursor);
                if (found) {
                    queue_out[at] = v;
                    if (at < VYRE_ONE_BLOCK_QUEUE) {
                        list_vertex[next][at] = v;
                        list_word[next][at] = word;
                    } else {
                        *rows.slot(next, at) = word;
                    }
                }
            }
            // The next pass rewrites the items.
            __syncthreads();
        }
        for (u32 o = 16; o > 0; o >>= 1) {
            examined += __shfl_down_sync(VYRE_FULL_MASK, examined, o);
            out_edges += __shfl_down_sync(VYRE_FULL_MASK, out_edges, o);
        }
        if (lane_id() == 0) {
            if (out_edges) atomicAdd(&counts[0], out_edges);
            if (examined) atomicAdd(&counts[1], examined);
        }
        __syncthreads();
        const u32 next_len = cursor;
        next_edges = counts[0];
        if (t == 0) fused_log_level(a, run, level, len, next_len, next_edges, counts[1]);
        const bool stop = fused_stops(a, run, next_len, next_edges);
        // Every thread has read the counts before they are cleared.
        __syncthreads();
        if (t == 0) cursor = 0;
        if (t < 2) counts[t] = 0;
        len = next_len;
        ++run;
        if (stop) break;
        u32* swap = queue_in;
        queue_in = queue_out;
        queue_out = swap;
        ++level;
        // The clear precedes the next level's first append.
        __syncthreads();
    }
    // The records go to the host's history, and the frontier to the host.
    const u32* from = (const u32*)a.level_log;
    u32* to = (u32*)a.history;
    __syncthreads();
    for (u32 w = t; w < run * 8; w += width) to[w] = from[w];
    if (t == 0) {
        volatile VyreControl* c = a.control;
        c->cur_len = len;
        c->cur_edges = next_edges;
        c->levels_run = run;
        fused_ended(a);
    }
}
