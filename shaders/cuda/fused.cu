// FusedWave: a persistent kernel that runs consecutive top-down levels with
// a device-wide barrier between them.
//
// The barrier is only safe because the backend launches this kernel with
// cuLaunchCooperativeKernel, which refuses grids whose blocks cannot all be
// resident at once; a plain launch of a grid too large to be co-resident
// would spin forever. A spinning block also reads the abort word now and
// then, so that a launch the host gave up on (a bug, or a device that
// stalls) ends instead of holding the device until the process exits.
//
// A level on a high-diameter graph has almost no work, so what a level
// costs is its chain of dependent memory round trips plus the barrier. The
// kernel keeps that chain short:
// - one barrier per level: level r counts into counter slot r % 3; after
//   the barrier every block reads slot r % 3, and during level r + 1 block 0
//   clears slot (r + 2) % 3, which was last read before the previous
//   barrier. The queues alternate as in the per-wave kernels;
// - the barrier is one atomic add per block on one word whose top bit flips
//   when the last block arrives; one thread per block polls it (strong loads
//   that bypass L1, a short sleep between them, one acquire fence after)
//   and the block that completes it does not poll at all;
// - a frontier is dealt out in warp-sized runs of 32 vertices round-robin
//   over the blocks, and each block spreads its vertices' edges over all its
//   threads, so a small frontier takes one round of one edge per thread on
//   many blocks instead of a walk of every vertex's edges by one thread;
//   blocks without vertices go straight to the barrier;
// - on a graph without heavy vertices (no vertex of VYRE_LIGHT_DEGREE
//   out-edges or more) the vertex that discovers another stores its row
//   start and degree next to it in the queue (FusedRows), so the next level
//   loads a vertex and its row in one round trip; and its launches skip the
//   first frontier's piece pass and its barrier;
// - the next frontier's entries near the front of the queue (and their rows)
//   are loaded while thread 0 reads the level's counters, and the targets of
//   a pass's vertices are prefetched into L1 while the block scans them;
// - level records stay in device memory (`level_log`) until the launch
//   ends: writes to mapped host memory would make the barrier's release wait
//   on the PCIe bus every level;
// - no barrier at exit: the last block to leave (by ticket) clears the
//   counters.

// Widest block the fused kernel is built for (FUSED_WIDTH in the backend).
// At 4 blocks per SM ptxas has 64 registers, which fused_local's claims of
// VYRE_LOCAL_ROUND edges in flight at once need without spilling.
#define VYRE_FUSED_MAX_BLOCK 256
#define VYRE_FUSED_MAX_WARPS (VYRE_FUSED_MAX_BLOCK / 32)

// Top bit of bar_count: flips once every block has arrived.
#define VYRE_BARRIER_PHASE 0x80000000u
// Back-off of a polling block, in ns: it starts short (the last blocks
// usually arrive within a round trip) and is capped well below the time a
// level takes, so an early block is never late for the next level.
#define VYRE_SPIN_FIRST_NS 32u
#define VYRE_SPIN_MOST_NS 256u

// Thread 0 of every block, once per barrier. Block 0 adds
// PHASE - (blocks - 1) and every other block 1, so the counter's low bits
// come back to zero and its top bit flips exactly when the last block adds.
// The add releases this block's writes (all of its threads', ordered before
// by the __syncthreads that precedes the call); the last block's add, or the
// fence after the poll that sees the flip, acquires everyone's. False when
// the host aborted the launch while this block waited.
__device__ __forceinline__ bool grid_arrive_and_wait(const VyreArgs& a) {
    VyreControl* c = a.control;
#ifdef VYRE_TEST_STUCK_BARRIER
    // Test-only variant (VYRE_CUDA_TEST_STUCK_BARRIER): block 0 adds one
    // less, so the barrier never opens and only the abort word ends a launch
    // of more than one block.
    const u32 add = blockIdx.x == 0 ? VYRE_BARRIER_PHASE - gridDim.x : 1u;
#else
    const u32 add = blockIdx.x == 0 ? VYRE_BARRIER_PHASE - (gridDim.x - 1) : 1u;
#endif
    const u32 old = add_acq_rel(&c->bar_count, add);
    if (((old + add) ^ old) & VYRE_BARRIER_PHASE) return true;  // the last to arrive
    u32 ns = VYRE_SPIN_FIRST_NS;
    u32 polls = 0;
    while (((load_relaxed(&c->bar_count) ^ old) & VYRE_BARRIER_PHASE) == 0) {
        if (abort_requested(a, polls)) return false;
        spin_pause_ns(ns);
        ns = ns * 2 < VYRE_SPIN_MOST_NS ? ns * 2 : VYRE_SPIN_MOST_NS;
    }
    fence_acquire();
    return true;
}

