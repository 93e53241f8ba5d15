// vyre CUDA kernels: shared types and helpers.
//
// The files of shaders/cuda are joined in this order and compiled as one
// NVRTC program (no #include, so no include paths are needed):
//   common.cuh, search.cu, top_down.cu, bottom_up.cu, fused.cu
//
// Every kernel takes one VyreArgs by value. Its layout is mirrored by
// `KernelArgs` in crates/vyre-cuda/src/args.rs; the static_asserts below and
// the ones there keep the two in step.

typedef unsigned int u32;
typedef unsigned long long u64;

#define VYRE_UNREACHED 0xffffffffu
#define VYRE_FULL_MASK 0xffffffffu
#define VYRE_MAX_BLOCK 1024
#define VYRE_MAX_WARPS (VYRE_MAX_BLOCK / 32)
// Frontier vertices of fewer out-edges than this are expanded by one thread.
#define VYRE_LIGHT_DEGREE 32u

// The 256-byte control block (CONTROL_BYTES). Per-wave kernels count in
// slot 0 of the per-level counters; the fused kernel rotates over all three
// so that one grid barrier per level suffices (see fused.cu). The barrier
// words sit on their own 64-byte lines so spinning blocks do not slow the
// counters down.
struct VyreControl {
    u64 out_edges[3];   // sum of out-degrees of the vertices discovered
    u64 examined[3];    // edges looked at
    u32 next_len[3];    // vertices discovered (the append cursor of the next queue)
    u32 cur_len;        // vertices in the current frontier
    u32 levels_run;     // levels the current command recorded
    u32 stop_epoch;     // == the command's epoch once it must run no more levels
    u32 blocks_done;    // blocks of a per-wave kernel that finished
    u32 conv_cursor;    // append cursor of the bitmap -> queue conversion
    u32 reserved0[12];
    u32 bar_count;      // grid barrier: blocks arrived
    u32 reserved1[15];
    u32 bar_gen;        // grid barrier: generation
    u32 reserved2[15];
};
// The fields add up to exactly 256 bytes, so this assert also rules out
// padding: next_len is at byte 48, cur_len 60, levels_run 64, stop_epoch 68,
// bar_count 128, bar_gen 192 (the offsets args.rs reads).
static_assert(sizeof(VyreControl) == 256, "control block is CONTROL_BYTES");

// One entry of the level history (LEVEL_RECORD_BYTES).
struct VyreLevelRecord {
    u32 level;
    u32 frontier_in;
    u32 frontier_out;
    u32 epoch;          // the command that wrote it
    u64 frontier_out_edges;
    u64 edges_examined;
};
static_assert(sizeof(VyreLevelRecord) == 32, "level record is LEVEL_RECORD_BYTES");

struct VyreArgs {
    const u64* out_offsets;
    const u32* out_targets;
    const u64* in_offsets;   // the out-edges again when the graph is symmetric
    const u32* in_targets;
    u32* depth;
    u32* parent;
    u32* queue_in;
    u32* queue_out;
    u32* bitmap_in;
    u32* bitmap_out;
    VyreControl* control;
    VyreLevelRecord* history;
    u64 band_max_frontier_edges;
    u32 vertex_count;
    u32 level;               // depth of the frontier this launch expands
    u32 history_index;       // history entry of this level within the command
    u32 epoch;               // command number, for the stop flag
    u32 max_levels;          // fused: most levels this launch may run
    u32 aux;                 // seed_sources: number of sources
};
static_assert(sizeof(VyreArgs) == 128, "VyreArgs mirrors KernelArgs");

__device__ __forceinline__ u32 lane_id() { return threadIdx.x & 31u; }
__device__ __forceinline__ u32 warp_in_block() { return threadIdx.x >> 5; }
__device__ __forceinline__ u32 lanes_below() { return (1u << lane_id()) - 1u; }

__device__ __forceinline__ u32 load_volatile(const u32* p) {
    return *(const volatile u32*)p;
}
__device__ __forceinline__ u64 load_volatile(const u64* p) {
    return *(const volatile u64*)p;
}

// Blocks a launch of `slots` work items needs at this block width, at most
// the grid. Blocks at or past this index only take part in the epilogue, and
// work loops stride by this many blocks so no item is skipped.
__device__ __forceinline__ u32 active_blocks(u64 slots) {
    const u64 need = (slots + blockDim.x - 1) / blockDim.x;
    return need < (u64)gridDim.x ? (u32)need : gridDim.x;
}

// Whether an earlier level of this command already stopped the chain.
__device__ __forceinline__ bool command_stopped(const VyreArgs& a) {
    return load_volatile(&a.control->stop_epoch) == a.epoch;
}

__device__ __forceinline__ u32 warp_max(u32 x) {
    for (u32 o = 16; o > 0; o >>= 1) {
        const u32 y = __shfl_xor_sync(VYRE_FULL_MASK, x, o);
        x = y > x ? y : x;
    }
    return x;
}

// Sum of three counters over the block; the totals are valid in thread 0.
// Every thread of the block must call it.
__device__ void block_sum3(u64& a, u64& b, u64& c) {
    __shared__ u64 part[3][VYRE_MAX_WARPS];
    const u32 lane = lane_id();
    const u32 warp = warp_in_block();
    const u32 warps = blockDim.x >> 5;
    for (u32 o = 16; o > 0; o >>= 1) {
        a += __shfl_down_sync(VYRE_FULL_MASK, a, o);
        b += __shfl_down_sync(VYRE_FULL_MASK, b, o);
        c += __shfl_down_sync(VYRE_FULL_MASK, c, o);
    }
    if (lane == 0) {
        part[0][warp] = a;
        part[1][warp] = b;
        part[2][warp] = c;
    }
    __syncthreads();
    if (warp == 0) {
        a = lane < warps ? part[0][lane] : 0;
        b = lane < warps ? part[1][lane] : 0;
        c = lane < warps ? part[2][lane] : 0;
        for (u32 o = 16; o > 0; o >>= 1) {
            a += __shfl_down_sync(VYRE_FULL_MASK, a, o);
            b += __shfl_down_sync(VYRE_FULL_MASK, b, o);
            c += __shfl_down_sync(VYRE_FULL_MASK, c, o);
        }
    }
    __syncthreads();
}

