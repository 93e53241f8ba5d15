// FusedWave with block-local frontiers, on a graph without heavy vertices
// (no vertex of VYRE_LIGHT_DEGREE out-edges or more) over at most
// VYRE_LOCAL_MAX_BLOCKS blocks: what the engine launches for the narrow
// frontiers of high-diameter graphs (chains, road networks, grids). Such a
// level has a few thousand vertices at most, so what it costs is its chain
// of dependent memory round trips and its barrier.
//
// Every block keeps the vertices it discovers and expands them itself in
// the next level, so no frontier passes through global memory between
// levels:
// - a block's next frontier is a list in shared memory (vertex, its row
//   word start << 5 | out-degree, loaded beside the claim, and its parent),
//   appended to with one shared atomic per warp and round of claims; the
//   discoverer prefetches the vertex's targets into its SM's L1, where the
//   next level loads them;
// - a thread expands one vertex, VYRE_LOCAL_ROUND edges at a time with their
//   loads and claims in flight together;
// - the barrier is a slot per block of one word: the vertices it found and
//   their out-edges, tagged with the level. Every block reads every slot, so
//   the poll that sees the last block arrive brings the level's totals with
//   it. A word a block keeps what each poll reads small: the barrier's cost
//   grows with the blocks polling and what they read (BENCHMARKS.md); a
//   launch whose counts might not fit the word runs fused_levels instead
//   (local_counts_fit). A block that finds nothing in a level says so in
//   its slot and leaves the launch (block 0 stays), and no block polls its
//   slot again. Within a level only depth claims cross blocks, and they are
//   atomics, so arriving needs no fence. A level's edges examined are the
//   out-edges of its frontier: the totals of the level before (for the
//   launch's first, cur_edges). The warps that wait prefetch the next
//   level's rows and depths meanwhile;
// - what a block finds beyond its list's capacity spills to the queue (its
//   row word to the work array, as FusedRows) and is shared out evenly over
//   the blocks still in the launch in the next level, so a block whose
//   frontier outgrows its list hands the excess to the others; the launch's
//   first frontier is shared out the same way. Only a level that spills
//   pays for fences;
// - as the launch ends, each block writes its list to the queue after the
//   spilled vertices, in block order, where the host and the next command
//   look for the frontier.
// With one block, __syncthreads is the barrier and no slot is used.

// Frontier entries a block keeps on chip per list (16 B each). The CPU
// emulator builds it smaller, so that its small graphs spill too.
#ifndef VYRE_LOCAL_LIST
#define VYRE_LOCAL_LIST 512u
#endif
// Edges of one vertex claimed together.
#ifndef VYRE_LOCAL_ROUND
#define VYRE_LOCAL_ROUND 4u
#endif
// Slots each lane of a polling warp reads: all of them at once.
#define VYRE_LOCAL_POLL ((VYRE_LOCAL_MAX_BLOCKS + 31) / 32)
// A slot word: the level's tag in the top 8 bits, then the vertices the
// block found (fewer than VYRE_LOCAL_MAX_FOUND, 24 bits) and their
// out-edges (32 bits: each found vertex has fewer than VYRE_LIGHT_DEGREE,
// 32, so they number fewer than 2^29).
// Bit 31, above every out-edge count, marks the word of a block that found
// nothing and leaves the launch (see fused_local).
#define VYRE_SLOT_TAG_MASK (0xffull << 56)
#define VYRE_SLOT_GONE (1u << 31)
#define VYRE_LOCAL_MAX_FOUND (1ull << 24)

// Whether every count a launch's blocks put in their slots fits: a block
// finds fewer than VYRE_LOCAL_MAX_FOUND vertices in a level if the graph has
// fewer, or if every frontier the launch expands has fewer out-edges (a
// vertex is found through an edge the block examines): its first, and the
// later ones, which its band bounds.
__device__ bool local_counts_fit(const VyreArgs& a) {
    return a.vertex_count < VYRE_LOCAL_MAX_FOUND ||
           (a.band_max_frontier_edges < VYRE_LOCAL_MAX_FOUND &&
            load_volatile(&a.control->cur_edges) < VYRE_LOCAL_MAX_FOUND);
}

