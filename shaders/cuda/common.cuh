// vyre CUDA kernels: shared types and helpers.
//
// The files of shaders/cuda are joined in this order and compiled as one
// NVRTC program (no #include, so no include paths are needed):
//   common.cuh, search.cu, top_down.cu, bottom_up.cu, fused.cu, batch.cu,
//   batch_fused.cu, ranks.cu
//
// Every kernel takes one VyreArgs by value (the rank kernels of ranks.cu
// one VyreRankArgs). Their layouts, and that of VyreLevelRecord, are
// mirrored by crates/vyre-cuda/src/args.rs, which compiles a static_assert
// of every field's offset right after this file.

typedef unsigned int u32;
typedef unsigned long long u64;

#define VYRE_UNREACHED 0xffffffffu
#define VYRE_FULL_MASK 0xffffffffu
#define VYRE_MAX_BLOCK 1024
#define VYRE_MAX_WARPS (VYRE_MAX_BLOCK / 32)
// Frontier vertices of fewer out-edges than this are expanded by one
// thread; the others are cut into pieces (HybridFrontier, FusedWave).
#define VYRE_LIGHT_DEGREE 32u
// Most edges of one piece: WORK_PIECE_EDGES of the layout (vyre-driver's
// layout.rs), which sizes the work array for at most n + m / 1024 pieces.
#define VYRE_PIECE_EDGES 1024u
// SparseFrontier scans frontiers of up to this many vertices per block in
// shared memory (min(4 * blockDim, 1024)); larger ones are scanned once
// device-wide in at most VYRE_SCAN_CHUNKS chunks of the work array.
#define VYRE_SMALL_FRONTIER_MAX 1024u
#define VYRE_SCAN_CHUNKS 256u

// The 256-byte control block (CONTROL_BYTES). Per-wave kernels count in
// slot 0 of the per-level counters; the fused kernel rotates over all three
// so that one grid barrier per level suffices (see fused.cu). The barrier
// word sits on its own 64-byte line so spinning blocks do not slow the
// counters down. Every kernel leaves the counters (everything but cur_len,
// cur_edges, levels_run, stop_epoch and level_start_ns) zero when it
// finishes; conv_start_ns is zero again once the level or fused launch
// after its conversion finished.
struct VyreControl {
    u64 out_edges[3];   // sum of out-degrees of the vertices discovered
    u64 examined[3];    // edges looked at
    u32 next_len[3];    // vertices discovered (the append cursor of the next queue)
    u32 cur_len;        // vertices in the current frontier
    u32 levels_run;     // levels the current command recorded
    u32 stop_epoch;     // == the command's epoch once it must run no more levels
    u32 blocks_done;    // blocks of a kernel that finished (per-wave) or left (fused)
    u32 conv_cursor;    // append cursor of the bitmap -> queue conversion
    u64 cur_edges;      // out-edges of the current frontier
    u32 work_ticket;    // chunks of this level's frontier claimed by blocks
    u32 work_done;      // chunks of this level's frontier finished
    u32 piece_count[3]; // pieces in the work array (fused: rotating like next_len)
    u32 reserved0[5];
    u32 bar_count;      // grid barrier: arrivals, top bit the phase (fused.cu)
    u32 reserved1[17];
    u64 level_start_ns; // when the running per-wave level's block 0 started (globaltimer)
    u64 conv_start_ns;  // when a self-timed command's conversion started; 0 when none ran
    u64 closed_level;   // the last per-wave level closed: epoch << 32 | (history_index + 1)
    u32 reserved2[8];
};
// The fields add up to exactly 256 bytes, so this assert also rules out
// padding: next_len is at byte 48, cur_len 60, levels_run 64, stop_epoch 68,
// cur_edges 80, work_ticket 88, piece_count 96, bar_count 128, level_start_ns 200,
// conv_start_ns 208, closed_level 216.
static_assert(sizeof(VyreControl) == 256, "control block is CONTROL_BYTES");