// A whole grid barrier for every thread of every block; false (for every
// thread of the block) when the host aborted the launch.
__device__ __forceinline__ bool grid_barrier(const VyreArgs& a) {
    __syncthreads();
    // One block: __syncthreads already orders every global access of the
    // block.
    if (gridDim.x == 1) return true;
    bool aborted = false;
    if (threadIdx.x == 0) aborted = !grid_arrive_and_wait(a);
    return __syncthreads_count(aborted) == 0;
}

// Where the frontier is dealt out: run k of 32 consecutive queue positions
// goes to block k % G as warp (k / G) % W of pass (k / G) / W, for G blocks
// of W warps. A frontier of up to 32 G vertices is thus one warp of each of
// its first blocks, and a large one fills every thread of every block.
struct FusedDeal {
    u32 blocks;  // G
    u32 warps;   // W

    // Run index of warp `w` of this block in pass `p`.
    __device__ __forceinline__ u64 run(u32 p, u32 w) const {
        return ((u64)p * warps + w) * blocks + blockIdx.x;
    }
    // Queue position of this thread in pass `p`.
    __device__ __forceinline__ u64 position(u32 p) const {
        return run(p, warp_in_block()) * 32 + lane_id();
    }
    // Whether this block holds any of `len` positions in pass `p`
    // (block-uniform).
    __device__ __forceinline__ bool holds(u32 p, u32 len) const {
        return run(p, 0) * 32 < len;
    }
    // Warps of this block holding positions below `len` in pass `p`.
    __device__ __forceinline__ u32 warps_holding(u32 p, u32 len) const {
        const u64 runs = ((u64)len + 31) / 32;
        const u64 first = run(p, 0);
        if (first >= runs) return 0;
        const u64 used = (runs - first + blocks - 1) / blocks;
        return used < warps ? (u32)used : warps;
    }
};

// The launch's first frontier cut into pieces (list 0, counted in slot 2,
// where a level before the first would have counted them). Every thread
// must call it.
__device__ void first_frontier_pieces(const VyreArgs& a, const u32* queue, u32 len) {
    const VyrePieces first = {0, &a.control->piece_count[2]};
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 chunk = (u64)blockIdx.x * blockDim.x; chunk < len; chunk += stride) {
        const u64 i = chunk + threadIdx.x;
        u32 u = 0;
        u64 degree = 0;
        if (i < len) {
            u = __ldcg(queue + i);
            degree = out_degree(a, u);
        }
        warp_append_pieces(a, first, degree, u);
    }
}

// Row words of the frontier queues on a graph without heavy vertices, whose
// fused launches leave the work array unused otherwise: the vertex at queue
// position i of a list has (row start << 5 | out-degree) at slot(list, i).
// List 0 grows up from the start of the work array, list 1 down from its
// n-th u64, so the rows of two disjoint frontiers (the current one and the
// next) fit in the 2n words the layout guarantees.
struct FusedRows {
    u64* words;
    u32 n;

    __device__ __forceinline__ u64* slot(u32 list, u64 pos) const {
        return words + (list == 0 ? pos : n - 1 - pos);
    }
};