// u64 words from one block's slot to the next's: each slot in a 32-byte
// sector of its own, so that the polls of many blocks do not queue on a few
// L2 lines (alone, a barrier of 85 blocks took 745 ns against 1,084 with
// the slots packed: docs/BENCHMARKS.md).
#ifndef VYRE_SLOT_STRIDE
#define VYRE_SLOT_STRIDE 4u
#endif

// The u64 word of the work array where the slots start: FusedRows' n words
// rounded up to a 128-byte line.
__device__ __forceinline__ u64 local_slots_start(const VyreArgs& a) {
    return ((u64)a.vertex_count + 15) & ~15ull;
}

// The slots of levels of parity `p`: a word per block, VYRE_SLOT_STRIDE
// words apart, from the first 128-byte line past FusedRows' n words of the
// work array, which holds 2n + ceil(m / 512) + WORK_RESERVE_WORDS u32 words,
// so 2 * VYRE_LOCAL_MAX_BLOCKS * VYRE_SLOT_STRIDE u64 words and the line's
// alignment always fit.
__device__ __forceinline__ u64* local_slots(const VyreArgs& a, u32 p) {
    const u64 start = local_slots_start(a);
    return (u64*)a.work + start + (u64)p * gridDim.x * VYRE_SLOT_STRIDE;
}

// Whether the work array holds this launch's slots past FusedRows' words:
// always, for a work array as DeviceLayout sizes it.
__device__ bool local_slots_fit(const VyreArgs& a) {
    return 2 * (local_slots_start(a) + 2ull * gridDim.x * VYRE_SLOT_STRIDE) <= a.work_words;
}

// Block b's slot among `slots` (u64 or const u64).
template <class Word>
__device__ __forceinline__ Word* local_slot(Word* slots, u32 b) {
    return slots + (u64)b * VYRE_SLOT_STRIDE;
}

// The tag of the launch's level `run`: never 0, and different for the two
// levels that share a parity's slots at any time.
__device__ __forceinline__ u64 local_tag(u32 run) { return ((u64)(run % 0xffu) + 1) << 56; }

// A slot word of a block that found `found` vertices with `out_edges`
// out-edges, for the level tagged `tag`.
__device__ __forceinline__ u64 local_slot_word(u64 tag, u32 found, u32 out_edges) {
    return tag | (u64)found << 32 | out_edges;
}

// The vertices a slot word says its block found, and their out-edges.
__device__ __forceinline__ u32 local_slot_found(u64 word) { return (u32)(word >> 32) & 0xffffffu; }
__device__ __forceinline__ u32 local_slot_edges(u64 word) { return (u32)word & ~VYRE_SLOT_GONE; }

// A block's out-edge counts within a level: fewer than 2^29 (see the slot
// word) where local_counts_fit.
typedef u32 LocalEdges;

// What every block knows of a level once it passed the barrier. 32 bits
// each where local_counts_fit: a level finds fewer than 2^24 vertices (each
// through an edge the launch's band bounds, or one of fewer than 2^24
// vertices), each with fewer than 32 out-edges.
struct LocalTotals {
    u32 found;      // vertices discovered: the next frontier
    u32 out_edges;  // their out-edges
    u32 spilled;    // of them in the queue, past the lists' capacity
    // Where spilled != 0: the blocks still in the launch, which share the
    // spilled vertices out next level, and this block's place among them.
    u32 sharers;
    u32 share;
};

// What a block keeps in its list of the `found` vertices it discovered.
__device__ __forceinline__ u32 local_kept(u32 found) {
    return found < VYRE_LOCAL_LIST ? found : VYRE_LOCAL_LIST;
}

// Whether bit k of a polling lane's `gone` says block lane + 32 k left.
__device__ __forceinline__ bool local_gone(u32 gone, u32 k) { return (gone >> k) & 1; }

