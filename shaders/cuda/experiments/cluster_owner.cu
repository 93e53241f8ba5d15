// An experiment, loaded by no crate (benches/owner_sync/run.py runs it): a
// whole BFS in one thread-block cluster (compute capability 9.0), where
// claims and frontier hand-offs stay in distributed shared memory and the
// only wait between levels is the cluster's hardware barrier.
//
// Block r of the cluster owns vertices [r * per, (r + 1) * per) (or runs of
// them dealt round robin, with GRAIN): their bits
// of the reached-vertex bitmap live in its shared memory, and it expands
// them. Whoever finds a target claims its bit in the owner's bitmap (a
// shared-memory atomic, remote unless the target is its own) and, if it won,
// appends the target with its row and parent to the owner's next list, so no
// claim and no frontier goes through global memory; depths and parents are
// stored there for the caller only, as the owner expands the vertex. One
// cluster barrier ends each level.
//
// Counts rotate over three slots so that no block waits for another to
// reset one: list L's count is appended to during level L - 1, read as
// level L starts and reset by its owner during level L + 1. A block adds its
// frontier to block 0's tally of the level; every block reads the tally of
// level L - 1 during level L, and the first empty one ends the search at
// the end of the level that saw it, in every block alike.

// With BULK (a JOINED build), the claimer of a vertex also starts an
// asynchronous bulk copy of the vertex's edge entries from global memory
// into the owner's shared memory, tracked by the owner's mbarrier for that
// list: the copy's trip to DRAM overlaps the rest of the level and its
// barrier, and the owner expands the vertex from shared memory, with no
// global load on the level's path. The owner arrives on that mbarrier as the
// level starts (after every claimer's expected bytes were added, which the
// cluster barrier orders) and waits for its phase before reading the
// entries. A vertex whose entries do not fit is expanded from global memory
// as before.

// Compiled after ../common.cuh, whose prefetches it uses.
#ifdef VYRE_HOST_ORDERING
#define EXTERN
struct uint4 {
    u32 x, y, z, w;
};
#else
#define EXTERN extern "C"
#endif

#ifndef LIST
#define LIST 1024u
#endif
#ifndef ROUND
#define ROUND 4u
#endif
// With GRAIN, ids are dealt to the blocks in runs of GRAIN, round robin, not
// in one range each: a graph numbered by breadth has a level's vertices in
// one run of ids, which one range would give to one block. `per` is then
// the bits a block holds (the host rounds it up to whole runs).
#ifdef GRAIN
__device__ __forceinline__ u32 owner_of(u32 v, u32) { return (v / GRAIN) % gridDim.x; }
__device__ __forceinline__ u32 bit_of(u32 v, u32) { return v / (GRAIN * gridDim.x) * GRAIN + v % GRAIN; }
#else
__device__ __forceinline__ u32 owner_of(u32 v, u32 per) { return v / per; }
__device__ __forceinline__ u32 bit_of(u32 v, u32 per) { return v % per; }
#endif
#define NONE VYRE_UNREACHED

// Status bits.
#define OVERFLOW_LIST 1u
#define TOO_MANY_LEVELS 8u
#define RANGE_TOO_WIDE 16u
#define BULK_WAIT_TOO_LONG 32u

#if defined(BULK) && !defined(JOINED)
#error "BULK copies joined edge entries: build it with JOINED"
#endif
// An Entry's degree with this bit holds its edges in the owner's buffer of
// copied entries at `start`.
#define COPIED 0x80000000u
// The most entries one vertex's copy brings, and how long (polls) a block
// waits for its copies before it gives up with BULK_WAIT_TOO_LONG (and
// waits no more in this launch, which comes back wrong).
#define BULK_MAX_DEGREE 256u
#define BULK_MAX_POLLS (1u << 16)

struct ClusterArgs {
    const u32* offsets;
    const u32* targets;
    u32* depth;
    u32* parent;
    u32* status;  // [0] status bits, [1] levels of the search
    const uint4* joined;  // with JOINED: per edge, its target, the target's row start and degree
    u64* spare;           // with PROFILE: [blocks * 8]
    u32 n, per, source, max_levels;
    u32 bitmap_words;  // of dynamic shared memory per block, a multiple of 4
    u32 edge_slots;    // with BULK: copied entries per list, after the bitmap
};

#ifdef JOINED
#define TARGETS(a) (a.joined)
#else
#define TARGETS(a) (a.targets)
#endif

struct alignas(16) Entry {
    u32 v, start, degree, parent;
};