// One entry of the level history (LEVEL_RECORD_BYTES). Per-wave kernels
// write it into pinned host memory mapped into the device (`history`): the
// host reads a chain's record as soon as its epoch shows, so write_record
// stores the epoch last. The fused kernel keeps its records in device memory
// (`level_log`) while it runs and copies them to `history` as it exits.
struct VyreLevelRecord {
    u32 level;
    u32 frontier_in;
    u32 frontier_out;
    u32 epoch;          // the command that wrote it
    u64 frontier_out_edges;
    u64 edges_examined;
};

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
    VyreLevelRecord* history;    // mapped host memory
    VyreLevelRecord* level_log;  // device memory, as many entries as history
    u32* work;               // DeviceLayout::work_bytes: scans and pieces
    const u32* abort_flag;   // mapped host memory: non-zero once the host gave up waiting
    u64 band_max_frontier_edges;
    u64 band_max_frontier_vertices;  // a u32 count
    u64 work_words;          // u32 words of `work`
    u32 vertex_count;
    u32 level;               // depth of the frontier this launch expands
    u32 history_index;       // history entry of this level within the command
    u32 epoch;               // command number, for the stop flag
    u32 max_levels;          // levels of the command (fused: most this launch may run; 0: none)
    u32 aux;                 // seed_sources: number of sources
    u32 max_out_degree;      // largest out-degree of the graph (saturating)
    u32 edges_per_lane;      // edge-balanced levels: edges per thread (the engine's rule); 0: none
    // A batch pass (batch.cu); null and zero for a single search.
    u64* seen;               // per vertex: the lanes that have reached it
    u64* words_in;           // per vertex: its lanes in the frontier this level expands
    u64* words_out;          // per vertex: its lanes in the next frontier
    u32* lane_counts;        // VYRE_LANES counters per level of the command: each lane's discoveries
    u32* lane_depths;        // vertex-major, `lanes` per vertex; null when not kept
    u64 lane_mask;           // the lanes in use
    u32 lanes;               // lanes of the pass (1 to 64)
    u32 in_edge_end;         // vertices from here on have no in-edges (bottom-up skips them)
    // Mapped host memory, two entries per history entry: when each per-wave
    // level started and ended (globaltimer ns), written by finish_level, or
    // for a fused launch when the launch did (entry 0 only); null for
    // commands the host times with events.
    u64* level_times;
};

// The argument block of the rank kernels (ranks.cu), mirrored by
// crates/vyre-cuda/src/args.rs like VyreArgs.
// Entries of VyreRankArgs::counts: the level's counts, which the ranks
// all-reduce, then the current frontier's length.
#define VYRE_RANK_FOUND 0     // owned vertices discovered (the next queue's append cursor)
#define VYRE_RANK_EDGES 1     // their out-edges
#define VYRE_RANK_EXAMINED 2  // edges looked at
#define VYRE_RANK_PIECES 3    // pieces in `work` this level (a u32 cursor in the low word)
#define VYRE_RANK_FRONTIER 4  // owned vertices in the current frontier (queue_in)

struct VyreRankArgs {
    const u64* out_offsets;   // owned rows, by local index v - range_start
    const u32* out_targets;   // global ids
    const u64* in_offsets;    // in-edge rows (the out-edge rows when symmetric)
    const u32* in_targets;
    u32* depth;               // owned vertices
    u32* parent;
    const u32* queue_in;      // the owned frontier, global ids
    u32* queue_out;           // owned discoveries of this level
    u64* counts;              // VYRE_RANK_*
    u32* sent;                // one bit per vertex of the graph: queued for its owner this level
    u32* outbox;              // (vertex, parent) pairs, destination d's from outbox_start[d]
    u32* outbox_len;          // pairs queued per destination
    const u64* outbox_start;  // ranks + 1 word offsets into outbox
    const u32* starts;        // ranks + 1 range starts (the partition)
    const u32* pairs;         // pairs other ranks sent this one
    const u32* bitmap;        // the whole frontier, one bit per vertex (pull)
    u32* block;               // this rank's frontier words (zeroed by the host)
    u32* work;                // the frontier's pieces (list 0), by local vertex index
    u64 pair_count;           // pairs in `pairs`
    u64 work_words;           // u32 words of `work`
    u32 range_start;
    u32 range_end;
    u32 ranks;
    u32 level;                // depth of the frontier; discoveries get level + 1
};

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
// the grid. Blocks at or past this index only take part in the epilogue (in
// queue levels not even that: see level_blocks), and work loops stride by
// this many blocks so no item is skipped.
__device__ __forceinline__ u32 active_blocks(u64 slots) {
    const u64 need = (slots + blockDim.x - 1) / blockDim.x;
    return need < (u64)gridDim.x ? (u32)need : gridDim.x;
}

