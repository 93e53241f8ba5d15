// An experiment, loaded by no crate (benches/owner_sync/run.py runs it): a
// whole BFS with no barrier between levels, to measure what a level costs
// when nothing waits for a level to end.
//
// Each vertex holds one 64-bit word, depth << 32 | parent, lowered with
// atomicMin: a claim wins when it lowers the depth. Every lane works on its
// own chain: it expands a vertex, keeps the first target it won as its next
// vertex (no hand-off, so a chain costs one edge read and one claim a hop)
// and pushes any other target it won to a global queue, where idle lanes
// wait on tickets (slot numbers handed out in order). A vertex reached first
// by a longer path is claimed again by the shorter one and expanded again,
// so the search ends exact: every final word's depth is the vertex's
// distance and its parent held one less when it made the claim (a parent
// whose depth later fell would have claimed again with the smaller depth).
//
// One 64-bit counter, pushed << 32 | finished, counts items pushed (the
// source is the first) and chains ended; a warp adds both of a round with
// one atomic, so the counter never shows an item finished before the items
// it pushed, and the search is over when the two halves are equal. Every
// lane then turns the words into depths, parents and the level count.
//
// Each edge entry holds its target's row (JOINED layout of cluster_owner.cu:
// target, row start, degree), so a hop needs no offsets read; the entries of
// every target tried are prefetched into L2 beside the claim.

