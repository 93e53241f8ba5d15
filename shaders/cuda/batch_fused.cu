// FusedWave of a batch pass: a persistent cooperative kernel that runs
// consecutive push levels (batch_push_run, batch.cu) with a grid barrier
// between them, under the single search's rules (fused.cu): level r counts
// into counter slot r % 3, block 0 clears the spare slot, records stay in
// `level_log` until the launch ends, and fused_exit hands the frontier back.
// The queues and the word arrays alternate by level. The frontier is dealt
// out in runs of 32 vertices, one per warp, over the whole grid.

// max_levels 0 runs nothing.
extern "C" __global__ void __launch_bounds__(VYRE_FUSED_MAX_BLOCK, 5) vyre_batch_fused(const VyreArgs a) {
    __shared__ u32 found[VYRE_LANES];
    // [0] next_len, [1] stop.
    __shared__ u32 decision[2];
    if (a.max_levels == 0) return;
    VyreControl* c = a.control;
    const u32 t = threadIdx.x;
    const u64 warps = (u64)gridDim.x * (blockDim.x >> 5);
    const u64 first_warp = (u64)blockIdx.x * (blockDim.x >> 5) + warp_in_block();
    u32* queue_in = a.queue_in;
    u32* queue_out = a.queue_out;
    BatchWords words = {a.words_in, a.words_out};
    u32 len = load_volatile(&c->cur_len);
    u32 level = a.level;
    u32 run = 0;
    u32 next_len = 0;
    u64 next_edges = 0;
    lane_counts_clear(found);
    for (;;) {
        const u32 slot = run % 3;
        if (blockIdx.x == 0 && t == 0) {
            const u32 spare = (run + 1) % 3;
            c->next_len[spare] = 0;
            c->out_edges[spare] = 0;
            c->examined[spare] = 0;
        }
        u64 examined = 0, out_edges = 0, unused = 0;
        for (u64 w = first_warp; w * 32 < len; w += warps) {
            batch_push_run<false>(a, words, found, queue_in, w * 32, len, queue_out, &c->next_len[slot],
                           level + 1, examined, out_edges);
        }
        lane_counts_flush(a, found, run);
        block_sum3(examined, out_edges, unused);
        if (t == 0) {
            if (examined) atomicAdd(&c->examined[slot], examined);
            if (out_edges) atomicAdd(&c->out_edges[slot], out_edges);
        }
        if (!grid_barrier(a)) return;  // aborted: the host reads nothing of it
        if (t == 0) {
            fused_read_level(a, run, level, len, slot, next_len, next_edges);
            decision[0] = next_len;
            decision[1] = run + 1 >= a.max_levels || ends_command(a, next_len, next_edges);
        }
        __syncthreads();
        const bool stop = decision[1] != 0;
        len = decision[0];
        ++run;
        // decision[] is rewritten only after the next level's barrier,
        // which every thread of this block passes after reading it.
        if (stop) break;
        u32* swap = queue_in;
        queue_in = queue_out;
        queue_out = swap;
        words = BatchWords{words.out, words.in};
        ++level;
    }
    __syncthreads();
    fused_exit(a, run, next_len, next_edges, gridDim.x);
}