// Warp 0, every lane: how many blocks are still in the launch (`sharers`)
// and how many of them come before this one (`share`), by the lanes' `gone`.
__device__ __forceinline__ void local_sharers(u32 gone, u32& sharers, u32& share) {
    sharers = 0;
    share = 0;
#pragma unroll
    for (u32 k = 0; k < VYRE_LOCAL_POLL; ++k) {
        const u32 b = lane_id() + 32 * k;
        const bool in = b < gridDim.x && !local_gone(gone, k);
        sharers += __popc(__ballot_sync(VYRE_FULL_MASK, in));
        share += __popc(__ballot_sync(VYRE_FULL_MASK, in && b < blockIdx.x));
    }
}

// Warp 0 of every block still in the launch, after its thread 0 filled
// this block's slot of the level tagged `tag`: wait until every block's is
// there and total them (valid in every lane). Each poll loads all of a
// lane's slots at once, so a poll is one round trip however many blocks
// there are. A block that left is not polled: `gone` has a bit per slot of
// the lane, and gains those of the blocks that leave at this level. False
// when the host aborted the launch.
__device__ bool local_arrivals(const VyreArgs& a, const u64* slots, u64 tag, u32& gone,
                               LocalTotals& out) {
    const u32 lane = lane_id();
    u32 polls = 0;
    for (;;) {
        u64 w[VYRE_LOCAL_POLL];
#pragma unroll
        for (u32 k = 0; k < VYRE_LOCAL_POLL; ++k) {
            const u32 b = lane + 32 * k;
            w[k] = b < gridDim.x && !local_gone(gone, k) ? load_relaxed_u64(local_slot(slots, b)) : tag;
        }
        bool arrived = true;
#pragma unroll
        for (u32 k = 0; k < VYRE_LOCAL_POLL; ++k)
            arrived = arrived && (w[k] & VYRE_SLOT_TAG_MASK) == tag;
        if (__ballot_sync(VYRE_FULL_MASK, arrived) == VYRE_FULL_MASK) {
            // The sums are on every level's path, so they are 32-bit and
            // leave out what only the launch's end needs (local_kept_before).
            u32 found = 0, out_edges = 0, spilled = 0;
#pragma unroll
            for (u32 k = 0; k < VYRE_LOCAL_POLL; ++k) {
                // A lane past the last block, or a block that left, holds
                // the bare tag: no counts.
                const u32 f = local_slot_found(w[k]);
                found += f;
                out_edges += local_slot_edges(w[k]);
                spilled += f - local_kept(f);
                if (((u32)w[k] & VYRE_SLOT_GONE) != 0) gone |= 1u << k;
            }
            for (u32 o = 16; o > 0; o >>= 1) {
                found += __shfl_xor_sync(VYRE_FULL_MASK, found, o);
                out_edges += __shfl_xor_sync(VYRE_FULL_MASK, out_edges, o);
                spilled += __shfl_xor_sync(VYRE_FULL_MASK, spilled, o);
            }
            out = {found, out_edges, spilled, 0, 0};
            if (spilled != 0) local_sharers(gone, out.sharers, out.share);
            return true;
        }
        const bool give_up = lane == 0 && abort_requested(a, polls);
        if (__ballot_sync(VYRE_FULL_MASK, give_up) != 0) return false;
        VYRE_SPIN_PAUSE();
    }
}

// Warp 0 of a block of a multi-block launch whose last level's slot word
// of block b is `slot(b)`, with the lanes' `gone` bits: the vertices the
// blocks before this one keep in their lists (valid in every lane). Every
// slot of a block still in the launch holds that level's word: the launch
// writes no slot after its last barrier. A block that left keeps nothing
// (and its slot is older).
template <class Slot>
__device__ u32 local_kept_before(Slot slot, u32 gone) {
    u32 before = 0;
#pragma unroll
    for (u32 k = 0; k < VYRE_LOCAL_POLL; ++k) {
        const u32 b = lane_id() + 32 * k;
        if (b < blockIdx.x && !local_gone(gone, k)) before += local_kept(local_slot_found(slot(b)));
    }
    for (u32 o = 16; o > 0; o >>= 1) before += __shfl_xor_sync(VYRE_FULL_MASK, before, o);
    return before;
}