#ifdef VYRE_HOST_ORDERING
// The CPU emulator's cluster (benches/owner_sync/check_cluster.cpp): blocks
// are processes, so each block's "shared memory" (its Lists, then its bitmap
// words) is a slot of emu_cluster_stride bytes in memory every process maps,
// the cluster barrier is a process-shared barrier over every thread, and a
// remote address is a pointer into another block's slot.
typedef uintptr_t ClusterAddr;
inline unsigned char* emu_cluster_base;
inline size_t emu_cluster_stride;
inline pthread_barrier_t* emu_cluster_barrier;
inline u32 cluster_rank() { return blockIdx.x; }
inline ClusterAddr remote(const void* p, u32 rank) {
    const uintptr_t mine = (uintptr_t)(emu_cluster_base + blockIdx.x * emu_cluster_stride);
    return (uintptr_t)p - mine + (uintptr_t)(emu_cluster_base + rank * emu_cluster_stride);
}
inline u32 remote_or(ClusterAddr a, u32 x) {
    return __atomic_fetch_or((u32*)a, x, __ATOMIC_SEQ_CST);
}
inline u32 remote_add(ClusterAddr a, u32 x) {
    return __atomic_fetch_add((u32*)a, x, __ATOMIC_SEQ_CST);
}
inline void remote_red_add(ClusterAddr a, u32 x) {
    __atomic_fetch_add((u32*)a, x, __ATOMIC_RELAXED);
}
inline u32 remote_load(ClusterAddr a) { return __atomic_load_n((u32*)a, __ATOMIC_RELAXED); }
inline void remote_store(ClusterAddr a, const Entry& e) { *(Entry*)a = e; }
inline void cluster_barrier() { pthread_barrier_wait(emu_cluster_barrier); }
// An mbarrier of one expected arrival: `state` is the pending arrival (1 <<
// 40) plus the bytes still expected (signed), and whichever step brings it
// to zero re-arms it and completes the phase.
struct Mbar {
    long long state;
    u32 phase;
};
inline void mbar_step(Mbar* m, long long add) {
    if (__atomic_add_fetch(&m->state, add, __ATOMIC_SEQ_CST) == 0) {
        __atomic_fetch_add(&m->state, 1ll << 40, __ATOMIC_SEQ_CST);
        __atomic_fetch_add(&m->phase, 1u, __ATOMIC_SEQ_CST);
    }
}
inline void mbar_init(Mbar* m) {
    m->state = 1ll << 40;
    m->phase = 0;
}
inline void mbar_init_fence() {}
inline void mbar_arrive(Mbar* m) { mbar_step(m, -(1ll << 40)); }
inline bool mbar_done(Mbar* m, u32 parity) {
    if ((__atomic_load_n(&m->phase, __ATOMIC_SEQ_CST) & 1u) != parity) return true;
    sched_yield();  // more threads than cores: let the one it waits for run
    return false;
}
inline void remote_expect_bytes(ClusterAddr m, u32 bytes) { mbar_step((Mbar*)m, bytes); }
// The copy lands at once; what it exercises is the accounting.
inline void bulk_copy(ClusterAddr dst, const void* src, u32 bytes, ClusterAddr m) {
    memcpy((void*)dst, src, bytes);
    mbar_step((Mbar*)m, -(long long)bytes);
}
#else
typedef u32 ClusterAddr;
__device__ __forceinline__ u32 cluster_rank() {
    u32 r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
// The address of `p` (this block's shared memory) in block `rank`'s.
__device__ __forceinline__ ClusterAddr remote(const void* p, u32 rank) {
    const u32 local = (u32)__cvta_generic_to_shared(p);
    u32 r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(local), "r"(rank));
    return r;
}
// Atomic `op` on a word of a block's shared memory, returning the old value.
#define REMOTE_ATOMIC(name, op)                                           \
    __device__ __forceinline__ u32 name(ClusterAddr addr, u32 x) {       \
        u32 old;                                                          \
        asm volatile("atom.shared::cluster." op " %0, [%1], %2;"          \
                     : "=r"(old)                                          \
                     : "r"(addr), "r"(x)                                  \
                     : "memory");                                         \
        return old;                                                       \
    }