// Blocks an edge-balanced level over `edges` edges uses: enough for
// a.edges_per_lane edges per thread (the engine's rule, from the command),
// at most the grid; the whole grid when the command gives no such rule.
__device__ __forceinline__ u32 edge_blocks(const VyreArgs& a, u64 edges) {
    if (a.edges_per_lane == 0) return gridDim.x;
    const u64 per = (u64)a.edges_per_lane * blockDim.x;
    const u64 need = (edges + per - 1) / per;
    return need < (u64)gridDim.x ? (u32)need : gridDim.x;
}

// Start of part `i` when `total` items are cut into `parts` parts whose
// sizes differ by at most one.
__device__ __forceinline__ u64 share_start(u64 total, u32 parts, u32 i) {
    const u64 q = total / parts, r = total % parts;
    return q * i + (i < r ? (u64)i : r);
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

__device__ __forceinline__ u32 warp_inclusive_sum(u32 x) {
    const u32 lane = lane_id();
    for (u32 o = 1; o < 32; o <<= 1) {
        const u32 y = __shfl_up_sync(VYRE_FULL_MASK, x, o);
        if (lane >= o) x += y;
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

// What a spinning thread does between polls: nothing on the GPU (lowest
// wake-up latency); the CPU emulator (crates/vyre-cuda/emu) yields.
#ifndef VYRE_SPIN_PAUSE
#define VYRE_SPIN_PAUSE()
#endif

// Device-scope orderings for the fused kernel's grid barrier: a strong
// load that does not touch L1 and orders nothing (what a spinning thread
// polls: an acquire load would invalidate its SM's L1 at every poll, under
// the blocks still working there), the acquire fence that follows the last
// poll, and an add with acquire and release semantics. Also a pause of about
// `ns` nanoseconds between polls, an L1 prefetch, and the system-scope load
// that reads the abort word the host writes. The CPU emulator defines its
// own (VYRE_HOST_ORDERING).
#ifndef VYRE_HOST_ORDERING
// A relaxed load at `scope` ("gpu", or "sys" for what the host writes into
// mapped host memory).
#if __CUDA_ARCH__ >= 700
#define VYRE_RELAXED_LOAD(name, scope)                                    \
    __device__ __forceinline__ u32 name(const u32* p) {                   \
        u32 v;                                                            \
        asm volatile("ld.relaxed." scope ".global.u32 %0, [%1];"          \
                     : "=r"(v)                                            \
                     : "l"(__cvta_generic_to_global(p))                   \
                     : "memory");                                         \
        return v;                                                         \
    }
#else
#define VYRE_RELAXED_LOAD(name, scope) \
    __device__ __forceinline__ u32 name(const u32* p) { return *(const volatile u32*)p; }
#endif
VYRE_RELAXED_LOAD(load_relaxed, "gpu")
VYRE_RELAXED_LOAD(load_system, "sys")
// The same for the 64-bit words of fused_local.cu's barrier slots, and the
// relaxed store that fills them: each word carries its level's tag, so one
// needs no ordering with another.
__device__ __forceinline__ u64 load_relaxed_u64(const u64* p) {
#if __CUDA_ARCH__ >= 700
    u64 v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];"
                 : "=l"(v)
                 : "l"(__cvta_generic_to_global(p))
                 : "memory");
    return v;
#else
    return *(const volatile u64*)p;
#endif
}
__device__ __forceinline__ void store_relaxed_u64(u64* p, u64 v) {
#if __CUDA_ARCH__ >= 700
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;"
                 :
                 : "l"(__cvta_generic_to_global(p)), "l"(v)
                 : "memory");
#else
    *(volatile u64*)p = v;
#endif
}
__device__ __forceinline__ void fence_acquire() {
#if __CUDA_ARCH__ >= 700
    asm volatile("fence.acq_rel.gpu;" : : : "memory");
#else
    __threadfence();
#endif
}
__device__ __forceinline__ u32 add_acq_rel(u32* p, u32 x) {
    u32 old;
#if __CUDA_ARCH__ >= 700
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;"
                 : "=r"(old)
                 : "l"(__cvta_generic_to_global(p)), "r"(x)
                 : "memory");
#else
    __threadfence();
    old = atomicAdd(p, x);
    __threadfence();
