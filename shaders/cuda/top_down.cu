// Top-down (queue) levels: WarpSparseFrontier, SparseFrontier,
// HybridFrontier. Each reads the current frontier from queue_in (length in
// control->cur_len), claims undiscovered out-neighbours, appends them to
// queue_out, and ends with finish_level.

// WarpSparseFrontier: one warp per frontier vertex, lanes stride over its
// out-edges. Slots: 32 per frontier vertex.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_warp_sparse(const VyreArgs a) {
    if (command_stopped(a)) return;
    const u32 len = load_volatile(&a.control->cur_len);
    const u32 active = active_blocks((u64)len * 32);
    const u32 next_depth = a.level + 1;
    u32* cursor = &a.control->next_len[0];
    u64 examined = 0, out_edges = 0;
    if (blockIdx.x < active) {
        const u32 warps = blockDim.x >> 5;
        const u64 stride = (u64)active * warps;
        const u32 lane = lane_id();
        for (u64 i = (u64)blockIdx.x * warps + warp_in_block(); i < len; i += stride) {
            const u32 u = a.queue_in[i];
            const u64 end = a.out_offsets[u + 1];
            for (u64 e = a.out_offsets[u] + lane, top = end + lane; e < top; e += 32) {
                bool found = false;
                u32 v = 0;
                if (e < end) {
                    v = a.out_targets[e];
                    ++examined;
                    found = discover<true>(a, v, u, next_depth, out_edges);
                }
                warp_append(a.queue_out, cursor, found, v);
            }
        }
    }
    finish_level(a, examined, out_edges, 0);
}

// SparseFrontier: edge-balanced push. A block takes a chunk of blockDim
// frontier vertices, scans their degrees in shared memory, and its threads
// take the chunk's edges in strides, finding each edge's source by binary
// search in the scan. Slots: one per frontier vertex.
// Dynamic shared memory: 20 * blockDim + 8 bytes.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_sparse(const VyreArgs a) {
    extern __shared__ u64 sparse_smem[];
    if (command_stopped(a)) return;
    const u32 len = load_volatile(&a.control->cur_len);
    const u32 active = active_blocks(len);
    const u32 next_depth = a.level + 1;
    u32* cursor = &a.control->next_len[0];
    const u32 width = blockDim.x;
    const u32 t = threadIdx.x;
    u64* scan = sparse_smem;              // width + 1 entries
    u64* row = scan + width + 1;          // width entries
    u32* source = (u32*)(row + width);    // width entries
    u64 examined = 0, out_edges = 0;
    if (blockIdx.x < active) {
        for (u64 chunk = (u64)blockIdx.x * width; chunk < len; chunk += (u64)active * width) {
            const u64 i = chunk + t;
            u32 u = 0;
            u64 start = 0, degree = 0;
            if (i < len) {
                u = a.queue_in[i];
                start = a.out_offsets[u];
                degree = a.out_offsets[u + 1] - start;
            }
            source[t] = u;
            row[t] = start;
            block_exclusive_scan(degree, scan);
            const u64 total = scan[width];
            for (u64 base = 0; base < total; base += width) {
                const u64 e = base + t;
                bool found = false;
                u32 v = 0;
                if (e < total) {
                    // Largest j with scan[j] <= e: its edge range holds e.
                    u32 lo = 0, hi = width;
                    while (hi - lo > 1) {
                        const u32 mid = (lo + hi) >> 1;
                        if (scan[mid] <= e) lo = mid; else hi = mid;
                    }
                    v = a.out_targets[row[lo] + (e - scan[lo])];
                    ++examined;
                    found = discover<true>(a, v, source[lo], next_depth, out_edges);
                }
                warp_append(a.queue_out, cursor, found, v);
            }
            __syncthreads();
        }
    }
    finish_level(a, examined, out_edges, 0);
}