// The launch's queues: level `run` reads `queue(a, run)` and appends to
// `queue(a, run + 1)`. Taken from the arguments each time, so no register
// holds them across a level.
__device__ __forceinline__ u32* local_queue(const VyreArgs& a, u32 run) {
    return (run & 1) ? a.queue_out : a.queue_in;
}

// This block's next list (shared memory), and how many vertices spilled into
// the list's queue before the level started.
struct LocalAppend {
    u32* vertex;
    u64* word;
    u32* parent;
    u32* cursor;  // the list's count, spilled vertices included
    u32 run;      // the level appending: list (run + 1) & 1
    u32 spilled_before;
};

// Append the targets this warp's lanes claimed in one round of
// local_expand (`v[j]`, row `row[j]`, where `claimed[j]`): to the list while
// it has room (prefetching each one's targets into this SM's L1, where this
// block loads them next level), else to the queue and the work array's row
// words. One shared atomic for the warp's whole round, positions by j, then
// by lane. All 32 lanes call it together.
__device__ __forceinline__ void local_append(const VyreArgs& a, const LocalAppend& to,
                                             const bool (&claimed)[VYRE_LOCAL_ROUND],
                                             const u32 (&v)[VYRE_LOCAL_ROUND],
                                             const u64 (&row)[VYRE_LOCAL_ROUND], u32 from) {
    u32 mask[VYRE_LOCAL_ROUND];
    u32 total = 0;
#pragma unroll
    for (u32 j = 0; j < VYRE_LOCAL_ROUND; ++j) {
        mask[j] = __ballot_sync(VYRE_FULL_MASK, claimed[j]);
        total += __popc(mask[j]);
    }
    LOCAL_TIMING_STEP(LOCAL_STEP_BALLOT, total, true);
    if (total == 0) return;
    u32 base = 0;
    if (lane_id() == 0) base = atomicAdd(to.cursor, total);
    base = __shfl_sync(VYRE_FULL_MASK, base, 0);
    LOCAL_TIMING_STEP(LOCAL_STEP_CURSOR, base, true);
    const u32 below = lanes_below();
    u32 at[VYRE_LOCAL_ROUND];
#pragma unroll
    for (u32 j = 0, next = base; j < VYRE_LOCAL_ROUND; next += __popc(mask[j]), ++j) {
        at[j] = next + __popc(mask[j] & below);
        if (claimed[j] && at[j] < VYRE_LOCAL_LIST) {
            to.vertex[at[j]] = v[j];
            to.word[at[j]] = row[j];
            to.parent[at[j]] = from;
            if ((row[j] & 31) != 0) prefetch_l1(a.out_targets + (row[j] >> 5));
        }
    }
    // Positions past the list's end spill, in the same order.
    if (base + total <= VYRE_LOCAL_LIST) return;
    u32 spill[VYRE_LOCAL_ROUND];
    u32 spilled = 0;
#pragma unroll
    for (u32 j = 0; j < VYRE_LOCAL_ROUND; ++j) {
        spill[j] = __ballot_sync(VYRE_FULL_MASK, claimed[j] && at[j] >= VYRE_LOCAL_LIST);
        spilled += __popc(spill[j]);
    }
    const u32 list = (to.run + 1) & 1;
    u32 pos = 0;
    if (lane_id() == 0) pos = atomicAdd(&a.control->next_len[list], spilled);
    pos = __shfl_sync(VYRE_FULL_MASK, pos, 0) - to.spilled_before;
    const FusedRows rows = {(u64*)a.work, a.vertex_count};
#pragma unroll
    for (u32 j = 0; j < VYRE_LOCAL_ROUND; pos += __popc(spill[j]), ++j) {
        if (claimed[j] && at[j] >= VYRE_LOCAL_LIST) {
            const u32 q = pos + __popc(spill[j] & below);
            local_queue(a, to.run + 1)[q] = v[j];
            *rows.slot(list, q) = row[j];
        }
    }
}