#endif
    return old;
}
__device__ __forceinline__ void spin_pause_ns(u32 ns) {
#if __CUDA_ARCH__ >= 700
    __nanosleep(ns);
#endif
}
// The device's nanosecond clock, the same on every SM.
__device__ __forceinline__ u64 globaltimer_ns() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
// Start bringing the line holding *p into this SM's L1 without waiting.
__device__ __forceinline__ void prefetch_l1(const void* p) {
    asm volatile("prefetch.global.L1 [%0];" : : "l"(__cvta_generic_to_global(p)));
}
__device__ __forceinline__ void prefetch_l2(const void* p) {
    asm volatile("prefetch.global.L2 [%0];" : : "l"(__cvta_generic_to_global(p)));
}
#endif

// Polls of a spinning thread between two reads of the abort word: the word
// lies in host memory, a round trip over the bus, so a waiting thread reads
// it about once a millisecond.
#define VYRE_POLLS_PER_ABORT_CHECK 1024u

// Whether the host gave up waiting for this command (its deadline passed):
// a thread that waits for other blocks stops waiting and its kernel leaves.
// `polls` counts this thread's polls; only every VYRE_POLLS_PER_ABORT_CHECK-th
// reads the word.
__device__ __forceinline__ bool abort_requested(const VyreArgs& a, u32& polls) {
    return (++polls % VYRE_POLLS_PER_ABORT_CHECK) == 0 && load_system(a.abort_flag) != 0;
}

// ---- work shared between the blocks of one launch -------------------------
//
// Per-wave kernels cannot wait for blocks that have not started (a grid may
// be larger than what is resident). So work that later work depends on is
// handed out by ticket: a block claims chunks until none are left, and only
// then waits, for chunks that running blocks hold.

// Claim the next of `limit` chunks for the whole block; `limit` or more when
// none are left. Every thread must call it.
__device__ u32 block_claim(u32* ticket, u32 limit) {
    __shared__ u32 claimed;
    if (threadIdx.x == 0) {
        // Blocks that arrive after the last claim read instead of adding.
        claimed = load_volatile(ticket) < limit ? atomicAdd(ticket, 1u) : limit;
    }
    __syncthreads();
    const u32 c = claimed;
    __syncthreads();
    return c;
}

// Publish this block's writes, then count one finished chunk. Every thread
// must call it.
__device__ void block_finished_chunk(u32* done) {
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(done, 1u);
}

// Wait until `*done` reaches `target` (chunks held by running blocks), then
// make their writes visible to this block. Every thread must call it; data
// the chunks wrote must then be read through L2 (__ldcg). False (for every
// thread) when the host aborted the command instead: the caller skips the
// work that needed the chunks.
__device__ bool block_wait_for(const VyreArgs& a, const u32* done, u32 target) {
    bool aborted = false;
    if (threadIdx.x == 0) {
        u32 polls = 0;
        while (load_volatile(done) < target) {
            if (abort_requested(a, polls)) {
                aborted = true;
                break;
            }
            VYRE_SPIN_PAUSE();
        }
        __threadfence();
    }
    return __syncthreads_count(aborted) == 0;
}

__device__ __forceinline__ u64 out_degree(const VyreArgs& a, u32 v) {
    return a.out_offsets[v + 1] - a.out_offsets[v];
}

// Top-down discovery of `v` from `from`: claim depth[v] (UNREACHED ->
// next_depth); the winner writes the parent, and counts and returns v's
// out-degree. PRECHECK (bandwidth-bound per-wave levels) first reads
// depth[v] and skips the atomic for visited vertices; a stale read can only
// show UNREACHED, and the CAS decides then. Without it (the latency-bound
// fused kernel) v's row offsets are loaded alongside the CAS instead of
// after it, one memory round trip less per level.
template <bool PRECHECK>
__device__ __forceinline__ bool discover(const VyreArgs& a, u32 v, u32 from, u32 next_depth,
                                         u64& out_edges, u64& degree) {
    if (PRECHECK) {
        if (a.depth[v] != VYRE_UNREACHED) return false;
        if (atomicCAS(&a.depth[v], VYRE_UNREACHED, next_depth) != VYRE_UNREACHED) return false;
        a.parent[v] = from;
        degree = out_degree(a, v);
        out_edges += degree;
        return true;
    }
    const u64 first = a.out_offsets[v];
    const u64 last = a.out_offsets[v + 1];
    if (atomicCAS(&a.depth[v], VYRE_UNREACHED, next_depth) != VYRE_UNREACHED) return false;
    a.parent[v] = from;
    degree = last - first;
    out_edges += degree;
    return true;
}

