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

// What a spinning block does between polls: nothing on the GPU (lowest
// wake-up latency); the CPU emulator (crates/vyre-cuda/emu) yields.
#ifndef VYRE_SPIN_PAUSE
#define VYRE_SPIN_PAUSE()
#endif

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
// and leaves cur_len / levels_run for the host with the counters cleared.
// Dynamic shared memory: 8 * blockDim + 8 bytes (expand_chunk's lists).
extern "C" __global__ void __launch_bounds__(VYRE_FUSED_MAX_BLOCK, 5) vyre_fused(const VyreArgs a) {
    extern __shared__ u32 fused_smem[];
    __shared__ u32 decision[2];
    VyreControl* c = a.control;
    const u32 width = blockDim.x;
    u32* heavy = fused_smem;
    u32* medium = heavy + width;
    u32* counts = medium + width;
    u32* queue_in = a.queue_in;
    u32* queue_out = a.queue_out;
    u32 len = load_volatile(&c->cur_len);
    u32 level = a.level;
    u32 run = 0;
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
        }
        u64 examined = 0, out_edges = 0, unused = 0;
        const u64 first_chunk = (u64)blockIdx.x * width;
        for (u64 chunk = first_chunk; chunk < len; chunk += (u64)gridDim.x * width) {
            expand_chunk<false>(a, queue_in, queue_out, &c->next_len[slot], chunk, len, level + 1,
                                heavy, medium, counts, examined, out_edges,
                                preloaded && chunk == first_chunk, entry);
        }
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
                VyreLevelRecord r;
                r.level = level;
                r.frontier_in = len;
                r.frontier_out = next_len;
                r.epoch = a.epoch;
                r.frontier_out_edges = next_edges;
                r.edges_examined = load_volatile(&c->examined[slot]);
                a.history[run] = r;
            }
            decision[0] = next_len;
            decision[1] = next_len == 0 || run + 1 >= a.max_levels ||
                          next_edges > a.band_max_frontier_edges;
        }
        __syncthreads();
        const u32 next_len = decision[0];
        const bool stop = decision[1] != 0;
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
        vc->levels_run = run;
        for (u32 s = 0; s < 3; ++s) {
            vc->next_len[s] = 0;
            vc->out_edges[s] = 0;
            vc->examined[s] = 0;
        }
    }
}