REMOTE_ATOMIC(remote_or, "or.b32")
REMOTE_ATOMIC(remote_add, "add.u32")
__device__ __forceinline__ void remote_red_add(ClusterAddr addr, u32 x) {
    asm volatile("red.shared::cluster.add.u32 [%0], %1;" : : "r"(addr), "r"(x) : "memory");
}
__device__ __forceinline__ u32 remote_load(ClusterAddr addr) {
    u32 x;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(x) : "r"(addr) : "memory");
    return x;
}
__device__ __forceinline__ void remote_store(ClusterAddr addr, Entry e) {
    asm volatile("st.shared::cluster.v4.u32 [%0], {%1, %2, %3, %4};"
                 :
                 : "r"(addr), "r"(e.v), "r"(e.start), "r"(e.degree), "r"(e.parent)
                 : "memory");
}
// Every thread of every block of the cluster; what each wrote to any
// block's shared memory before is seen by all after.
// (RELAXED_ARRIVE, to measure what the release costs, does not promise
// that: run.py's checks are all that stand behind its results.)
__device__ __forceinline__ void cluster_barrier() {
#ifdef RELAXED_ARRIVE
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\t"
#else
    asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
#endif
                 "barrier.cluster.wait.acquire.aligned;"
                 :
                 :
                 : "memory");
}
typedef u64 Mbar;
__device__ __forceinline__ u32 shared_address(const void* p) {
    return (u32)__cvta_generic_to_shared(p);
}
// One expected arrival a phase: the owner's, as the level starts.
__device__ __forceinline__ void mbar_init(Mbar* m) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" : : "r"(shared_address(m)) : "memory");
}
// The initialised mbarriers are seen by the other blocks and by the copies
// after the cluster barrier that follows.
__device__ __forceinline__ void mbar_init_fence() {
    asm volatile("fence.mbarrier_init.release.cluster;" : : : "memory");
}
__device__ __forceinline__ void mbar_arrive(Mbar* m) {
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];"
                 :
                 : "r"(shared_address(m))
                 : "memory");
}
// Whether the phase of parity `parity` has completed; its copies' bytes are
// seen by the thread after it has.
__device__ __forceinline__ bool mbar_done(Mbar* m, u32 parity) {
    u32 done;
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(shared_address(m)), "r"(parity)
        : "memory");
    return done != 0;
}
__device__ __forceinline__ void remote_expect_bytes(ClusterAddr m, u32 bytes) {
    asm volatile("mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [%0], %1;"
                 :
                 : "r"(m), "r"(bytes)
                 : "memory");
}
// `bytes` (a multiple of 16, both ends 16-byte aligned) from global memory
// into a block's shared memory, completing them on its mbarrier `m`.
__device__ __forceinline__ void bulk_copy(ClusterAddr dst, const void* src, u32 bytes, ClusterAddr m) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
        :
        : "r"(dst), "l"(__cvta_generic_to_global(src)), "r"(bytes), "r"(m)
        : "memory");
}

#endif

struct Lists {
    Entry entry[2][LIST];  // list L in entry[L & 1]
    u32 count[3];          // list L's in count[L % 3]
    u32 tally[3];          // block 0: frontier of level L in tally[L % 3]
    u32 stop;              // the level that ended the search, or NONE
    u32 stop_after;        // the loop's level after whose barrier the block stops, or NONE
    u32 status;
    u32 edge_count[3];     // with BULK: list L's copied entries in edge_count[L % 3]
    Mbar copied[2];        // with BULK: list L's copies complete on copied[L & 1]
};