// Positions for the lanes of this warp that found a vertex (`mask`, the
// warp's ballot of them, not zero): one atomic add on `cursor` (global or
// shared memory) by the first of them. Every lane gets its own position
// (meaningful only where it found one). All 32 lanes must call it together.
__device__ __forceinline__ u32 warp_slot(u32 mask, u32* cursor) {
    const u32 leader = __ffs(mask) - 1;
    u32 base = 0;
    if (lane_id() == leader) base = atomicAdd(cursor, (u32)__popc(mask));
    return __shfl_sync(VYRE_FULL_MASK, base, leader) + __popc(mask & lanes_below());
}

// Append the vertices the lanes of this warp discovered to `queue`, one
// atomic per warp. All 32 lanes must call it together.
__device__ __forceinline__ void warp_append(u32* queue, u32* cursor, bool found, u32 v) {
    const u32 mask = __ballot_sync(VYRE_FULL_MASK, found);
    if (mask == 0) return;
    const u32 at = warp_slot(mask, cursor);
    if (found) queue[at] = v;
}

// Append the vertices the block's threads discovered to `queue`, one atomic
// per block: a wide level whose lanes find many vertices would otherwise
// queue one atomic per warp on the one cursor address. Every thread must
// call it.
__device__ __forceinline__ void block_append(u32* queue, u32* cursor, bool found, u32 v) {
    __shared__ u32 warp_base[VYRE_MAX_WARPS];
    const u32 warp = warp_in_block(), lane = lane_id();
    const u32 mask = __ballot_sync(VYRE_FULL_MASK, found);
    // This warp's lanes read its base of the last call before it changes.
    __syncwarp();
    if (lane == 0) warp_base[warp] = __popc(mask);
    __syncthreads();
    if (warp == 0) {
        const u32 warps = blockDim.x >> 5;
        const u32 count = lane < warps ? warp_base[lane] : 0u;
        const u32 inclusive = warp_inclusive_sum(count);
        const u32 total = __shfl_sync(VYRE_FULL_MASK, inclusive, 31);
        u32 base = 0;
        if (lane == 0 && total != 0) base = atomicAdd(cursor, total);
        base = __shfl_sync(VYRE_FULL_MASK, base, 0);
        if (lane < warps) warp_base[lane] = base + inclusive - count;
    }
    __syncthreads();
    if (found) queue[warp_base[warp] + __popc(mask & lanes_below())] = v;
}

// ---- pieces -----------------------------------------------------------------
//
// A frontier vertex of at least VYRE_LIGHT_DEGREE out-edges is cut into
// pieces of at most VYRE_PIECE_EDGES edges, so that the edges of a few hubs
// spread over the whole grid. Piece k of v is the pair (v, k) in the work
// array. Two lists can be built at once (the fused kernel builds the next
// frontier's while it expands the current one's): list 0 grows up from the
// start of the array, list 1 down from its end. Two disjoint frontiers have
// at most n + m / 1024 pieces together, which the work array holds.

struct VyrePieces {
    u32 list;      // 0 or 1
    u32* count;    // pieces in the list (the append cursor)
};

// Args: VyreArgs, or VyreRankArgs (list 0 only).
template <typename Args>
__device__ __forceinline__ u32* piece_slot(const Args& a, u32 list, u64 index) {
    const u64 pair = list == 0 ? index : a.work_words / 2 - 1 - index;
    return a.work + 2 * pair;
}

__device__ __forceinline__ u32 pieces_of(u64 degree) {
    return degree < VYRE_LIGHT_DEGREE ? 0u
                                      : (u32)((degree + VYRE_PIECE_EDGES - 1) / VYRE_PIECE_EDGES);
}