// Claim targets `v[j]` (those not VYRE_UNREACHED) for `next_depth`; `old`
// gets each one's depth before (0 where nothing was claimed). ptxas wraps
// each claim in a branch of its own and keeps the loads and claims around
// those branches in source order, so local_expand claims before it loads
// the rows: the other way round, the claims waited for the rows to return
// (docs/BENCHMARKS.md).
__device__ __forceinline__ void local_claims(const VyreArgs& a, const u32 (&v)[VYRE_LOCAL_ROUND],
                                             u32 next_depth, u32 (&old)[VYRE_LOCAL_ROUND]) {
#pragma unroll
    for (u32 j = 0; j < VYRE_LOCAL_ROUND; ++j) {
        old[j] = 0;
        if (v[j] != VYRE_UNREACHED) old[j] = atomicCAS(&a.depth[v[j]], VYRE_UNREACHED, next_depth);
    }
}

// Expand frontier vertex `u` (row `word`; nothing when !valid) for
// `next_depth`: VYRE_LOCAL_ROUND of its edges at a time, their targets
// loaded first, then their claims and rows together. Its edge to `parent`
// (VYRE_UNREACHED where unknown) is skipped: that claim would fail, and on
// a chain it is one claim in two, on a grid one in four. All 32 lanes call it
// together. (Predicating each edge's loads and claim on its degree
// instead of branching measured 30% slower on grids.)
__device__ void local_expand(const VyreArgs& a, const LocalAppend& to, bool valid, u32 u, u64 word,
                             u32 parent, u32 next_depth, LocalEdges& out_edges) {
    const u64 start = word >> 5;
    const u32 degree = valid ? (u32)(word & 31) : 0;
    for (u32 e0 = 0; __ballot_sync(VYRE_FULL_MASK, e0 < degree) != 0; e0 += VYRE_LOCAL_ROUND) {
        u32 v[VYRE_LOCAL_ROUND];
        u64 row[VYRE_LOCAL_ROUND];
        bool claimed[VYRE_LOCAL_ROUND];
#pragma unroll
        for (u32 j = 0; j < VYRE_LOCAL_ROUND; ++j)
            v[j] = e0 + j < degree ? a.out_targets[start + e0 + j] : VYRE_UNREACHED;
        // The edge back to u's parent, which is visited, is not claimed.
#pragma unroll
        for (u32 j = 0; j < VYRE_LOCAL_ROUND; ++j)
            if (v[j] == parent) v[j] = VYRE_UNREACHED;
        LOCAL_TIMING_STEP(LOCAL_STEP_TARGETS, v[0], e0 == 0 && valid);
        u32 old[VYRE_LOCAL_ROUND];
        local_claims(a, v, next_depth, old);
#pragma unroll
        for (u32 j = 0; j < VYRE_LOCAL_ROUND; ++j) {
            row[j] = 0;
            if (v[j] != VYRE_UNREACHED) {
                const u64 first = a.out_offsets[v[j]];
                row[j] = first << 5 | (a.out_offsets[v[j] + 1] - first);
            }
        }
        LOCAL_TIMING_STEP(LOCAL_STEP_CLAIMS, old[0] + (u32)row[0], e0 == 0 && valid);
#pragma unroll
        for (u32 j = 0; j < VYRE_LOCAL_ROUND; ++j) {
            claimed[j] = old[j] == VYRE_UNREACHED;
            if (claimed[j]) {
                a.parent[v[j]] = u;
                out_edges += row[j] & 31;
            }
        }
        local_append(a, to, claimed, v, row, u);
        LOCAL_TIMING_STEP(LOCAL_STEP_APPENDED, to.cursor[0], e0 == 0 && valid);
    }
}