// Edge `e` of the block's `count` light items: its target `v` claimed for
// `next_depth`, with v's row loaded beside the claim (as discover<false>
// does). Whether this thread claimed v; its row word (start << 5 |
// out-degree) goes to `word`.
__device__ __forceinline__ bool claim_light_edge(const VyreArgs& a, const VyreItems& items,
                                                 u32 count, u64 e, u32 next_depth, u32& v,
                                                 u64& word, u64& examined, u64& out_edges) {
    const u32 k = item_of(items.scan, count, e);
    v = a.out_targets[items.row[k] + (e - items.scan[k])];
    ++examined;
    const u64 first = a.out_offsets[v];
    const u64 last = a.out_offsets[v + 1];
    if (atomicCAS(&a.depth[v], VYRE_UNREACHED, next_depth) != VYRE_UNREACHED) return false;
    a.parent[v] = items.src[k];
    out_edges += last - first;
    word = first << 5 | (last - first);
    return true;
}

// expand_items for a graph without heavy vertices: each discovered vertex
// is appended with its row word at the same position of list `list`.
// Every thread must call it.
__device__ void expand_light_rows(const VyreArgs& a, VyreItems items, u32 count, u64 total,
                                  u32* queue_out, u32* cursor, FusedRows rows, u32 list,
                                  u32 next_depth, u64& examined, u64& out_edges) {
    for (u64 base = 0; base < total; base += blockDim.x) {
        const u64 e = base + threadIdx.x;
        u32 v = 0;
        u64 word = 0;
        const bool found = e < total && claim_light_edge(a, items, count, e, next_depth, v, word,
                                                         examined, out_edges);
        const u32 mask = __ballot_sync(VYRE_FULL_MASK, found);
        if (mask == 0) continue;  // warp-uniform
        const u32 at = warp_slot(mask, cursor);
        if (found) {
            queue_out[at] = v;
            *rows.slot(list, at) = word;
        }
    }
}

// Record `run` of the launch's level log: the level at `level` expanded
// `len` vertices and found `next_len` with `next_edges` out-edges.
__device__ __forceinline__ void fused_log_level(const VyreArgs& a, u32 run, u32 level, u32 len,
                                                u32 next_len, u64 next_edges, u64 examined) {
    VyreLevelRecord* r = &a.level_log[run];
    r->level = level;
    r->frontier_in = len;
    r->frontier_out = next_len;
    r->epoch = a.epoch;
    r->frontier_out_edges = next_edges;
    r->edges_examined = examined;
}

// Whether a fused launch ends after level `run`, which found `next_len`
// vertices with `next_edges` out-edges: the frontier is empty, the command's
// levels are spent, or the frontier left the band.
__device__ __forceinline__ bool fused_stops(const VyreArgs& a, u32 run, u32 next_len,
                                            u64 next_edges) {
    return run + 1 >= a.max_levels || ends_command(a, next_len, next_edges);
}

// Thread 0 of a block after level `run` (at `level`, expanding `len`
// vertices, counted in `slot`): what the level found; block 0 logs it.
__device__ __forceinline__ void fused_read_level(const VyreArgs& a, u32 run, u32 level, u32 len,
                                                 u32 slot, u32& next_len, u64& next_edges) {
    VyreControl* c = a.control;
    next_len = load_volatile(&c->next_len[slot]);
    next_edges = load_volatile(&c->out_edges[slot]);
    if (blockIdx.x == 0) {
        fused_log_level(a, run, level, len, next_len, next_edges,
                        load_volatile(&c->examined[slot]));
    }
}

