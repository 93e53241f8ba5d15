// An experiment, loaded by no crate (benches/owner_sync/run.py runs it): a
// whole BFS with no barrier between levels, to measure what a level costs
// when nothing waits for a level to end.
//
// Each vertex holds one 64-bit word, depth << 32 | parent, lowered with
// atomicMin: a claim wins when it lowers the depth. Every lane works on its
// own chain: it expands a vertex, keeps the first target it won (the last
// with -DKEEP_LAST: on a grid in row order, a forward one) as its next vertex
// (no hand-off, so a chain costs one edge read and one claim a hop) and
// pushes any other target it won to a global queue, where idle lanes
// wait on tickets (slot numbers handed out in order). A vertex reached first
// by a longer path is claimed again by the shorter one and expanded again,
// so the search ends exact: every final word's depth is the vertex's
// distance and its parent held one less when it made the claim (a parent
// whose depth later fell would have claimed again with the smaller depth).
//
// A round is laid out so that a working lane waits for two round trips, its
// entries' load and its claims: the stale check, a ticketed lane's poll and
// last round's pushes are issued beside the entries' load, and the results
// of the round's two counter adds (slots for its pushes, tickets for lanes
// left idle) are first used in the next round, after its loads are issued.
// A queued item is therefore expanded two rounds after its lane went idle.
//
// One 64-bit counter, pushed << 32 | finished, counts items pushed (the
// source is the first) and chains ended; a warp adds both of a round with
// one atomic, so the counter never shows an item finished before the items
// it pushed, and the search is over when the two halves are equal. Every
// lane then turns the words into depths, parents and the level count.
//
// Each edge entry holds its target's row (JOINED layout of cluster_owner.cu:
// target, row start, degree), so a hop needs no offsets read; the entries of
// every target tried are prefetched into L2 beside the claim. A queue slot is
// two words, depth << 32 | vertex and start << 32 | degree, written by one
// 16-byte store and read by one 16-byte load; neither word is ever all ones
// once written, so a reader that sees either still EMPTY (a torn read) looks
// again next round.

// Compiled after ../common.cuh (warp sums, relaxed loads, pauses).
#ifdef VYRE_HOST_ORDERING
#define EXTERN
struct uint4 {
    u32 x, y, z, w;
};
inline u64 add_counter(u64* p, u64 v) {
#ifdef RELAXED_COUNT
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#else
    return __atomic_fetch_add(p, v, __ATOMIC_RELEASE);
#endif
}
// Two words, as a GPU may see a 16-byte access: not as one. The word a
// reader looks at first is written first, with a yield between, so that
// torn reads happen here too.
inline void store_slot(u64* p, u64 head, u64 row) {
    __atomic_store_n(p, head, __ATOMIC_RELAXED);
    sched_yield();
    __atomic_store_n(p + 1, row, __ATOMIC_RELAXED);
}
inline void load_slot(const u64* p, u64& head, u64& row) {
    head = __atomic_load_n(p, __ATOMIC_RELAXED);
    row = __atomic_load_n(p + 1, __ATOMIC_RELAXED);
}
#else
#define EXTERN extern "C"
// Release: the claims a warp made before adding its round reach the L2
// before the counter can say the search is over. (RELAXED_COUNT measures
// what the release costs; the claims' results are back before the add is
// issued, which is all it then rests on.)
__device__ __forceinline__ u64 add_counter(u64* p, u64 v) {
    u64 old;
#ifdef RELAXED_COUNT
    asm volatile("atom.relaxed.gpu.global.add.u64 %0, [%1], %2;"
                 : "=l"(old)
                 : "l"(__cvta_generic_to_global(p)), "l"(v)
                 : "memory");
#else
    asm volatile("atom.release.gpu.global.add.u64 %0, [%1], %2;"
                 : "=l"(old)
                 : "l"(__cvta_generic_to_global(p)), "l"(v)
                 : "memory");
#endif
    return old;
}
__device__ __forceinline__ void store_slot(u64* p, u64 head, u64 row) {
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};"
                 :
                 : "l"(__cvta_generic_to_global(p)), "l"(head), "l"(row)
                 : "memory");
}
__device__ __forceinline__ void load_slot(const u64* p, u64& head, u64& row) {
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(head), "=l"(row)
                 : "l"(__cvta_generic_to_global(p))
                 : "memory");
}
#endif

#define NONE VYRE_UNREACHED
#define EMPTY 0xffffffffffffffffull
// Status bits: any ends the search.
#define QUEUE_FULL 1u
#define TOO_MANY_ROUNDS 2u
// Targets a lane buffers beyond the one it keeps, to push with its warp's
// round; more go one atomic each.
#ifndef EXTRA
#define EXTRA 3u
#endif
// Pause of a warp with nothing to do, and how many such rounds it lets pass
// between two looks at the counter.
#ifndef PAUSE_NS
#define PAUSE_NS 100u
#endif
#ifndef LOOK_EVERY
#define LOOK_EVERY 8u
#endif