// Every warp but warp 0, while warp 0 waits at the barrier: bring the rows
// and depths of the targets of the `kept` vertices of this block's next
// list (row words `word`) towards this SM (on a graph numbered by breadth
// it paid over 4 blocks as over 90: docs/BENCHMARKS.md).
__device__ __forceinline__ void local_prefetch_next(const VyreArgs& a, const u64* word, u32 kept) {
    for (u32 i = threadIdx.x - 32; i < kept; i += blockDim.x - 32) {
        const u64 w = word[i];
        for (u32 e = 0; e < (u32)(w & 31); ++e) {
            const u32 v = a.out_targets[(w >> 5) + e];
            prefetch_l1(a.out_offsets + v);
            prefetch_l2(a.depth + v);
        }
    }
}

// Every thread of a launch of one cluster, once its block's level is
// counted: store this block's slot word (`word`, tagged) into every block's
// copy of the slots `slots` (this level's parity), meet at the cluster's
// barrier, and total the words from this block's own copy (every warp
// alike, so no block barrier follows). The barrier orders nothing, so each
// lane reads its word until the tag shows it landed. A block that spilled
// fences first, and the totals of a level with spills fence after: other
// blocks read the spilled vertices.
__device__ LocalTotals local_cluster_barrier(const VyreArgs& a, u64 (*slots)[32], u32 parity,
                                             u64 word, const u64* next_word, u32 next_kept) {
    const u32 blocks = gridDim.x;
    const u32 lane = lane_id();
    const u64 tag = word & VYRE_SLOT_TAG_MASK;
    if (warp_in_block() == 0) {
        if (local_slot_found(word) > VYRE_LOCAL_LIST) __threadfence();
        if (lane < blocks) store_cluster_u64(&slots[parity][blockIdx.x], lane, word);
    }
    cluster_arrive();
    if (warp_in_block() != 0) local_prefetch_next(a, next_word, next_kept);
    cluster_wait();
    u32 found = 0, out_edges = 0;
    if (lane < blocks) {
        const volatile u64* at = &slots[parity][lane];
        u64 w = *at;
        while ((w & VYRE_SLOT_TAG_MASK) != tag) w = *at;
        found = local_slot_found(w);
        out_edges = local_slot_edges(w);
    }
    u32 spills = found - local_kept(found);
    for (u32 o = 16; o > 0; o >>= 1) {
        found += __shfl_xor_sync(VYRE_FULL_MASK, found, o);
        out_edges += __shfl_xor_sync(VYRE_FULL_MASK, out_edges, o);
        spills += __shfl_xor_sync(VYRE_FULL_MASK, spills, o);
    }
    if (spills != 0) fence_acquire();
    return {found, out_edges, spills, blocks, blockIdx.x};
}