// Append the pieces of the lanes' vertices (`degree` 0 for none) to `to`,
// one atomic per warp. All 32 lanes must call it together.
template <typename Args>
__device__ __forceinline__ void warp_append_pieces(const Args& a, VyrePieces to, u64 degree,
                                                   u32 v) {
    const u32 mine = pieces_of(degree);
    if (__ballot_sync(VYRE_FULL_MASK, mine != 0) == 0) return;
    const u32 inclusive = warp_inclusive_sum(mine);
    const u32 total = __shfl_sync(VYRE_FULL_MASK, inclusive, 31);
    u32 base = 0;
    if (lane_id() == 0) base = atomicAdd(to.count, total);
    base = __shfl_sync(VYRE_FULL_MASK, base, 0) + inclusive - mine;
    for (u32 k = 0; k < mine; ++k) {
        u32* slot = piece_slot(a, to.list, (u64)base + k);
        slot[0] = v;
        slot[1] = k;
    }
}

// ---- edge-balanced expansion -------------------------------------------------
//
// A block's items (frontier vertices or pieces) sit in shared memory: item k
// starts at edge row[k] of vertex src[k] and holds edges scan[k] ..
// scan[k + 1) of their concatenation. Each thread takes one edge per round
// and finds its item by binary search, so a block's threads share its edges
// evenly whatever the items' sizes.

struct VyreItems {
    u32* src;      // capacity entries
    u64* row;      // capacity entries
    u64* scan;     // capacity + 1 entries
};

// The largest k < count with scan[k] <= key, in an exclusive scan: the
// entry holding `key` (empty entries before it share its scan value and
// lose to it).
template <typename T>
__device__ __forceinline__ u32 holder_of(const T* scan, u32 count, T key) {
    u32 lo = 0, hi = count;
    while (hi - lo > 1) {
        const u32 mid = (lo + hi) >> 1;
        if (scan[mid] <= key) lo = mid; else hi = mid;
    }
    return lo;
}

// The item holding edge e.
__device__ __forceinline__ u32 item_of(const u64* scan, u32 count, u64 e) {
    return holder_of(scan, count, e);
}

// Expand edges [from, to) of the block's `count` items. With EMIT, the
// vertices discovered are cut into pieces for the next level (`next`).
// Every thread must call it.
template <bool PRECHECK, bool EMIT>
__device__ void expand_items(const VyreArgs& a, VyreItems items, u32 count, u64 from, u64 to,
                             u32* queue_out, u32* cursor, u32 next_depth, VyrePieces next,
                             u64& examined, u64& out_edges) {
    for (u64 base = from; base < to; base += blockDim.x) {
        const u64 e = base + threadIdx.x;
        bool found = false;
        u32 v = 0;
        u64 degree = 0;
        if (e < to) {
            const u32 k = item_of(items.scan, count, e);
            v = a.out_targets[items.row[k] + (e - items.scan[k])];
            ++examined;
            found = discover<PRECHECK>(a, v, items.src[k], next_depth, out_edges, degree);
        }
        // Per-wave levels are bandwidth-bound: one cursor atomic per block;
        // the latency-bound fused kernel spends no barrier on it.
        if (PRECHECK) {
            block_append(queue_out, cursor, found, v);
        } else {
            warp_append(queue_out, cursor, found, v);
        }
        if (EMIT) warp_append_pieces(a, next, found ? degree : 0, v);
    }
}

// Pieces [tile, min(tile + blockDim, last)) of `list` as the block's items
// (written earlier in this launch, so read through L2); the tile's edges
// are items.scan[blockDim.x]. `src` is the vertex as the piece names it,
// an index of a.out_offsets. Every thread must call it.
template <typename Args>
__device__ void load_piece_tile(const Args& a, u32 list, u64 tile, u64 last, VyreItems items) {
    const u32 t = threadIdx.x;
    const u64 j = tile + t;
    u32 v = 0;
    u64 start = 0, len = 0;
    if (j < last) {
        const u32* slot = piece_slot(a, list, j);
        v = __ldcg(slot);
        const u64 k = __ldcg(slot + 1);
        const u64 end = a.out_offsets[v + 1];
        start = a.out_offsets[v] + k * VYRE_PIECE_EDGES;
        len = end - start < VYRE_PIECE_EDGES ? end - start : VYRE_PIECE_EDGES;
    }
    items.src[t] = v;
    items.row[t] = start;
    block_exclusive_scan(len, items.scan);
}