EXTERN __global__ void __launch_bounds__(1024) cluster_bfs(ClusterArgs a) {
    const u32 t = threadIdx.x, width = blockDim.x, r = cluster_rank();
#ifdef VYRE_HOST_ORDERING
    Lists& lists = *(Lists*)(emu_cluster_base + r * emu_cluster_stride);
    u32* bitmap = (u32*)(&lists + 1);
#else
    extern __shared__ uint4 dynamic_shared[];
    u32* bitmap = (u32*)dynamic_shared;
    __shared__ Lists lists;
#endif
#ifdef BULK
    // Copied entries of list L in copies[(L & 1) * edge_slots ..].
    uint4* copies = (uint4*)(bitmap + a.bitmap_words);
#endif
    for (u32 i = t; i < a.bitmap_words; i += width) bitmap[i] = 0;
    if (t < 3) lists.count[t] = lists.tally[t] = 0;
#ifdef BULK
    if (t < 3) lists.edge_count[t] = 0;
    if (t == 0) {
        mbar_init(&lists.copied[0]);
        mbar_init(&lists.copied[1]);
        mbar_init_fence();
    }
#endif
    __syncthreads();
    if (t == 0) {
        lists.stop = lists.stop_after = NONE;
        lists.status = a.per > a.bitmap_words * 32 ? RANGE_TOO_WIDE : 0;
        if (owner_of(a.source, a.per) == r) {
            const u32 s = bit_of(a.source, a.per);
            bitmap[s >> 5] = 1u << (s & 31);
            const u32 start = a.offsets[a.source];
            lists.entry[0][0] = Entry{a.source, start, a.offsets[a.source + 1] - start, a.source};
            lists.count[0] = 1;
#ifdef STORE_AT_CLAIM
            // Nothing claims the source, so it is stored here.
            a.depth[a.source] = 0;
            a.parent[a.source] = a.source;
#endif
        }
    }
    cluster_barrier();
#ifdef PROFILE
    // Thread 0's nanoseconds a level expanding (its warp's share) and at
    // the barrier, summed over the levels; and over the levels where it had
    // a vertex, from the level's start until its first edges' rows and
    // claims had returned.
    u64 phase[3] = {0, 0, 0}, worked = 0;
    u64 mark = globaltimer_ns();
#endif
    for (u32 level = 0;; ++level) {
        const u32 len_all = lists.count[level % 3];
        const u32 len = len_all < LIST ? len_all : LIST;
        const u32 next_depth = level + 1, nxt = next_depth & 1;
        if (t == 0) {
            if (len_all != 0) remote_red_add(remote(&lists.tally[level % 3], 0), len_all);
            lists.count[(level + 2) % 3] = 0;
            if (r == 0) lists.tally[(level + 1) % 3] = 0;
            if (len_all > LIST) lists.status |= OVERFLOW_LIST;
        }
#ifdef BULK
        if (t == 0) {
            lists.edge_count[(level + 2) % 3] = 0;
            mbar_arrive(&lists.copied[level & 1]);
        }
        // Every thread waits for the list's copies (the phase completes once
        // thread 0 has arrived and every expected byte has landed).
        {
            const u32 parity = (level >> 1) & 1;
            u32 polls = (lists.status & BULK_WAIT_TOO_LONG) != 0 ? BULK_MAX_POLLS : 0;
            while (polls < BULK_MAX_POLLS && !mbar_done(&lists.copied[level & 1], parity)) ++polls;
            if (polls == BULK_MAX_POLLS) atomicOr(&lists.status, BULK_WAIT_TOO_LONG);
        }
#endif
        // Loaded now, looked at after the expansion: the load's round trip
        // overlaps it.
        u32 tally_before = 1;
        if (t == 32 && level > 0)
            tally_before = remote_load(remote(&lists.tally[(level - 1) % 3], 0));
        // Lanes walk the list in step, so that a warp's appends to this
        // block's list take one shared atomic.
        for (u32 i0 = 0; i0 < len; i0 += width) {
            const u32 i = i0 + t;
            Entry cur = i < len ? lists.entry[level & 1][i] : Entry{NONE, 0, 0, 0};
#ifdef JOINED
            const uint4* edges = a.joined;
#endif
#ifdef BULK
            if ((cur.degree & COPIED) != 0) {
                edges = copies + (level & 1) * a.edge_slots;
                cur.degree &= ~COPIED;
            }
#endif
#ifndef STORE_AT_CLAIM
            // Stored as the vertex is expanded, a level after its claim: the
            // barrier's release waits for a block's global stores, and these
            // are on their way while the level's loads are.
            if (i < len) {
                a.depth[cur.v] = level;
                a.parent[cur.v] = cur.parent;
            }
#endif
            for (u32 e0 = 0; __ballot_sync(VYRE_FULL_MASK, e0 < cur.degree) != 0; e0 += ROUND) {
                u32 v[ROUND], r0[ROUND], r1[ROUND], old[ROUND], bit[ROUND], owner[ROUND];
#pragma unroll
                for (u32 j = 0; j < ROUND; ++j) {
                    v[j] = NONE;
                    r0[j] = r1[j] = 0;
                    if (e0 + j >= cur.degree) continue;
#ifdef JOINED
                    // The edge's entry carries its target's row: one load, not two.
                    const uint4 x = edges[cur.start + e0 + j];
                    v[j] = x.x;
                    r0[j] = x.y;
                    r1[j] = x.y + x.z;
#else
                    v[j] = a.targets[cur.start + e0 + j];
#endif
                }
                // Rows and claims together: neither waits for the other.
#pragma unroll
                for (u32 j = 0; j < ROUND; ++j) {
                    old[j] = bit[j] = 1;
                    owner[j] = r;
                    if (v[j] == NONE) continue;
#ifndef JOINED
                    r0[j] = a.offsets[v[j]];
                    r1[j] = a.offsets[v[j] + 1];
#endif
                    owner[j] = owner_of(v[j], a.per);
                    const u32 b = bit_of(v[j], a.per);
                    bit[j] = 1u << (b & 31);
                    if (owner[j] == r)
                        old[j] = atomicOr(&bitmap[b >> 5], bit[j]);
                    else
                        old[j] = remote_or(remote(&bitmap[b >> 5], owner[j]), bit[j]);
                }
#ifdef PROFILE
                if (t == 0 && i0 == 0 && e0 == 0 && cur.degree != 0) {
                    // A branch on every returned word, so the clock is read
                    // after they are back, not when the loads were issued.
                    u32 all = 0;
#pragma unroll
                    for (u32 j = 0; j < ROUND; ++j) all ^= old[j] ^ r0[j] ^ r1[j];
                    if (all != 0x9e3779b9u) {
                        phase[2] += globaltimer_ns() - mark;
                        ++worked;
                    }
                }
#endif
#pragma unroll
                for (u32 j = 0; j < ROUND; ++j) {
                    const bool won = (old[j] & bit[j]) == 0;
                    Entry e{v[j], r0[j], r1[j] - r0[j], cur.v};
#ifdef BULK
                    // Room in the owner's buffer for the won vertex's
                    // entries; asked for before the list slot, and used
                    // after it is asked for, so the round trips overlap.
                    u32 slot = NONE;
                    if (won && e.degree != 0 && e.degree <= BULK_MAX_DEGREE) {
                        u32* room = &lists.edge_count[next_depth % 3];
                        slot = owner[j] == r ? atomicAdd(room, e.degree)
                                             : remote_add(remote(room, owner[j]), e.degree);
                    }
                    // Starts the copy into block `own`'s buffer and points
                    // the entry at it, if it fits.
                    const auto copy_to = [&](u32 own) {
                        if (slot == NONE || slot + e.degree > a.edge_slots) return;
                        const ClusterAddr m = remote(&lists.copied[nxt], own);
                        remote_expect_bytes(m, e.degree * 16u);
                        bulk_copy(remote(copies + nxt * a.edge_slots + slot, own), a.joined + e.start,
                                  e.degree * 16u, m);
                        e.start = slot;
                        e.degree |= COPIED;
                    };
#endif
#ifdef STORE_AT_CLAIM
                    if (won) {
                        a.depth[v[j]] = next_depth;
                        a.parent[v[j]] = cur.v;
                    }
#endif
                    const u32 mine = __ballot_sync(VYRE_FULL_MASK, won && owner[j] == r);
                    if (mine != 0) {
                        const u32 at = warp_slot(mine, &lists.count[next_depth % 3]);
                        if (won && owner[j] == r && at < LIST) {
#ifdef BULK
                            copy_to(r);
#endif
                            // A copied vertex's entries are on their way already.
                            if (e.degree != 0 && (e.degree & COPIED) == 0)
                                prefetch_l1(TARGETS(a) + e.start);
                            lists.entry[nxt][at] = e;
                        }
                    }
                    if (won && owner[j] != r) {
                        const ClusterAddr to = remote(&lists.count[next_depth % 3], owner[j]);
                        const u32 at = remote_add(to, 1u);
#ifdef BULK
                        if (at < LIST) copy_to(owner[j]);
#endif
                        if (e.degree != 0 && (e.degree & COPIED) == 0) prefetch_l2(TARGETS(a) + e.start);
                        if (at < LIST) remote_store(remote(&lists.entry[nxt][at], owner[j]), e);
                    }
                }
            }
        }
        if (t == 32 && tally_before == 0) {
            lists.stop = level - 1;
            lists.stop_after = level;
        }
        if (t == 0 && next_depth >= a.max_levels) {
            lists.status |= TOO_MANY_LEVELS;
            if (lists.stop == NONE) lists.stop = next_depth;
            lists.stop_after = level;
        }
#ifdef PROFILE
        if (t == 0) {
            const u64 now = globaltimer_ns();
            phase[0] += now - mark;
            mark = now;
        }
#endif
        cluster_barrier();
#ifdef PROFILE
        if (t == 0) {
            const u64 now = globaltimer_ns();
            phase[1] += now - mark;
            mark = now;
            if (lists.stop_after <= level) {
                a.spare[8 * r] = phase[0];
                a.spare[8 * r + 1] = phase[1];
                a.spare[8 * r + 2] = phase[2];
                a.spare[8 * r + 3] = level + 1;
                a.spare[8 * r + 4] = worked;
            }
        }
#endif
        // Written during a level, read after its barrier: a thread still
        // reading the last level's flag may see the next level's write, so
        // the flag names the level it ends.
        if (lists.stop_after <= level) break;
    }
    if (t == 0) {
        if (lists.status != 0) atomicOr(&a.status[0], lists.status);
        if (r == 0) a.status[1] = lists.stop;
    }
}