// CLUSTERED: a launch of one cluster (vyre_fused_cluster), whose levels
// meet at the cluster's barrier with the slots in every block's shared
// memory, and which no block leaves. A template parameter, not a run-time
// test, so that vyre_fused carries none of its code or registers.
template <bool CLUSTERED>
__device__ void fused_local(const VyreArgs& a) {
    __shared__ u32 list_vertex[2][VYRE_LOCAL_LIST];
    __shared__ u64 list_word[2][VYRE_LOCAL_LIST];
    __shared__ u32 list_parent[2][VYRE_LOCAL_LIST];
    // Per list: this block's appends to it (its cursor) and their
    // out-edges, in the level that fills it.
    __shared__ u32 found[2];
    __shared__ LocalEdges found_edges[2];
    __shared__ LocalTotals level_totals;
    // The host aborted the launch, or this block found nothing and leaves.
    __shared__ u32 leave;
    u64 (*cluster_slots)[32] = CLUSTERED ? cluster_slot_words() : nullptr;
    const u32 width = blockDim.x;
    const u32 t = threadIdx.x;
    const u32 blocks = gridDim.x;
    const FusedRows rows = {(u64*)a.work, a.vertex_count};
    u32 len = load_volatile(&a.control->cur_len);
    u64 examined = load_volatile(&a.control->cur_edges);
    // This block's list, and the vertices every block shares out: the
    // launch's frontier, then each level's spilled ones.
    u32 kept = 0;
    u32 pooled = len;
    // Spills into each list before the running level (the list's cursor).
    u32 spilled_before_0 = 0, spilled_before_1 = 0;
    // Warp 0's bits of the blocks that left (local_arrivals), and the blocks
    // the pooled vertices are shared out to, and this block's place.
    u32 gone = 0;
    u32 sharers = blocks, share = blockIdx.x;
    u32 run = 0;
    LocalTotals total = {0, 0, 0};
    LocalTiming timing;
    local_timing_begin(timing);
    if (t < 2) {
        found[t] = 0;
        found_edges[t] = 0;
    }
    if constexpr (CLUSTERED) {
        // Every block has started (and may be stored into) once all arrive.
        cluster_arrive();
        cluster_wait();
    } else if (blocks > 1) {
        // The slots hold whatever the work array held: each block clears its
        // own before any block polls.
        if (t < 2) *local_slot(local_slots(a, t), blockIdx.x) = 0;
        if (!grid_barrier(a)) return;
    } else {
        __syncthreads();
    }
    for (;;) {
        LOCAL_TIMING_MARK(timing, top);
        LOCAL_TIMING_STEPS_BEGIN();
        const u32 cur = run & 1;
        const u32 next = cur ^ 1;
        const u32 level = a.level + run;
        const LocalAppend to = {list_vertex[next],
                                list_word[next],
                                list_parent[next],
                                &found[next],
                                run,
                                next == 0 ? spilled_before_0 : spilled_before_1};
        // The list this level's successor fills starts empty: its count
        // was last read in the level before (as it ended), and the block
        // barrier after this level's expansion orders this before the
        // appends to it.
        if (t == 0) {
            found[cur] = 0;
            found_edges[cur] = 0;
        }
        LocalEdges out_edges = 0;
        // This block's list first, then its share of the pooled vertices
        // (most levels pool none, and skip share_start's 64-bit division).
        u32 pool_from = 0, mine = kept;
        if (pooled != 0) {
            pool_from = (u32)share_start(pooled, sharers, share);
            mine += (u32)share_start(pooled, sharers, share + 1) - pool_from;
        }
        LOCAL_TIMING_MINE(timing, mine);
        for (u32 base = 0; base < mine; base += width) {
            const u32 i = base + t;
            u32 u = 0, parent = VYRE_UNREACHED;
            u64 word = 0;
            if (i < kept) {
                u = list_vertex[cur][i];
                word = list_word[cur][i];
                parent = list_parent[cur][i];
            } else if (i < mine) {
                const u32 q = pool_from + (i - kept);
                u = __ldcg(local_queue(a, run) + q);
                if (run == 0) {
                    // The launch's first frontier has no row words yet.
                    const u64 start = a.out_offsets[u];
                    word = start << 5 | (a.out_offsets[u + 1] - start);
                } else {
                    word = __ldcg(rows.slot(cur, q));
                }
            }
            local_expand(a, to, i < mine, u, word, parent, level + 1, out_edges);
        }
        for (u32 o = 16; o > 0; o >>= 1) out_edges += __shfl_xor_sync(VYRE_FULL_MASK, out_edges, o);
        if (lane_id() == 0 && out_edges != 0) atomicAdd(&found_edges[next], out_edges);
        // Every append and count of this block's level is in.
        __syncthreads();
        LOCAL_TIMING_MARK(timing, expanded);
        const u32 mine_found = found[next];
        const u32 mine_kept = local_kept(mine_found);
        if constexpr (CLUSTERED) {
            const u64 word = local_slot_word(local_tag(run), mine_found, found_edges[next]);
            total = local_cluster_barrier(a, cluster_slots, cur, word, list_word[next], mine_kept);
        } else if (blocks == 1) {
            if (t == 0) {
                level_totals = {mine_found, found_edges[next], mine_found - mine_kept, 1, 0};
                leave = 0;
            }
        } else if (warp_in_block() != 0) {
            local_prefetch_next(a, list_word[next], mine_kept);
        } else {
            u64* slots = local_slots(a, cur);
            const u64 tag = local_tag(run);
            // A block that found nothing has nothing to expand in any later
            // level (the pooled vertices go to the blocks still in), so it
            // leaves now, and the barrier waits for fewer blocks: on grids,
            // a fifth to two thirds of a launch's blocks end up with nothing
            // (docs/BENCHMARKS.md). Block 0 stays, to log.
            const bool leaving = mine_found == 0 && blockIdx.x != 0;
            if (t == 0) {
                // Spilled vertices are read by other blocks.
                if (mine_found > VYRE_LOCAL_LIST) __threadfence();
                store_relaxed_u64(local_slot(slots, blockIdx.x),
                                  leaving ? tag | VYRE_SLOT_GONE
                                          : local_slot_word(tag, mine_found, found_edges[next]));
            }
            LocalTotals seen = {};
            const bool arrived = leaving || local_arrivals(a, slots, tag, gone, seen);
            LOCAL_TIMING_MARK(timing, arrived);
            if (!leaving && arrived && seen.spilled != 0) fence_acquire();
            if (t == 0) {
                level_totals = seen;
                leave = leaving || !arrived;
            }
        }
        if constexpr (!CLUSTERED) {
            __syncthreads();
            LOCAL_TIMING_LEVEL_END(timing, run);
            LOCAL_TIMING_STEPS_END(timing, run);
            // An aborted launch leaves at once: the host reads nothing of
            // it. A block that found nothing leaves without a ticket of
            // fused_exit, whose last ticket hands the frontier over.
            if (leave) {
                local_timing_leave(run);
                return;
            }
            total = level_totals;
        }
        if (blockIdx.x == 0 && t == 0)
            fused_log_level(a, run, level, len, total.found, total.out_edges, examined);
        const bool stop = fused_stops(a, run, total.found, total.out_edges);
        ++run;
        kept = mine_kept;
        if (stop) break;
        len = total.found;
        examined = total.out_edges;
        pooled = total.spilled;
        if (pooled != 0) {
            sharers = total.sharers;
            share = total.share;
        }
        (next == 0 ? spilled_before_0 : spilled_before_1) += total.spilled;
        // level_totals is rewritten only after the next level's first
        // __syncthreads, which every thread passes after reading it.
    }
    // The frontier to the queue: the spilled vertices are at its start, then
    // each block's list in block order. The blocks still in the launch all
    // take fused_exit's tickets.
    __shared__ u32 kept_before, leavers;
    if (warp_in_block() == 0) {
        u32 before = 0, in = 1, place = 0;
        const u32 last = (run - 1) & 1;
        if constexpr (CLUSTERED) {
            // This block's own copy of the slots; no block left.
            before = local_kept_before([&](u32 b) { return cluster_slots[last][b]; }, 0);
            in = blocks;
        } else if (blocks > 1) {
            const u64* slots = local_slots(a, last);
            before = local_kept_before([&](u32 b) { return load_relaxed_u64(local_slot(slots, b)); }, gone);
            local_sharers(gone, in, place);
        }
        if (t == 0) {
            kept_before = before;
            leavers = in;
        }
    }
    __syncthreads();
    u32* queue = local_queue(a, run);
    const u64 at = (u64)total.spilled + kept_before;
    for (u32 i = t; i < kept; i += width) queue[at + i] = list_vertex[run & 1][i];
    // Block 0's last record and every block's list precede fused_exit.
    __syncthreads();
    local_timing_report(a, run);
    fused_exit(a, run, total.found, total.out_edges, leavers);
}