// Expand pieces [first, last) of `list` in tiles of blockDim pieces. Every
// thread must call it.
template <bool PRECHECK, bool EMIT>
__device__ void expand_pieces(const VyreArgs& a, u32 list, u64 first, u64 last, VyreItems items,
                              u32* queue_out, u32* cursor, u32 next_depth, VyrePieces next,
                              u64& examined, u64& out_edges) {
    for (u64 tile = first; tile < last; tile += blockDim.x) {
        load_piece_tile(a, list, tile, last, items);
        expand_items<PRECHECK, EMIT>(a, items, blockDim.x, 0, items.scan[blockDim.x], queue_out,
                                     cursor, next_depth, next, examined, out_edges);
        __syncthreads();
    }
}

// A per-wave level kernel starts: block 0 notes when, for finish_level's
// record of the level's device time (blocks start in index order).
__device__ __forceinline__ void level_started(const VyreArgs& a) {
    if (blockIdx.x == 0 && threadIdx.x == 0) a.control->level_start_ns = globaltimer_ns();
}

// A frontier conversion of a self-timed command (level_times) starts: block
// 0 notes when, and the time of the level or fused launch after it starts
// there (finish_level, fused_ended clear the note).
__device__ __forceinline__ void conversion_started(const VyreArgs& a) {
    if (a.level_times != nullptr && blockIdx.x == 0 && threadIdx.x == 0)
        a.control->conv_start_ns = globaltimer_ns();
}

// A fused launch of a search times itself as a whole (entry 0 of
// level_times, when the host passed it): block 0 notes the start as it
// enters, the last block to leave (one thread) the end, and a conversion
// before the launch counts as part of it, as in finish_level.
__device__ __forceinline__ void fused_started(const VyreArgs& a) {
    if (a.level_times != nullptr && blockIdx.x == 0 && threadIdx.x == 0)
        ((volatile u64*)a.level_times)[0] = globaltimer_ns();
}
__device__ __forceinline__ void fused_ended(const VyreArgs& a) {
    if (a.level_times == nullptr) return;
    volatile VyreControl* vc = a.control;
    volatile u64* times = a.level_times;
    // Block 0 stored the start before its ticket to leave, which the last
    // block's ticket follows.
    const u64 conversion = vc->conv_start_ns;
    if (conversion != 0) times[0] = conversion;
    times[1] = globaltimer_ns();
    vc->conv_start_ns = 0;
}

// Write one level record, the epoch last. With `published` the host reads
// it while the command still runs (a chain, see wave.rs), so the other
// fields are made visible to the host before the epoch; otherwise the host
// reads it after the command, when every write is visible.
__device__ void write_record(VyreLevelRecord* slot, u32 level, u32 frontier_in, u32 frontier_out,
                             u64 out_edges, u64 examined, u32 epoch, bool published) {
    volatile VyreLevelRecord* r = slot;
    r->level = level;
    r->frontier_in = frontier_in;
    r->frontier_out = frontier_out;
    r->frontier_out_edges = out_edges;
    r->edges_examined = examined;
    if (published) __threadfence_system();
    r->epoch = epoch;
}

// A per-wave queue level uses the first `blocks` blocks of its grid (the
// kernel sizes itself by its frontier, at least 1 block). A chain launches
// its later levels on the command's whole later grid, since the host does
// not know their frontiers, and the blocks past `blocks` leave before doing
// anything: they do not count themselves in at finish_level. A block that
// starts after the level closed would size it by the next frontier, so
// finish_level marks the level closed before it makes the next frontier
// current, and that block sees the mark and leaves too.
struct VyreFrontier {
    u32 len;       // vertices of the level's frontier
    u64 edges;     // their out-edges
    bool stopped;  // an earlier level stopped the chain (command_stopped)
    bool closed;   // the level closed before this block started
};

__device__ __forceinline__ u64 closed_mark(const VyreArgs& a) {
    return ((u64)a.epoch << 32) | (u64)(a.history_index + 1);
}

// The level's frontier as this block saw it, the same for all its threads
// (they leave or stay together): thread 0 reads it for the block. Every
// thread must call it.
__device__ VyreFrontier level_frontier(const VyreArgs& a) {
    __shared__ u64 seen[4];
    if (threadIdx.x == 0) {
        volatile VyreControl* vc = a.control;
        seen[0] = command_stopped(a);
        seen[1] = vc->cur_len;
        seen[2] = vc->cur_edges;
        // A new frontier seen above implies the mark stored before it.
        fence_acquire();
        seen[3] = vc->closed_level == closed_mark(a);
    }
    __syncthreads();
    VyreFrontier f;
    f.stopped = seen[0] != 0;
    f.len = (u32)seen[1];
    f.edges = seen[2];
    f.closed = seen[3] != 0;
    return f;
}