struct AsyncArgs {
    const uint4* joined;  // per edge: its target, the target's row start and degree
    u64* best;            // per vertex: depth << 32 | parent; EMPTY unreached
    u64* slots;           // queue: per slot, depth << 32 | vertex, then start << 32 | degree
    u64* counter;         // [0] pushed << 32 | finished; [16] tickets handed out
    u32* depth;
    u32* parent;
    u32* status;  // [0] status bits, [1] levels of the search
    u32 n, capacity;
    u32 max_rounds;  // a warp's rounds before it gives up (TOO_MANY_ROUNDS), so no launch hangs
};

struct Item {
    u32 v, depth, start, degree;
};

__device__ __forceinline__ u64 packed(u32 high, u32 low) { return ((u64)high << 32) | low; }

// Writes `e` (a target won at `depth`) into queue slot `at`, or flags a full
// queue.
__device__ __forceinline__ void put(const AsyncArgs& a, u64 at, const uint4& e, u32 depth) {
    if (at >= a.capacity) {
        atomicOr(&a.status[0], QUEUE_FULL);
        return;
    }
    store_slot(&a.slots[2 * at], packed(depth, e.x), packed(e.y, e.z));
}

// extra[k] with k known only at run time, by unrolled selects, so that the
// buffer stays in registers rather than in a stack frame.
__device__ __forceinline__ void set_extra(uint4 (&extra)[EXTRA], u32 k, const uint4& e) {
#pragma unroll
    for (u32 i = 0; i < EXTRA; ++i)
        if (i == k) extra[i] = e;
}
__device__ __forceinline__ uint4 get_extra(const uint4 (&extra)[EXTRA], u32 k) {
    uint4 e = extra[0];
#pragma unroll
    for (u32 i = 1; i < EXTRA; ++i)
        if (i == k) e = extra[i];
    return e;
}