// How every block leaves a fused launch that ran `run` levels, the last
// of which found `next_len` vertices with `next_edges` out-edges: block 0
// copies the level log to the host's records, and the last of the
// `leavers` blocks that call it (every block, unless some left the launch
// early, knowing nothing of its end) hands the frontier to the host and
// clears the counters. Every thread of those blocks must call it.
__device__ void fused_exit(const VyreArgs& a, u32 run, u32 next_len, u64 next_edges, u32 leavers) {
    VyreControl* c = a.control;
    const u32 t = threadIdx.x;
    const u32 width = blockDim.x;
    // Block 0 wrote the records (thread 0, ordered by the caller's last
    // __syncthreads): the host reads them from mapped memory once the launch is over.
    if (blockIdx.x == 0) {
        const u32* from = (const u32*)a.level_log;
        u32* to = (u32*)a.history;
        for (u32 w = t; w < run * 8; w += width) to[w] = from[w];
    }
    // The last block to leave clears the counters: every other block has
    // read its last ones (and left the barrier) before it took its ticket.
    if (t == 0) {
        const u32 left = leavers > 1 ? add_acq_rel(&c->blocks_done, 1u) : 0;
        if (left == leavers - 1) {
            volatile VyreControl* vc = c;
            vc->cur_len = next_len;
            vc->cur_edges = next_edges;
            vc->levels_run = run;
            for (u32 s = 0; s < 3; ++s) {
                vc->next_len[s] = 0;
                vc->out_edges[s] = 0;
                vc->examined[s] = 0;
                vc->piece_count[s] = 0;
            }
            vc->blocks_done = 0;
            vc->bar_count = 0;
            fused_ended(a);
        }
    }
}

