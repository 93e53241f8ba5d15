// Search set-up and frontier conversions. Grids here are sized by the
// backend; every loop strides over the whole grid.

// An empty launch: what the launch-overhead calibration times.
extern "C" __global__ void vyre_noop(const VyreArgs a) {}

__device__ __forceinline__ u64 global_thread() {
    return (u64)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ u64 grid_threads() {
    return (u64)gridDim.x * blockDim.x;
}

// Every vertex unreached, with no parent, and both frontier bitmaps
// (bitmap_in and bitmap_out) zero: while a search's frontier is a queue,
// both bitmaps are, so converting it into one needs no clear.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_init_search(const VyreArgs a) {
    for (u64 v = global_thread(); v < a.vertex_count; v += grid_threads()) {
        a.depth[v] = VYRE_UNREACHED;
        a.parent[v] = VYRE_UNREACHED;
    }
    const u64 words = ((u64)a.vertex_count + 31) / 32;
    for (u64 w = global_thread(); w < words; w += grid_threads()) {
        a.bitmap_in[w] = 0;
        a.bitmap_out[w] = 0;
    }
}

// The `aux` sources already copied into queue_out become depth 0, their own
// parents, and the current frontier (with its out-edges in cur_edges). Runs
// after vyre_init_search and after the control block was zeroed.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_seed_sources(const VyreArgs a) {
    u64 edges = 0, unused_a = 0, unused_b = 0;
    for (u64 i = global_thread(); i < a.aux; i += grid_threads()) {
        const u32 v = a.queue_out[i];
        a.depth[v] = 0;
        a.parent[v] = v;
        edges += out_degree(a, v);
    }
    block_sum3(edges, unused_a, unused_b);
    if (threadIdx.x == 0 && edges != 0) atomicAdd(&a.control->cur_edges, edges);
    if (global_thread() == 0) a.control->cur_len = a.aux;
}

// Set the bit of every queued vertex in bitmap_out, which is zero: both
// bitmaps are while the frontier is a queue (vyre_init_search, and
// vyre_bitmap_to_queue, which clears them).
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_queue_to_bitmap(const VyreArgs a) {
    conversion_started(a);
    const u32 len = load_volatile(&a.control->cur_len);
    for (u64 i = global_thread(); i < len; i += grid_threads()) {
        const u32 v = a.queue_in[i];
        atomicOr(&a.bitmap_out[v >> 5], 1u << (v & 31u));
    }
}

// Epilogue of a conversion to the queue form (appends counted in
// conv_cursor); every block calls it once, with all threads. The last block
// makes the count the current frontier's length.
__device__ void conversion_done(const VyreArgs& a) {
    __syncthreads();
    if (threadIdx.x != 0) return;
    VyreControl* c = a.control;
    __threadfence();
    const u32 done = atomicAdd(&c->blocks_done, 1u);
    if (done != gridDim.x - 1) return;
    __threadfence();
    volatile VyreControl* vc = c;
    vc->cur_len = vc->conv_cursor;
    vc->conv_cursor = 0;
    vc->blocks_done = 0;
}

// Write the vertices whose bit is set in bitmap_in to queue_out (one thread
// per bitmap word, one atomic per warp), clearing bitmap_in as it goes and
// bitmap_out (the other bitmap, which an earlier bitmap level read) with
// it: the frontier is a queue again, so both bitmaps are zero. The last
// block makes the count the current frontier length.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_bitmap_to_queue(const VyreArgs a) {
    conversion_started(a);
    const u64 words = ((u64)a.vertex_count + 31) / 32;
    const u32 lane = lane_id();
    // Warp-uniform loop: every lane of a warp runs the same iterations.
    for (u64 base = global_thread() - lane; base < words; base += grid_threads()) {
        const u64 w = base + lane;
        u32 bits = 0;
        if (w < words) {
            bits = a.bitmap_in[w];
            if (bits != 0) a.bitmap_in[w] = 0;
            a.bitmap_out[w] = 0;
        }
        const u32 count = __popc(bits);
        u32 inclusive = count;
        for (u32 o = 1; o < 32; o <<= 1) {
            const u32 y = __shfl_up_sync(VYRE_FULL_MASK, inclusive, o);
            if (lane >= o) inclusive += y;
        }
        const u32 total = __shfl_sync(VYRE_FULL_MASK, inclusive, 31);
        u32 start = 0;
        if (lane == 0 && total != 0) start = atomicAdd(&a.control->conv_cursor, total);
        start = __shfl_sync(VYRE_FULL_MASK, start, 0) + inclusive - count;
        while (bits != 0) {
            const u32 b = __ffs(bits) - 1;
            a.queue_out[start++] = (u32)(w * 32 + b);
            bits &= bits - 1;
        }
    }
    conversion_done(a);
}