EXTERN __global__ void async_bfs(AsyncArgs a) {
    const u32 lane = lane_id();
    u64* counter = a.counter;
    u32* tickets = (u32*)(a.counter + 16);
    bool has = false, queued = false;
    Item it{0, 0, 0, 0};
    u64 ticket = EMPTY;
    // Last round's pushes: `buffered` targets won at `extra_depth`, for the
    // slots after the `below` that lower lanes of the warp pushed, counting
    // from the counter as lane 31's add found it (`pushed_at`).
    uint4 extra[EXTRA];
    u32 buffered = 0, below = 0, extra_depth = 0;
    u64 pushed_at = 0;
    // Last round's askers for a ticket, and the first ticket (in their leader).
    u32 asking = 0, ticket_base = 0;
    u32 idle_rounds = 0;
    for (u32 round = 0;; ++round) {
        if (round == a.max_rounds) {
            if (lane == 0) atomicOr(&a.status[0], TOO_MANY_ROUNDS);
            break;
        }
        // The entries and the stale check of the vertex to expand, first.
        uint4 e[4];
        u64 seen = 0;
        if (has) {
#pragma unroll
            for (u32 j = 0; j < 4; ++j)
                if (j < it.degree) e[j] = a.joined[it.start + j];
            if (queued) seen = load_relaxed_u64(&a.best[it.v]);
        }
        // Last round's pushes into the slots its add handed out.
        const u64 was = __shfl_sync(VYRE_FULL_MASK, pushed_at, 31);
#pragma unroll
        for (u32 k = 0; k < EXTRA; ++k)
            if (k < buffered) put(a, (was >> 32) + below + k, extra[k], extra_depth);
        buffered = 0;
        // Last round's askers take their tickets; a ticketed lane looks at
        // its slot, and takes what it finds after the expansion.
        if (asking != 0) {
            const u32 base = __shfl_sync(VYRE_FULL_MASK, ticket_base, __ffs(asking) - 1);
            if ((asking >> lane) & 1u) ticket = base + (u32)__popc(asking & lanes_below());
        }
        u64 head = EMPTY, row = EMPTY;
        if (ticket != EMPTY && ticket < a.capacity) load_slot(&a.slots[2 * ticket], head, row);
        // A queued vertex since claimed by a shorter path is stale.
        bool ended = false;
        if (has && queued && (u32)(seen >> 32) < it.depth) has = false, ended = true;
        if (has) {
            const u32 next = it.depth + 1;
            const u64 offer = packed(next, it.v);
            bool kept = false;
            uint4 keep{0, 0, 0, 0};
            for (u32 first = 0; first < it.degree; first += 4) {
                u64 old[4];
                if (first != 0) {
#pragma unroll
                    for (u32 j = 0; j < 4; ++j)
                        if (first + j < it.degree) e[j] = a.joined[it.start + first + j];
                }
#pragma unroll
                for (u32 j = 0; j < 4; ++j)
                    if (first + j < it.degree) {
                        old[j] = atomicMin(&a.best[e[j].x], offer);
                        prefetch_l2(&a.joined[e[j].y]);
                    }
#pragma unroll
                for (u32 j = 0; j < 4; ++j) {
                    if (first + j >= it.degree || (u32)(old[j] >> 32) <= next) continue;
                    if (!kept) {
                        kept = true;
                        keep = e[j];
                        continue;
                    }
#ifdef KEEP_LAST
                    const uint4 other = keep;
                    keep = e[j];
#else
                    const uint4 other = e[j];
#endif
                    if (buffered < EXTRA) {
                        set_extra(extra, buffered++, other);
                    } else {
                        const u64 at = add_counter(counter, 1ull << 32);
                        put(a, at >> 32, other, next);
                    }
                }
            }
            queued = false;
            extra_depth = next;
            if (kept)
                it = Item{keep.x, next, keep.y, keep.z};
            else
                has = false, ended = true;
        }
        if (ticket != EMPTY && head != EMPTY && row != EMPTY) {
            it = Item{(u32)head, (u32)(head >> 32), (u32)(row >> 32), (u32)row};
            has = queued = true;
            ticket = EMPTY;
        }
#ifdef SHARE_IN_WARP
        // Lanes whose chain just ended take the targets other lanes of their
        // warp won beside the ones they keep, so those chains start without
        // the queue: the j-th such lane takes the last target of the j-th
        // lane with one, as often as both kinds remain.
        for (u32 k = 0; k < EXTRA; ++k) {
            const u32 takers = __ballot_sync(VYRE_FULL_MASK, ended);
            const u32 givers = __ballot_sync(VYRE_FULL_MASK, buffered > 0);
            const u32 pairs = __popc(takers) < __popc(givers) ? __popc(takers) : __popc(givers);
            if (pairs == 0) break;
            const u32 taker = __popc(takers & lanes_below());
            const bool takes = ended && taker < pairs;
            u32 from = lane;
            if (takes) {
                u32 rest = givers;
                for (u32 i = 0; i < taker; ++i) rest &= rest - 1;
                from = __ffs(rest) - 1;
            }
            const uint4 give = buffered > 0 ? get_extra(extra, buffered - 1) : uint4{0, 0, 0, 0};
            const u32 v = __shfl_sync(VYRE_FULL_MASK, give.x, from);
            const u32 start = __shfl_sync(VYRE_FULL_MASK, give.y, from);
            const u32 degree = __shfl_sync(VYRE_FULL_MASK, give.z, from);
            const u32 depth = __shfl_sync(VYRE_FULL_MASK, extra_depth, from);
            if (buffered > 0 && __popc(givers & lanes_below()) < pairs) --buffered;
            if (takes) {
                it = Item{v, depth, start, degree};
                has = true;
                ended = queued = false;
            }
        }
#endif
        // The round's pushes and ended chains in one add, and tickets for
        // lanes left idle: both results are first used next round.
        const u32 pushes = warp_inclusive_sum(buffered);
        below = pushes - buffered;
        const u32 total = __shfl_sync(VYRE_FULL_MASK, pushes, 31);
        const u32 ends = __popc(__ballot_sync(VYRE_FULL_MASK, ended));
        pushed_at = 0;
        if (lane == 31 && (total | ends) != 0) pushed_at = add_counter(counter, packed(total, ends));
        asking = __ballot_sync(VYRE_FULL_MASK, !has && ticket == EMPTY);
        if (asking != 0 && lane == (u32)__ffs(asking) - 1) ticket_base = atomicAdd(tickets, (u32)__popc(asking));
        // A warp with nothing to do pauses, and now and then looks whether
        // the search is over (never while it holds pushes: the counter
        // counts them as unfinished).
        if (__ballot_sync(VYRE_FULL_MASK, has) != 0) {
            idle_rounds = 0;
            continue;
        }
        spin_pause_ns(PAUSE_NS);
        bool over = false;
        if (++idle_rounds % LOOK_EVERY == 0 && lane == 0) {
            const u64 c = load_relaxed_u64(counter);
            over = (u32)(c >> 32) == (u32)c || load_relaxed(&a.status[0]) != 0;
        }
        if (__shfl_sync(VYRE_FULL_MASK, over, 0)) break;
    }
    // The words as depths and parents, and the level count.
    fence_acquire();
    const u32 lanes = gridDim.x * blockDim.x;
    u32 deepest = 0;
    for (u32 first = (blockIdx.x * blockDim.x + threadIdx.x) & ~31u; first < a.n; first += lanes) {
        const u32 v = first + lane;
        u32 d = NONE;
        if (v < a.n) {
            const u64 w = load_relaxed_u64(&a.best[v]);
            d = w == EMPTY ? NONE : (u32)(w >> 32);
            a.depth[v] = d;
            a.parent[v] = w == EMPTY ? NONE : (u32)w;
        }
        if (d != NONE && d + 1 > deepest) deepest = d + 1;
    }
    deepest = warp_max(deepest);
    if (lane == 0 && deepest != 0) atomicMax(&a.status[1], deepest);
}
