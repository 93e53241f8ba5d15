// Bottom-up (bitmap) levels: DenseFrontier and BlockDenseFrontier. Each
// unvisited vertex scans its in-edges for a parent whose bit is set in
// bitmap_in and stops at the first; discovered vertices get depth, parent
// and their bit in bitmap_out. Both write every word of bitmap_out whole, so
// it needs no clearing between levels.

__device__ __forceinline__ bool in_frontier(const VyreArgs& a, u32 u) {
    return (__ldg(&a.bitmap_in[u >> 5]) >> (u & 31u)) & 1u;
}

// Look for a parent of the unvisited vertex v among its in-edges; on success
// v is discovered at next_depth.
__device__ __forceinline__ bool find_parent(const VyreArgs& a, u32 v, u32 next_depth,
                                            u64& examined, u64& out_edges) {
    const u64 end = a.in_offsets[v + 1];
    for (u64 e = a.in_offsets[v]; e < end; ++e) {
        const u32 u = a.in_targets[e];
        ++examined;
        if (in_frontier(a, u)) {
            a.depth[v] = next_depth;
            a.parent[v] = u;
            out_edges += out_degree(a, v);
            return true;
        }
    }
    return false;
}

// DenseFrontier: one thread per vertex; a warp owns one bitmap word (32
// vertices) at a time and writes it with a ballot. Slots: one per vertex.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_dense(const VyreArgs a) {
    if (command_stopped(a)) return;
    const u32 n = a.vertex_count;
    const u64 words = ((u64)n + 31) / 32;
    const u32 active = active_blocks(n);
    const u32 next_depth = a.level + 1;
    u64 examined = 0, out_edges = 0, discovered = 0;
    if (blockIdx.x < active) {
        const u32 warps = blockDim.x >> 5;
        const u64 stride = (u64)active * warps;
        const u32 lane = lane_id();
        for (u64 w = (u64)blockIdx.x * warps + warp_in_block(); w < words; w += stride) {
            const u64 v = w * 32 + lane;
            bool found = false;
            if (v < n && a.depth[v] == VYRE_UNREACHED) {
                found = find_parent(a, (u32)v, next_depth, examined, out_edges);
            }
            const u32 word = __ballot_sync(VYRE_FULL_MASK, found);
            if (lane == 0) {
                a.bitmap_out[w] = word;
                discovered += __popc(word);
            }
        }
    }
    finish_level(a, examined, out_edges, discovered);
}

// Vertices BlockDenseFrontier gathers per round before scanning them; the
// compaction list holds this many chunks of blockDim vertices.
#define VYRE_TILE_ROUND_CHUNKS 4u

// BlockDenseFrontier: a block owns a tile of blockDim bitmap words (32 *
// blockDim vertices). It compacts the tile's unvisited vertices into shared
// memory, one thread per compacted vertex scans its in-edges, the tile's
// next-frontier words are assembled in shared memory, and written whole.
// Slots: one per bitmap word.
// Dynamic shared memory: 4 * blockDim * (1 + VYRE_TILE_ROUND_CHUNKS) + 16 bytes.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_block_dense(const VyreArgs a) {
    extern __shared__ u32 tile_smem[];
    if (command_stopped(a)) return;
    const u32 n = a.vertex_count;
    const u64 words = ((u64)n + 31) / 32;
    const u32 active = active_blocks(words);
    const u32 next_depth = a.level + 1;
    const u32 width = blockDim.x;
    const u32 t = threadIdx.x;
    u32* next_words = tile_smem;                                 // width entries
    u32* pending = next_words + width;                           // width * chunks entries
    u32* pending_count = pending + width * VYRE_TILE_ROUND_CHUNKS;
    u64 examined = 0, out_edges = 0, discovered = 0;
    if (blockIdx.x < active) {
        for (u64 tile = blockIdx.x; tile * width < words; tile += active) {
            const u64 first_word = tile * width;
            const u64 first_vertex = first_word * 32;
            next_words[t] = 0;
            if (t == 0) *pending_count = 0;
            __syncthreads();
            for (u32 round = 0; round < 32; round += VYRE_TILE_ROUND_CHUNKS) {
                for (u32 k = round; k < round + VYRE_TILE_ROUND_CHUNKS; ++k) {
                    const u64 v = first_vertex + (u64)k * width + t;
                    const bool unvisited = v < n && a.depth[v] == VYRE_UNREACHED;
                    const u32 mask = __ballot_sync(VYRE_FULL_MASK, unvisited);
                    if (mask != 0) {
                        const u32 leader = __ffs(mask) - 1;
                        u32 slot = 0;
                        if (lane_id() == leader) slot = atomicAdd(pending_count, (u32)__popc(mask));
                        slot = __shfl_sync(VYRE_FULL_MASK, slot, leader);
                        if (unvisited) pending[slot + __popc(mask & lanes_below())] = (u32)v;
                    }
                }
                __syncthreads();
                const u32 count = *pending_count;
                for (u32 j = t; j < count; j += width) {
                    const u32 v = pending[j];
                    if (find_parent(a, v, next_depth, examined, out_edges)) {
                        ++discovered;
                        atomicOr(&next_words[(u32)((v - first_vertex) >> 5)], 1u << (v & 31u));
                    }
                }
                __syncthreads();
                if (t == 0) *pending_count = 0;
                __syncthreads();
            }
            if (first_word + t < words) a.bitmap_out[first_word + t] = next_words[t];
            __syncthreads();
        }
    }
    finish_level(a, examined, out_edges, discovered);
}