// Compiled after ../common.cuh (warp sums, relaxed loads, pauses).
#ifdef VYRE_HOST_ORDERING
#define EXTERN
struct uint4 {
    u32 x, y, z, w;
};
inline void store_release_u64(u64* p, u64 v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
inline u64 add_counter(u64* p, u64 v) { return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL); }
#ifdef RELAXED_COUNT
inline u64 add_release(u64* p, u64 v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
#else
inline u64 add_release(u64* p, u64 v) { return __atomic_fetch_add(p, v, __ATOMIC_RELEASE); }
#endif
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
__device__ __forceinline__ void store_release_u64(u64* p, u64 v) {
    asm volatile("st.release.gpu.global.u64 [%0], %1;"
                 :
                 : "l"(__cvta_generic_to_global(p)), "l"(v)
                 : "memory");
}
// The counter's adds. add_counter has release, so that the claims a warp
// made before adding its round reach the L2 before the counter can say the
// search is over, and acquire; add_release (async_lean_bfs) has release
// only, since nothing after it reads what others published (an acquire also
// empties the SM's L1). RELAXED_COUNT makes both relaxed, as a measure.
#ifdef RELAXED_COUNT
#define COUNTER_ORDER(order) "relaxed"
#else
#define COUNTER_ORDER(order) order
#endif
#define COUNTER_ADD(name, order)                                                 \
    __device__ __forceinline__ u64 name(u64* p, u64 v) {                        \
        u64 old;                                                                \
        asm volatile("atom." COUNTER_ORDER(order) ".gpu.global.add.u64 %0, [%1], %2;" \
                     : "=l"(old)                                                \
                     : "l"(__cvta_generic_to_global(p)), "l"(v)                 \
                     : "memory");                                               \
        return old;                                                             \
    }
COUNTER_ADD(add_counter, "acq_rel")
COUNTER_ADD(add_release, "release")
// async_lean_bfs's queue slots: both words in one 16-byte access, with no
// ordering, since the reader looks at them together.
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
// async_lean_bfs only: queues (and counters) the lanes share, at most one a
// block. Block b takes items from queue b % queues, and a target won goes to
// queue target % queues, so that no one counter takes every hop's add. With
// one, a lane's pushes and its chain's end share one add, as in async_bfs.
#ifndef SHARDS
#define SHARDS 1u
#endif
// u64 words between two queues' counters (each on lines of its own).
#define SHARD_WORDS 32u

struct AsyncArgs {
    const uint4* joined;  // per edge: its target, the target's row start and degree
    u64* best;            // per vertex: depth << 32 | parent; EMPTY unreached
    u64* slots;           // queue: per slot, depth << 32 | vertex, then start << 32 | degree
    u64* counter;         // per queue k, at SHARD_WORDS k: [0] pushed << 32 | finished; [16] tickets
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

// PROFILE builds of async_lean_bfs: the SM's cycle counter, read only once
// `after` is in (the load or atomic that produced it has come back).
#ifdef VYRE_HOST_ORDERING
inline u64 stamp(u32) { return globaltimer_ns(); }
#else
__device__ __forceinline__ u64 stamp(u32 after) {
    u64 t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : "r"(after) : "memory");
    return t;
}
#endif
// Where PROFILE sums go, in counter[]: hops, then the cycles of a hop's
// parts (loop and vote since the last hop, the entries' load, the claims,
// the pushes and the count).
#define PROFILE_AT 24u

// Whether queue slot `at` lies past the queue's end, which is then flagged.
__device__ __forceinline__ bool past_queue(const AsyncArgs& a, u64 at) {
    if (at < a.capacity) return false;
    atomicOr(&a.status[0], QUEUE_FULL);
    return true;
}
// Writes `e` (a target won at `depth`) into queue slot `at`; the slot's first
// word goes last, with release, as consumers poll it.
__device__ __forceinline__ void put(const AsyncArgs& a, u64 at, const uint4& e, u32 depth) {
    if (past_queue(a, at)) return;
    store_relaxed_u64(&a.slots[2 * at + 1], packed(e.y, e.z));
    store_release_u64(&a.slots[2 * at], packed(depth, e.x));
}
// The same, as async_lean_bfs writes a slot: one 16-byte store, no fence.
__device__ __forceinline__ void put_whole(const AsyncArgs& a, u64 at, const uint4& e, u32 depth) {
    if (!past_queue(a, at)) store_slot(&a.slots[2 * at], packed(depth, e.x), packed(e.y, e.z));
}

// Every lane, once the search is over: the words as depths and parents,
// and the level count.
__device__ __forceinline__ void finish(const AsyncArgs& a) {
    const u32 lane = lane_id();
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

// extra[k] with k known only at run time, by unrolled selects, so that a
// lane's buffered targets stay in registers rather than in a stack frame.
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

// Loads the entries [first, first + 4) of `it`'s row (those it has).
__device__ __forceinline__ void load_chunk(const AsyncArgs& a, const Item& it, u32 first, uint4 (&e)[4]) {
#pragma unroll
    for (u32 j = 0; j < 4; ++j)
        if (first + j < it.degree) e[j] = a.joined[it.start + first + j];
}
// Claims their targets with `offer`, keeping each old word, and prefetches
// each target's own entries into L2 for the hop after.
__device__ __forceinline__ void claim_chunk(const AsyncArgs& a, const Item& it, u32 first, u64 offer,
                                            const uint4 (&e)[4], u64 (&old)[4]) {
#pragma unroll
    for (u32 j = 0; j < 4; ++j)
        if (first + j < it.degree) {
            old[j] = atomicMin(&a.best[e[j].x], offer);
            prefetch_l2(&a.joined[e[j].y]);
        }
}
// Files a target won: kept as the chain's next vertex if it is the first,
// else buffered while there is room. True when it must be pushed at once.
__device__ __forceinline__ bool file_won(const uint4& e, bool& kept, uint4& keep, uint4 (&extra)[EXTRA],
                                         u32& buffered) {
    if (!kept) {
        kept = true;
        keep = e;
        return false;
    }
    if (buffered < EXTRA) {
        set_extra(extra, buffered++, e);
        return false;
    }
    return true;
}

// Whether every item pushed has finished. With one counter, its halves are
// equal. With several, each is read twice: the counts only grow, so two
// equal reads of every one mean each held its value at the moment between
// the two passes, and that moment's totals decide (the four-counter method).
__device__ __forceinline__ bool counts_balanced(const AsyncArgs& a) {
    if (SHARDS == 1) {
        const u64 c = load_relaxed_u64(a.counter);
        return (u32)(c >> 32) == (u32)c;
    }
    u64 first[SHARDS];
    u64 pushed = 0, finished = 0;
#pragma unroll
    for (u32 k = 0; k < SHARDS; ++k) first[k] = load_relaxed_u64(a.counter + SHARD_WORDS * k);
    bool steady = true;
#pragma unroll
    for (u32 k = 0; k < SHARDS; ++k) {
        steady = steady && load_relaxed_u64(a.counter + SHARD_WORDS * k) == first[k];
        pushed += first[k] >> 32;
        finished += (u32)first[k];
    }
    return steady && pushed == finished;
}

// Whether a warp that had nothing to do this round may stop: it pauses and,
// every LOOK_EVERY such rounds, lane 0 looks whether the counts balance or a
// status bit is set, for the whole warp.
__device__ __forceinline__ bool search_over(const AsyncArgs& a, u32& idle_rounds) {
    spin_pause_ns(PAUSE_NS);
    bool over = false;
    if (++idle_rounds % LOOK_EVERY == 0 && lane_id() == 0)
        over = counts_balanced(a) || load_relaxed(&a.status[0]) != 0;
    return __shfl_sync(VYRE_FULL_MASK, over, 0);
}

// Queues in use: no more than blocks, so that every queue has takers (one,
// known at compile time, when SHARDS is 1).
__device__ __forceinline__ u32 queues() {
    return SHARDS == 1u ? 1u : SHARDS < gridDim.x ? SHARDS : gridDim.x;
}
// Queue `k`'s counter.
__device__ __forceinline__ u64* shard_counter(const AsyncArgs& a, u32 k) {
    return a.counter + SHARD_WORDS * k;
}
// Slot `at` of queue `k`, whose part of the slots holds `per` (the queue cut
// into equal parts, one for each queue in use); past its part, a slot that
// put_whole flags, whatever the queue.
__device__ __forceinline__ u64 shard_slot(const AsyncArgs& a, u64 per, u32 k, u64 at) {
    return at < per ? k * per + at : a.capacity;
}
// Pushes `e`, won at `depth`, to its queue with an add of its own.
__device__ __forceinline__ void push_sharded(const AsyncArgs& a, u64 per, const uint4& e, u32 depth) {
    const u32 k = e.x % queues();
    const u64 at = add_release(shard_counter(a, k), 1ull << 32) >> 32;
    put_whole(a, shard_slot(a, per, k, at), e, depth);
}

// Whether a warp has used up its rounds (TOO_MANY_ROUNDS), so that no launch
// hangs.
__device__ __forceinline__ bool out_of_rounds(const AsyncArgs& a, u32 round) {
    if (round != a.max_rounds) return false;
    if (lane_id() == 0) atomicOr(&a.status[0], TOO_MANY_ROUNDS);
    return true;
}

EXTERN __global__ void async_bfs(AsyncArgs a) {
    const u32 lane = lane_id();
    u64* counter = a.counter;
    u32* tickets = (u32*)(a.counter + 16);
    bool has = false, queued = false;
    Item it{0, 0, 0, 0};
    u64 ticket = EMPTY;
    u32 idle_rounds = 0;
    for (u32 round = 0;; ++round) {
        if (out_of_rounds(a, round)) break;
        // Tickets for lanes with neither a chain nor a ticket.
        const bool wants = !has && ticket == EMPTY;
        const u32 need = __ballot_sync(VYRE_FULL_MASK, wants);
        if (need != 0) {
            const u32 leader = __ffs(need) - 1;
            u32 base = 0;
            if (lane == leader) base = atomicAdd(tickets, (u32)__popc(need));
            base = __shfl_sync(VYRE_FULL_MASK, base, leader);
            if (wants) ticket = base + (u32)__popc(need & lanes_below());
        }
        // A ticketed lane looks at its slot once a round.
        if (ticket != EMPTY && ticket < a.capacity) {
            const u64 head = load_relaxed_u64(&a.slots[2 * ticket]);
            if (head != EMPTY) {
                fence_acquire();
                const u64 row = load_relaxed_u64(&a.slots[2 * ticket + 1]);
                it = Item{(u32)head, (u32)(head >> 32), (u32)(row >> 32), (u32)row};
                has = queued = true;
                ticket = EMPTY;
            }
        }
        // A queued vertex since claimed by a shorter path is stale.
        bool ended = false;
        if (has && queued && (u32)(load_relaxed_u64(&a.best[it.v]) >> 32) < it.depth)
            has = false, ended = true;
        // Targets won beside the kept one (which is then `it`, of their depth).
        u32 buffered = 0;
        uint4 extra[EXTRA];
        if (has) {
            const u32 next = it.depth + 1;
            const u64 offer = packed(next, it.v);
            bool kept = false;
            uint4 keep{0, 0, 0, 0};
            for (u32 first = 0; first < it.degree; first += 4) {
                uint4 e[4];
                u64 old[4];
                load_chunk(a, it, first, e);
                claim_chunk(a, it, first, offer, e, old);
#pragma unroll
                for (u32 j = 0; j < 4; ++j)
                    if (first + j < it.degree && (u32)(old[j] >> 32) > next &&
                        file_won(e[j], kept, keep, extra, buffered)) {
                        const u64 was = add_counter(counter, 1ull << 32);
                        put(a, was >> 32, e[j], next);
                    }
            }
            queued = false;
            if (kept)
                it = Item{keep.x, next, keep.y, keep.z};
            else
                has = false, ended = true;
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
            const u32 depth = __shfl_sync(VYRE_FULL_MASK, it.depth, from);
            if (buffered > 0 && __popc(givers & lanes_below()) < pairs) --buffered;
            if (takes) {
                it = Item{v, depth, start, degree};
                has = true;
                ended = queued = false;
            }
        }
#endif
        // The round's pushes and ended chains in one count.
        const u32 pushes = warp_inclusive_sum(buffered);
        const u32 ends = __popc(__ballot_sync(VYRE_FULL_MASK, ended));
        const u32 total = __shfl_sync(VYRE_FULL_MASK, pushes, 31);
        __syncwarp();
        u64 was = 0;
        if (lane == 31 && (total | ends) != 0) was = add_counter(counter, packed(total, ends));
        was = __shfl_sync(VYRE_FULL_MASK, was, 31);
#pragma unroll
        for (u32 k = 0; k < EXTRA; ++k)
            if (k < buffered) put(a, (was >> 32) + pushes - buffered + k, get_extra(extra, k), it.depth);
        // A warp with nothing to do pauses, and now and then looks whether
        // the search is over.
        if (__ballot_sync(VYRE_FULL_MASK, has) != 0) {
            idle_rounds = 0;
            continue;
        }
        if (search_over(a, idle_rounds)) break;
    }
    finish(a);
}

// The same search with no warp-wide step in a working lane's round: each lane
// takes its own tickets, and counts its own pushes and its chain's end with
// its own add (release only), only when it has any, so a hop with neither is
// an entries' load, the claims and a vote. A slot is written and read whole,
// with no fence on either side. The warp votes once a round whether any lane
// has work; only a warp with none pauses and, now and then, looks whether the
// search is over (lane 0 looks, so the warp leaves as one).
EXTERN __global__ void async_lean_bfs(AsyncArgs a) {
    bool has = false, queued = false;
    Item it{0, 0, 0, 0};
    u64 ticket = EMPTY;
    u32 idle_rounds = 0;
    const u32 mine = blockIdx.x % queues();
    const u64 per = a.capacity / queues();
    u64* counter = shard_counter(a, mine);
#ifdef PROFILE
    u64 parts[5] = {0, 0, 0, 0, 0}, last = 0;
#endif
    for (u32 round = 0;; ++round) {
        if (out_of_rounds(a, round)) break;
        const bool busy = __any_sync(VYRE_FULL_MASK, has);
        if (busy)
            idle_rounds = 0;
        else if (search_over(a, idle_rounds))
            break;
        if (!has) {
#ifdef POLL_WHEN_IDLE
            // Idle lanes of a busy warp wait, so that their polls never
            // hold up its working lanes; idle warps take the queue.
            if (busy) continue;
#endif
            if (ticket == EMPTY) ticket = atomicAdd((u32*)(counter + 16), 1u);
            if (ticket < per) {
                // Neither word is all ones once written, so a slot with
                // either still EMPTY (not yet written, or torn) is looked
                // at again next round.
                u64 head, row;
                load_slot(&a.slots[2 * shard_slot(a, per, mine, ticket)], head, row);
                if (head != EMPTY && row != EMPTY) {
                    it = Item{(u32)head, (u32)(head >> 32), (u32)(row >> 32), (u32)row};
                    has = queued = true;
                    ticket = EMPTY;
                }
            }
            continue;
        }
#ifdef PROFILE
        const u64 t0 = stamp(0);
        u64 t1 = t0, t2 = t0;
#endif
        // A queued vertex since claimed by a shorter path is stale.
        if (queued && (u32)(load_relaxed_u64(&a.best[it.v]) >> 32) < it.depth) {
            add_release(counter, 1u);
            has = false;
            continue;
        }
        const u32 next = it.depth + 1;
        const u64 offer = packed(next, it.v);
        bool kept = false;
        uint4 keep{0, 0, 0, 0};
        uint4 extra[EXTRA];
        u32 buffered = 0;
        for (u32 first = 0; first < it.degree; first += 4) {
            uint4 e[4];
            u64 old[4];
            load_chunk(a, it, first, e);
#ifdef PROFILE
            if (first == 0) t1 = stamp(e[0].x);
#endif
            claim_chunk(a, it, first, offer, e, old);
#ifdef PROFILE
            if (first == 0) t2 = stamp((u32)old[0]);
#endif
#pragma unroll
            for (u32 j = 0; j < 4; ++j) {
                if (first + j >= it.degree || (u32)(old[j] >> 32) <= next) continue;
                // With several queues, every target won after the kept one
                // goes to its own queue at once.
                if (SHARDS > 1 && kept) {
                    push_sharded(a, per, e[j], next);
                } else if (file_won(e[j], kept, keep, extra, buffered)) {
                    const u64 at = add_release(counter, 1ull << 32);
                    put_whole(a, at >> 32, e[j], next);
                }
            }
        }
        queued = false;
        // The pushes and the chain's end in one add: never an end counted
        // before the items it pushed.
        if (buffered != 0 || !kept) {
            const u64 was = add_release(counter, packed(buffered, kept ? 0u : 1u));
#pragma unroll
            for (u32 k = 0; k < EXTRA; ++k)
                if (k < buffered) put_whole(a, (was >> 32) + k, get_extra(extra, k), next);
        }
        if (kept)
            it = Item{keep.x, next, keep.y, keep.z};
        else
            has = false;
#ifdef PROFILE
        const u64 t3 = stamp(0);
        if (last != 0) parts[1] += t0 - last;
        parts[0] += 1;
        parts[2] += t1 - t0;
        parts[3] += t2 - t1;
        parts[4] += t3 - t2;
        last = has ? t3 : 0;
#endif
    }
#ifdef PROFILE
    if (parts[0] != 0)
        for (u32 k = 0; k < 5; ++k) atomicAdd(&a.counter[PROFILE_AT + k], parts[k]);
#endif
    finish(a);
}