// Levels while the frontier is non-empty, has at most band out-edges, and
// fewer than max_levels levels ran. Records every level, and leaves cur_len
// / cur_edges / levels_run for the host with the counters cleared.
//
// Each level expands its light vertices (fewer than VYRE_LIGHT_DEGREE
// out-edges) edge-balanced within each block (FusedDeal), and every other
// vertex as pieces that all blocks share evenly. Without HEAVY every vertex
// is light, and levels after the launch's first read their rows from
// FusedRows. With HEAVY (the graph has heavy vertices) the pieces of a
// frontier are appended when its vertices are discovered, during the level
// before, so a level needs no second barrier; the launch's first frontier is
// cut into pieces before the first level.
// Level r reads piece list r % 2 and appends the next frontier's to list
// (r + 1) % 2, counted in slot r % 3 of piece_count like next_len.
template <bool HEAVY>
__device__ void fused_levels(const VyreArgs& a) {
    extern __shared__ u64 fused_smem[];
    // [0] next_len, [1] stop, [2] pieces, [3] the host aborted the launch.
    __shared__ u32 decision[4];
    __shared__ u64 block_totals[2][VYRE_FUSED_MAX_WARPS];
    VyreControl* c = a.control;
    const u32 width = blockDim.x;
    const u32 t = threadIdx.x;
    VyreItems items;
    items.scan = fused_smem;                   // width + 1
    items.row = items.scan + width + 1;        // width
    items.src = (u32*)(items.row + width);     // width
    const FusedDeal deal = {gridDim.x, width >> 5};
    const FusedRows rows = {(u64*)a.work, a.vertex_count};
    const VyrePieces no_pieces = {0, nullptr};
    u32* queue_in = a.queue_in;
    u32* queue_out = a.queue_out;
    u32 len = load_volatile(&c->cur_len);
    u32 level = a.level;
    u32 pieces = 0;
    if (HEAVY) {
        first_frontier_pieces(a, queue_in, len);
        // An aborted launch leaves at once: the host reads nothing of it.
        if (!grid_barrier(a)) return;
        if (t == 0) decision[2] = load_volatile(&c->piece_count[2]);
        __syncthreads();
        pieces = decision[2];
    }
    // This thread's first position of the next level, with its row, loaded
    // while thread 0 reads the counters; valid when `ahead` is set and the
    // position lies below the next frontier's length.
    bool ahead = false;
    u32 ahead_vertex = 0;
    u64 ahead_start = 0, ahead_degree = 0;
    u32 run = 0;
    u32 next_len = 0;
    u64 next_edges = 0;
    for (;;) {
        const u32 slot = run % 3;
        if (blockIdx.x == 0 && t == 0) {
            const u32 spare = (run + 1) % 3;
            c->next_len[spare] = 0;
            c->out_edges[spare] = 0;
            c->examined[spare] = 0;
            if (HEAVY) c->piece_count[spare] = 0;
        }
        const VyrePieces next = HEAVY ? VyrePieces{(run + 1) & 1, &c->piece_count[slot]} : no_pieces;
        u32* cursor = &c->next_len[slot];
        const u32 next_depth = level + 1;
        u64 examined = 0, out_edges = 0;
        bool worked = false;  // block-uniform
        for (u32 p = 0; deal.holds(p, len); ++p) {
            worked = true;
            const u64 i = deal.position(p);
            u32 u = 0;
            u64 start = 0, degree = 0;
            if (i < len) {
                if (p == 0 && ahead) {
                    u = ahead_vertex;
                    start = ahead_start;
                    degree = ahead_degree;
                } else if (!HEAVY && run > 0) {
                    u = __ldcg(queue_in + i);
                    const u64 word = __ldcg(rows.slot(run & 1, i));
                    start = word >> 5;
                    degree = word & 31;
                } else {
                    u = __ldcg(queue_in + i);
                    start = a.out_offsets[u];
                    degree = a.out_offsets[u + 1] - start;
                }
                if (degree != 0 && degree < VYRE_LIGHT_DEGREE) {
                    prefetch_l1(a.out_targets + start);
                    prefetch_l1(a.out_targets + start + degree - 1);
                }
            }
            items.src[t] = u;
            items.row[t] = start;
            block_exclusive_scan(degree < VYRE_LIGHT_DEGREE ? degree : 0, items.scan);
            const u32 count = deal.warps_holding(p, len) * 32;
            if (HEAVY) {
                expand_items<false, true>(a, items, count, 0, items.scan[width], queue_out,
                                          cursor, next_depth, next, examined, out_edges);
            } else {
                expand_light_rows(a, items, count, items.scan[width], queue_out, cursor, rows,
                                  (run + 1) & 1, next_depth, examined, out_edges);
            }
            // The next pass rewrites the items.
            __syncthreads();
        }
        if (HEAVY) {
            const u64 from = share_start(pieces, gridDim.x, blockIdx.x);
            const u64 to = share_start(pieces, gridDim.x, blockIdx.x + 1);
            worked = worked || from < to;
            expand_pieces<false, true>(a, run & 1, from, to, items, queue_out, cursor, next_depth,
                                       next, examined, out_edges);
        }
        // The block's counts go to the level's slot with one atomic each
        // from thread 0, just before it arrives at the barrier.
        if (worked) {
            for (u32 o = 16; o > 0; o >>= 1) {
                examined += __shfl_down_sync(VYRE_FULL_MASK, examined, o);
                out_edges += __shfl_down_sync(VYRE_FULL_MASK, out_edges, o);
            }
            if (lane_id() == 0) {
                block_totals[0][warp_in_block()] = examined;
                block_totals[1][warp_in_block()] = out_edges;
            }
        }
        // Every write of this level by this block precedes thread 0's
        // arrival.
        __syncthreads();
        if (t == 0) {
            if (worked) {
                u64 e = 0, o = 0;
                for (u32 w = 0; w < deal.warps; ++w) {
                    e += block_totals[0][w];
                    o += block_totals[1][w];
                }
                if (e) atomicAdd(&c->examined[slot], e);
                if (o) atomicAdd(&c->out_edges[slot], o);
            }
            decision[3] = gridDim.x > 1 && !grid_arrive_and_wait(a);
        }
        __syncthreads();
        // Speculative loads for the next level, bounded to positions a
        // frontier about twice this one's size would use, so a small
        // frontier does not load the whole grid's worth of stale entries.
        const u64 first = deal.position(0);
        const u64 window = 2 * (u64)len + 64;
        ahead = false;
        if (first < window && first < a.vertex_count) {
            ahead_vertex = __ldcg(queue_out + first);
            if (!HEAVY) {
                const u64 word = __ldcg(rows.slot((run + 1) & 1, first));
                ahead_start = word >> 5;
                ahead_degree = word & 31;
                ahead = true;
            } else if (ahead_vertex < a.vertex_count) {
                ahead_start = a.out_offsets[ahead_vertex];
                ahead_degree = a.out_offsets[ahead_vertex + 1] - ahead_start;
                ahead = true;
            }
        }
        if (t == 0) {
            fused_read_level(a, run, level, len, slot, next_len, next_edges);
            decision[0] = next_len;
            decision[1] = fused_stops(a, run, next_len, next_edges);
            if (HEAVY) decision[2] = load_volatile(&c->piece_count[slot]);
        }
        __syncthreads();
        // An aborted launch leaves at once: the host reads nothing of it.
        if (decision[3] != 0) return;
        const bool stop = decision[1] != 0;
        len = decision[0];
        if (HEAVY) pieces = decision[2];
        ++run;
        if (stop) break;
        u32* swap = queue_in;
        queue_in = queue_out;
        queue_out = swap;
        ++level;
        // decision[] and block_totals[] are rewritten only after the next
        // level's first __syncthreads at the barrier, which every thread of
        // this block passes after reading them.
    }
    fused_exit(a, run, next_len, next_edges, gridDim.x);
}