// Exclusive prefix sum of `x` over the block into out[threadIdx.x], and the
// total into out[blockDim.x]. Every thread must call it; `out` is shared.
__device__ void block_exclusive_scan(u64 x, u64* out) {
    __shared__ u64 warp_base[VYRE_MAX_WARPS];
    const u32 lane = lane_id();
    const u32 warp = warp_in_block();
    const u32 warps = blockDim.x >> 5;
    u64 inclusive = x;
    for (u32 o = 1; o < 32; o <<= 1) {
        const u64 y = __shfl_up_sync(VYRE_FULL_MASK, inclusive, o);
        if (lane >= o) inclusive += y;
    }
    if (lane == 31) warp_base[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        const u64 total = lane < warps ? warp_base[lane] : 0;
        u64 running = total;
        for (u32 o = 1; o < 32; o <<= 1) {
            const u64 y = __shfl_up_sync(VYRE_FULL_MASK, running, o);
            if (lane >= o) running += y;
        }
        if (lane < warps) warp_base[lane] = running - total;
        if (lane == 31) out[blockDim.x] = running;
    }
    __syncthreads();
    out[threadIdx.x] = warp_base[warp] + inclusive - x;
    __syncthreads();
}

__device__ __forceinline__ u64 out_degree(const VyreArgs& a, u32 v) {
    return a.out_offsets[v + 1] - a.out_offsets[v];
}

// Top-down discovery of `v` from `from`: claim depth[v] (UNREACHED ->
// next_depth); the winner writes the parent and counts v's out-degree.
// PRECHECK (bandwidth-bound per-wave levels) first reads depth[v] and skips
// the atomic for visited vertices; a stale read can only show UNREACHED, and
// the CAS decides then. Without it (the latency-bound fused kernel) v's row
// offsets are loaded alongside the CAS instead of after it, one memory round
// trip less per level.
template <bool PRECHECK>
__device__ __forceinline__ bool discover(const VyreArgs& a, u32 v, u32 from, u32 next_depth,
                                         u64& out_edges) {
    if (PRECHECK) {
        if (a.depth[v] != VYRE_UNREACHED) return false;
        if (atomicCAS(&a.depth[v], VYRE_UNREACHED, next_depth) != VYRE_UNREACHED) return false;
        a.parent[v] = from;
        out_edges += out_degree(a, v);
        return true;
    }
    const u64 first = a.out_offsets[v];
    const u64 last = a.out_offsets[v + 1];
    if (atomicCAS(&a.depth[v], VYRE_UNREACHED, next_depth) != VYRE_UNREACHED) return false;
    a.parent[v] = from;
    out_edges += last - first;
    return true;
}

// Append the vertices the lanes of this warp discovered to `queue`, one
// atomic per warp. All 32 lanes must call it together.
__device__ __forceinline__ void warp_append(u32* queue, u32* cursor, bool found, u32 v) {
    const u32 mask = __ballot_sync(VYRE_FULL_MASK, found);
    if (mask == 0) return;
    const u32 leader = __ffs(mask) - 1;
    u32 base = 0;
    if (lane_id() == leader) base = atomicAdd(cursor, (u32)__popc(mask));
    base = __shfl_sync(VYRE_FULL_MASK, base, leader);
    if (found) queue[base + __popc(mask & lanes_below())] = v;
}

// Epilogue of every per-wave level kernel; every block calls it once, with
// all threads. Counters are block-reduced and added with one atomic each;
// the last block to finish writes the level record, makes the next frontier
// current, clears the counters, and stops the chain when the next frontier
// is empty or has more out-edges than the band. `discovered` is for kernels
// that do not append to a queue (top-down kernels count through next_len).
__device__ void finish_level(const VyreArgs& a, u64 examined, u64 out_edges, u64 discovered) {
    block_sum3(examined, out_edges, discovered);
    if (threadIdx.x != 0) return;
    VyreControl* c = a.control;
    if (examined) atomicAdd(&c->examined[0], examined);
    if (out_edges) atomicAdd(&c->out_edges[0], out_edges);
    if (discovered) atomicAdd(&c->next_len[0], (u32)discovered);
    __threadfence();
    const u32 done = atomicAdd(&c->blocks_done, 1u);
    if (done != gridDim.x - 1) return;
    __threadfence();
    volatile VyreControl* vc = c;
    const u32 next_len = vc->next_len[0];
    const u64 next_edges = vc->out_edges[0];
    VyreLevelRecord r;
    r.level = a.level;
    r.frontier_in = vc->cur_len;
    r.frontier_out = next_len;
    r.epoch = a.epoch;
    r.frontier_out_edges = next_edges;
    r.edges_examined = vc->examined[0];
    a.history[a.history_index] = r;
    vc->cur_len = next_len;
    vc->next_len[0] = 0;
    vc->out_edges[0] = 0;
    vc->examined[0] = 0;
    vc->blocks_done = 0;
    vc->levels_run = a.history_index + 1;
    if (next_len == 0 || next_edges > a.band_max_frontier_edges) vc->stop_epoch = a.epoch;
}