// Expand frontier vertices queue_in[chunk .. chunk + blockDim) by degree
// class: light ones (< VYRE_LIGHT_DEGREE out-edges) by their own thread,
// medium ones (< blockDim) by one warp each, heavy ones by the whole block.
// Shared by HybridFrontier and the fused kernel. All threads of the block
// call it; lists (heavy, medium: blockDim entries; counts: 2) are shared.
// The queue is read through L2 (__ldcg) because in the fused kernel other
// blocks wrote it during this launch. With `preloaded`, the caller already
// read this thread's entry queue_in[chunk + threadIdx.x] into `entry`.
template <bool PRECHECK>
__device__ void expand_chunk(const VyreArgs& a, const u32* queue_in, u32* queue_out, u32* cursor,
                             u64 chunk, u32 len, u32 next_depth, u32* heavy, u32* medium,
                             u32* counts, u64& examined, u64& out_edges, bool preloaded = false,
                             u32 entry = 0) {
    const u32 t = threadIdx.x;
    const u32 width = blockDim.x;
    if (t == 0) {
        counts[0] = 0;
        counts[1] = 0;
    }
    __syncthreads();
    const u64 i = chunk + t;
    u32 u = 0;
    u64 start = 0, degree = 0;
    if (i < len) {
        u = preloaded ? entry : __ldcg(queue_in + i);
        start = a.out_offsets[u];
        degree = a.out_offsets[u + 1] - start;
    }
    const bool light = degree < VYRE_LIGHT_DEGREE;
    if (!light) {
        if (degree >= width) heavy[atomicAdd(&counts[0], 1u)] = u;
        else medium[atomicAdd(&counts[1], 1u)] = u;
    }
    // Light: lane k of the warp walks its own edges; the loop runs to the
    // warp's largest light degree so that appends stay warp-wide.
    const u32 mine = light ? (u32)degree : 0u;
    const u32 rounds = warp_max(mine);
    for (u32 k = 0; k < rounds; ++k) {
        bool found = false;
        u32 v = 0;
        if (k < mine) {
            v = a.out_targets[start + k];
            ++examined;
            found = discover<PRECHECK>(a, v, u, next_depth, out_edges);
        }
        warp_append(queue_out, cursor, found, v);
    }
    __syncthreads();
    const u32 heavy_count = counts[0];
    const u32 medium_count = counts[1];
    const u32 lane = lane_id();
    // Medium: one warp per vertex.
    for (u32 k = warp_in_block(); k < medium_count; k += width >> 5) {
        const u32 m = medium[k];
        const u64 end = a.out_offsets[m + 1];
        for (u64 e = a.out_offsets[m] + lane, top = end + lane; e < top; e += 32) {
            bool found = false;
            u32 v = 0;
            if (e < end) {
                v = a.out_targets[e];
                ++examined;
                found = discover<PRECHECK>(a, v, m, next_depth, out_edges);
            }
            warp_append(queue_out, cursor, found, v);
        }
    }
    // Heavy: the whole block per vertex.
    for (u32 k = 0; k < heavy_count; ++k) {
        const u32 h = heavy[k];
        const u64 end = a.out_offsets[h + 1];
        for (u64 e = a.out_offsets[h] + t, top = end + t; e < top; e += width) {
            bool found = false;
            u32 v = 0;
            if (e < end) {
                v = a.out_targets[e];
                ++examined;
                found = discover<PRECHECK>(a, v, h, next_depth, out_edges);
            }
            warp_append(queue_out, cursor, found, v);
        }
    }
    __syncthreads();
}

// HybridFrontier: light vertices per thread, heavy ones per block (and
// medium ones per warp). Slots: one per frontier vertex.
// Dynamic shared memory: 8 * blockDim + 8 bytes.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_hybrid(const VyreArgs a) {
    extern __shared__ u32 hybrid_smem[];
    if (command_stopped(a)) return;
    const u32 len = load_volatile(&a.control->cur_len);
    const u32 active = active_blocks(len);
    const u32 width = blockDim.x;
    u32* heavy = hybrid_smem;
    u32* medium = heavy + width;
    u32* counts = medium + width;
    u64 examined = 0, out_edges = 0;
    if (blockIdx.x < active) {
        for (u64 chunk = (u64)blockIdx.x * width; chunk < len; chunk += (u64)active * width) {
            expand_chunk<true>(a, a.queue_in, a.queue_out, &a.control->next_len[0], chunk, len,
                               a.level + 1, heavy, medium, counts, examined, out_edges);
        }
    }
    finish_level(a, examined, out_edges, 0);
}