// The blocks a level that needs `need` takes part with: at least one, which
// closes the level.
__device__ __forceinline__ u32 level_blocks(u32 need) { return need == 0 ? 1u : need; }

// Whether this block takes no part in a level of `blocks` (level_blocks)
// blocks.
__device__ __forceinline__ bool surplus_block(const VyreFrontier& f, u32 blocks) {
    return f.closed || blockIdx.x >= blocks;
}

// Add this block's level counters (block-reduced, one atomic each) without
// closing the level: for a level that a later kernel closes. Called by all
// threads; true for the thread that added them (thread 0), after a fence.
__device__ __forceinline__ bool add_level_counts(const VyreArgs& a, u64 examined, u64 out_edges,
                                                 u64 discovered) {
    block_sum3(examined, out_edges, discovered);
    if (threadIdx.x != 0) return false;
    VyreControl* c = a.control;
    if (examined) atomicAdd(&c->examined[0], examined);
    if (out_edges) atomicAdd(&c->out_edges[0], out_edges);
    if (discovered) atomicAdd(&c->next_len[0], (u32)discovered);
    __threadfence();
    return true;
}

// Whether a level that found `next_len` vertices with `next_edges`
// out-edges is its multi-level command's last: the next frontier is empty
// or outside the command's band (vyre_driver's FrontierBand::ends_after).
__device__ __forceinline__ bool ends_command(const VyreArgs& a, u32 next_len, u64 next_edges) {
    return next_len == 0 || next_edges > a.band_max_frontier_edges ||
           (u64)next_len > a.band_max_frontier_vertices;
}

// Epilogue of every per-wave level kernel; each of the `blocks` blocks that
// take part in the level (the whole grid, or see level_blocks) calls it
// once, with all threads. Counters are block-reduced and added with one
// atomic each; the last block to finish writes the level record, makes the
// next frontier current, clears the counters, and stops the chain when the
// next frontier is empty or has more out-edges than the band. `discovered`
// is for kernels that do not append to a queue (top-down kernels count
// through next_len).
__device__ void finish_level(const VyreArgs& a, u32 blocks, u64 examined, u64 out_edges,
                             u64 discovered) {
    if (!add_level_counts(a, examined, out_edges, discovered)) return;
    VyreControl* c = a.control;
    const u32 done = atomicAdd(&c->blocks_done, 1u);
    if (done != blocks - 1) return;
    __threadfence();
    volatile VyreControl* vc = c;
    const u32 next_len = vc->next_len[0];
    const u64 next_edges = vc->out_edges[0];
    const bool stop = ends_command(a, next_len, next_edges);
    const u32 frontier_in = vc->cur_len;
    // Before the frontier changes: a block of this level that starts late
    // leaves (level_frontier).
    vc->closed_level = closed_mark(a);
    __threadfence();
    vc->cur_len = next_len;
    vc->cur_edges = next_edges;
    vc->levels_run = a.history_index + 1;
    if (stop) vc->stop_epoch = a.epoch;
    const u64 examined_all = vc->examined[0];
    vc->next_len[0] = 0;
    vc->out_edges[0] = 0;
    vc->examined[0] = 0;
    vc->work_ticket = 0;
    vc->work_done = 0;
    vc->piece_count[0] = 0;
    vc->blocks_done = 0;
    // Block 0's start is visible: it was stored before that block's fenced
    // count, which this block saw. A conversion before the first level
    // counts as part of it (the first level clears its note).
    if (a.level_times != nullptr) {
        volatile u64* times = a.level_times + 2 * (u64)a.history_index;
        const u64 conversion = vc->conv_start_ns;
        times[0] = conversion != 0 ? conversion : vc->level_start_ns;
        times[1] = globaltimer_ns();
        vc->conv_start_ns = 0;
    }
    // Last: once the host sees the record it may enqueue nothing more, and
    // the next level of the chain must see the stop flag (kernel order).
    write_record(&a.history[a.history_index], a.level, frontier_in, next_len, next_edges,
                 examined_all, a.epoch, a.max_levels > 1);
}
