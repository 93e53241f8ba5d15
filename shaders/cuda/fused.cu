// FusedWave: a persistent kernel that runs consecutive top-down levels with
// a device-wide barrier between them.
//
// The barrier is a counter of arrived blocks plus a generation word. It is
// only safe because the backend launches this kernel with
// cuLaunchCooperativeKernel, which refuses grids whose blocks cannot all be
// resident at once; a plain launch of a grid too large to be co-resident
// would spin forever.
//
// One barrier per level: level r counts into counter slot r % 3. After the
// barrier every block reads slot r % 3; during level r + 1 block 0 clears
// slot (r + 2) % 3, which was last read before the previous barrier. The
// queues alternate as in the per-wave kernels.

__device__ __forceinline__ void grid_barrier(VyreControl* c) {
    __syncthreads();
    // One block: __syncthreads already orders every global access of the
    // block, and the fences and atomics below would only add latency.
    if (gridDim.x == 1) return;
    if (threadIdx.x == 0) {
        volatile u32* gen = &c->bar_gen;
        const u32 seen = *gen;
        __threadfence();
        const u32 arrived = atomicAdd(&c->bar_count, 1u);
        if (arrived == gridDim.x - 1) {
            atomicExch(&c->bar_count, 0u);
            __threadfence();
            atomicAdd(&c->bar_gen, 1u);
        } else {
            while (*gen == seen) {
                VYRE_SPIN_PAUSE();
            }
        }
        __threadfence();
    }
    __syncthreads();
}

// Widest block the fused kernel is built for (FUSED_WIDTH in the backend).
// With at least 5 blocks per SM ptxas keeps it in 48 registers without
// spilling.
#define VYRE_FUSED_MAX_BLOCK 256

// Levels while the frontier is non-empty, has at most band out-edges, and
// fewer than max_levels levels ran. Records every level in the history,
// and leaves cur_len / cur_edges / levels_run for the host with the
// counters cleared.
//
// Each level expands its light vertices (fewer than VYRE_LIGHT_DEGREE
// out-edges) per thread in blockDim chunks of the queue, and every other
// vertex as pieces that all blocks share evenly. The pieces of a frontier
// are appended when its vertices are discovered, during the level before,
// so a level needs no second barrier; the launch's first frontier is cut
// into pieces before the first level. Level r reads piece list r % 2 and
// appends the next frontier's to list (r + 1) % 2, counted in slot r % 3 of
// piece_count like next_len.
// Dynamic shared memory: 20 * blockDim + 8 bytes (the pieces' items).
extern "C" __global__ void __launch_bounds__(VYRE_FUSED_MAX_BLOCK, 5) vyre_fused(const VyreArgs a) {
    extern __shared__ u64 fused_smem[];
    __shared__ u32 decision[3];
    VyreControl* c = a.control;
    const u32 width = blockDim.x;
    VyreItems items;
    items.scan = fused_smem;                   // width + 1
    items.row = items.scan + width + 1;        // width
    items.src = (u32*)(items.row + width);     // width
    u32* queue_in = a.queue_in;
    u32* queue_out = a.queue_out;
    u32 len = load_volatile(&c->cur_len);
    u32 level = a.level;
    u32 run = 0;
    const u64 first_chunk = (u64)blockIdx.x * width;
    const u64 chunk_stride = (u64)gridDim.x * width;
    // The first frontier's pieces: list 0, counted in slot 2, where a level
    // before the first would have counted them.
    {
        const VyrePieces first = {0, &c->piece_count[2]};
        for (u64 chunk = first_chunk; chunk < len; chunk += chunk_stride) {
            const u64 i = chunk + threadIdx.x;
            u32 u = 0;
            u64 degree = 0;
            if (i < len) {
                u = __ldcg(queue_in + i);
                degree = out_degree(a, u);
            }
            warp_append_pieces(a, first, degree, u);
        }
    }
    grid_barrier(c);
    if (threadIdx.x == 0) decision[2] = load_volatile(&c->piece_count[2]);
    __syncthreads();
    u32 pieces = decision[2];
    // This thread's entry of the block's first chunk of the next frontier,
    // read while thread 0 finds out how long that frontier is.
    bool preloaded = false;
    u32 entry = 0;
    for (;;) {
        const u32 slot = run % 3;
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            const u32 spare = (run + 1) % 3;
            c->next_len[spare] = 0;
            c->out_edges[spare] = 0;
            c->examined[spare] = 0;
            c->piece_count[spare] = 0;
        }
        const VyrePieces next = {(run + 1) & 1, &c->piece_count[slot]};
        u32* cursor = &c->next_len[slot];
        const u32 next_depth = level + 1;
        u64 examined = 0, out_edges = 0, unused = 0;
        for (u64 chunk = first_chunk; chunk < len; chunk += chunk_stride) {
            const u64 i = chunk + threadIdx.x;
            u32 u = 0;
            u64 start = 0, degree = 0;
            if (i < len) {
                u = preloaded && chunk == first_chunk ? entry : __ldcg(queue_in + i);
                start = a.out_offsets[u];
                degree = a.out_offsets[u + 1] - start;
            }
            expand_light<false, true>(a, u, start, degree, queue_out, cursor, next_depth, next,
                                      examined, out_edges);
        }
        expand_pieces<false, true>(a, run & 1, share_start(pieces, gridDim.x, blockIdx.x),
                                   share_start(pieces, gridDim.x, blockIdx.x + 1), items,
                                   queue_out, cursor, next_depth, next, examined, out_edges);
        block_sum3(examined, out_edges, unused);
        if (threadIdx.x == 0) {
            if (examined) atomicAdd(&c->examined[slot], examined);
            if (out_edges) atomicAdd(&c->out_edges[slot], out_edges);
        }
        grid_barrier(c);
        // Speculative: the entry is used only if it lies below the next
        // frontier's length; queue_out is not written again before then.
        const u64 ahead = first_chunk + threadIdx.x;
        preloaded = ahead < a.vertex_count;
        if (preloaded) entry = __ldcg(queue_out + ahead);
        if (threadIdx.x == 0) {
            const u32 next_len = load_volatile(&c->next_len[slot]);
            const u64 next_edges = load_volatile(&c->out_edges[slot]);
            if (blockIdx.x == 0) {
                write_record(&a.history[run], level, len, next_len, next_edges,
                             load_volatile(&c->examined[slot]), a.epoch, false);
            }
            decision[0] = next_len;
            decision[1] = next_len == 0 || run + 1 >= a.max_levels ||
                          next_edges > a.band_max_frontier_edges;
            decision[2] = load_volatile(&c->piece_count[slot]);
        }
        __syncthreads();
        const u32 next_len = decision[0];
        const bool stop = decision[1] != 0;
        pieces = decision[2];
        ++run;
        if (stop) break;
        u32* swap = queue_in;
        queue_in = queue_out;
        queue_out = swap;
        len = next_len;
        ++level;
        // decision[] is rewritten only after the next level's barrier, which
        // every thread of this block passes after reading it.
    }
    // No block may still be reading the counters when block 0 clears them.
    grid_barrier(c);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        volatile VyreControl* vc = c;
        const u32 last = (run - 1) % 3;
        vc->cur_len = vc->next_len[last];
        vc->cur_edges = vc->out_edges[last];
        vc->levels_run = run;
        for (u32 s = 0; s < 3; ++s) {
            vc->next_len[s] = 0;
            vc->out_edges[s] = 0;
            vc->examined[s] = 0;
            vc->piece_count[s] = 0;
        }
    }
}