// fused_local.cu: a light graph's levels over at most this many blocks,
// each keeping the frontier it finds (their barrier slots fit in the work
// array past FusedRows' words for any graph: see local_slots), where the
// counts a block puts in its slot fit (local_counts_fit).
#ifndef VYRE_LOCAL_MAX_BLOCKS
#define VYRE_LOCAL_MAX_BLOCKS 128u
#endif
template <bool CLUSTERED>
__device__ void fused_local(const VyreArgs& a);
__device__ bool local_counts_fit(const VyreArgs& a);
__device__ bool local_slots_fit(const VyreArgs& a);

// max_levels 0 runs nothing (the backend's warm-up launch at start-up).
// Dynamic shared memory: 20 * blockDim + 8 bytes (the items of a pass).
extern "C" __global__ void __launch_bounds__(VYRE_FUSED_MAX_BLOCK, 4) vyre_fused(const VyreArgs a) {
    if (a.max_levels == 0) return;
    fused_started(a);
    if (a.max_out_degree >= VYRE_LIGHT_DEGREE) {
        fused_levels<true>(a);
    } else if (gridDim.x <= VYRE_LOCAL_MAX_BLOCKS && local_counts_fit(a) && local_slots_fit(a)) {
        fused_local<false>(a);
    } else {
        fused_levels<false>(a);
    }
}

// Block width of vyre_fused_cluster (CLUSTER_WIDTH in the backend): the
// widest, so that a cluster of 16 gives a frontier of 16,384 vertices a
// lane each.
#define VYRE_CLUSTER_WIDTH 1024

// fused_local over one thread-block cluster: every block of the grid in
// one cluster, launched with the cluster attribute (CLUSTER_BLOCKS in the
// backend), whose levels meet at the cluster's barrier. The engine launches
// it only on graphs without heavy vertices (FusedCluster::light_degree),
// where fused_local's counts fit. It reads no abort word: the hardware
// schedules the whole cluster at once (or refuses the launch), so its
// barrier always opens, and it ends within max_levels levels.
extern "C" __global__ void __launch_bounds__(VYRE_CLUSTER_WIDTH, 1) vyre_fused_cluster(const VyreArgs a) {
    if (a.max_levels == 0) return;
    if (a.max_out_degree >= VYRE_LIGHT_DEGREE || !local_counts_fit(a) ||
        cluster_blocks() != gridDim.x)
        __trap();
    fused_started(a);
    fused_local<true>(a);
}
