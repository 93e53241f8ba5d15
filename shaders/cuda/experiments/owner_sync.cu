// An experiment, loaded by no crate (benches/owner_sync/ runs it): BFS
// levels where every block owns a range of vertices and waits, between
// levels, only for the blocks whose ranges share an edge with its own, never
// for the whole grid.
//
// Block p owns [p * per, (p + 1) * per). Only the owner claims its vertices
// (a bitmap in shared memory), so depth claims never cross blocks. A block
// expanding level L claims its own targets at L + 1 at once and sends every
// other target (with its parent and row) to the owner's channel for parity
// (L + 1) & 1, then publishes, per neighbour, a word `(L + 1) << 32 | count`.
// The owner waits for the words of level L + 1 from all its neighbours, claims
// what they sent, and so knows its whole frontier of level L + 1: every
// vertex of depth L + 1 has a parent of depth L in its own range or a
// neighbour's. Neighbours are never more than one level apart, so two
// parities of channel suffice.
//
// Each block adds `1 << 40 | frontier` to its level's word; the first level
// whose word shows every block and no vertex ends the search, and a block that
// sees it publishes STOP to its neighbours so none waits on it.

// Compiled after ../common.cuh (run.py joins them as vyre-cuda does; the
// emulator check includes it), whose relaxed loads and stores, acquire fence,
// pause and prefetch it uses. Its own orderings: a release store, a relaxed
// add that returns nothing, and a 16-byte entry load that bypasses L1.
#ifndef VYRE_HOST_ORDERING
#define EXTERN extern "C"
#define GLOBAL(p) "l"(__cvta_generic_to_global(p))
__device__ __forceinline__ void store_release_u64(u64* p, u64 v) {
    asm volatile("st.release.gpu.global.u64 [%0], %1;" : : GLOBAL(p), "l"(v) : "memory");
}
__device__ __forceinline__ void red_add_u64(u64* p, u64 v) {
    asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" : : GLOBAL(p), "l"(v) : "memory");
}
#else
#define EXTERN
inline void store_release_u64(u64* p, u64 v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
inline void red_add_u64(u64* p, u64 v) { __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
#endif

struct alignas(16) Entry {
    u32 v, parent, start, degree;
};
__device__ __forceinline__ Entry ld_entry(const Entry* p) {
#ifndef VYRE_HOST_ORDERING
    Entry e;
    asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(e.v), "=r"(e.parent), "=r"(e.start), "=r"(e.degree)
                 : GLOBAL(p)
                 : "memory");
    return e;
#else
    return *p;
#endif
}

// Nanoseconds a polling warp sleeps between polls (0: it spins).
#ifndef PAUSE_NS
#define PAUSE_NS 20u
#endif

// With PROFILE, every block's thread 0 sums the nanoseconds of its levels'
// three phases (expanding, publishing and waiting, claiming what was sent)
// and writes them with its level count to spare[4 * block ..].
#ifdef PROFILE
#define PROFILE_MARK(i)                   \
    do {                                  \
        const u64 now_ = globaltimer_ns(); \
        phase[i] += now_ - mark;     \
        mark = now_;                 \
    } while (0)
#else
#define PROFILE_MARK(i) \
    do {                \
    } while (0)
#endif

#define MAXNB 16u
#ifndef LIST
#define LIST 1024u
#endif
#ifndef CHAN
#define CHAN 512u
#endif
#ifndef BITMAP_WORDS
#define BITMAP_WORDS 4096u
#endif
#ifndef ROUND
#define ROUND 4u
#endif
// Entries a polling lane loads beside its neighbour's word (0: none). Each
// entry then carries its level's tag in the top 16 bits of `degree`, so a
// stale one is told apart, and a level with at most this many entries from a
// neighbour needs no second round trip to read them. (That relies on a
// 16-byte store being seen whole, which PTX does not promise; run.py checks
// every search.)
#ifndef SPECULATE
#define SPECULATE 0u
#endif
#define DEGREE_MASK (SPECULATE != 0 ? 0xffffu : 0xffffffffu)
#define NONE VYRE_UNREACHED
#define STOP 0xffffffffull
#define ARRIVAL (1ull << 40)
#define FOUND_MASK (ARRIVAL - 1)

// Status bits.
#define OVERFLOW_LIST 1u
#define OVERFLOW_CHAN 2u
#define NOT_A_NEIGHBOUR 4u
#define TOO_MANY_LEVELS 8u
#define RANGE_TOO_WIDE 16u
#define DEGREE_TOO_HIGH 32u

struct OwnerArgs {
    const u32* offsets;
    const u32* targets;
    u32* depth;
    u32* parent;
    const u32* nb;       // [blocks * MAXNB], NONE past the last neighbour
    const u32* nb_back;  // [blocks * MAXNB]: this block's index in that neighbour's list
    u64* chan_word;      // [blocks * MAXNB * 2]: incoming words, by sender index and parity
    Entry* chan;         // [blocks * MAXNB * 2 * CHAN]
    u64* level_word;     // [max_levels]
    u32* status;         // [0] status bits, [1] levels of the search
    u64* spare;          // [blocks * 4] with PROFILE
    u32 n, per, source, max_levels;
};

// Block `to`'s channel from its `k`-th neighbour for the vertices of depth
// `depth`: the word announcing them, and their entries.
__device__ __forceinline__ u64* channel_word(const OwnerArgs& a, u32 to, u32 k, u32 depth) {
    return a.chan_word + (u64)(to * MAXNB + k) * 2 + (depth & 1);
}
__device__ __forceinline__ Entry* channel(const OwnerArgs& a, u32 to, u32 k, u32 depth) {
    return a.chan + ((u64)(to * MAXNB + k) * 2 + (depth & 1)) * CHAN;
}

// A block's own vertices: which it has claimed, and its frontier lists (by
// level parity) of those it claimed, with their rows.
struct Owned {
    u32 bitmap[BITMAP_WORDS];
    u32 v[2][LIST], start[2][LIST], degree[2][LIST];
    u32 count[2];
};

// Claim owned vertex `v` (its row: `start`, `degree`) for `depth` with parent
// `u`, unless it was claimed before, and append it to list `list`, bringing
// its targets towards this SM's L1 for the level that expands it.
__device__ __forceinline__ void claim(const OwnerArgs& a, Owned& o, u32 base, u32 list, u32* status,
                                      u32 v, u32 u, u32 start, u32 degree, u32 depth) {
    const u32 b = v - base, bit = 1u << (b & 31);
    if (atomicOr(&o.bitmap[b >> 5], bit) & bit) return;
    a.depth[v] = depth;
    a.parent[v] = u;
    const u32 at = atomicAdd(&o.count[list], 1u);
    if (at >= LIST) {
        atomicOr(status, OVERFLOW_LIST);
        return;
    }
    o.v[list][at] = v;
    o.start[list][at] = start;
    o.degree[list][at] = degree;
    if (degree != 0) prefetch_l1(a.targets + start);
}

EXTERN __global__ void __launch_bounds__(1024) owner_bfs(OwnerArgs a) {
    __shared__ Owned owned;
    __shared__ u32 out_count[MAXNB];
    __shared__ u32 in_count[MAXNB];
    __shared__ u32 in_ready[MAXNB];
    __shared__ Entry staged[MAXNB][SPECULATE != 0 ? SPECULATE : 1];
    __shared__ u32 nbs[MAXNB];
    __shared__ u32 backs[MAXNB];
    __shared__ u32 stop_level;
    __shared__ u32 status;
    const u32 t = threadIdx.x, width = blockDim.x, p = blockIdx.x;
    const u32 base = p * a.per;
    const u32 end = base + a.per < a.n ? base + a.per : a.n;
    if (a.per > BITMAP_WORDS * 32) {
        if (t == 0) atomicOr(&a.status[0], RANGE_TOO_WIDE);
        return;
    }
    for (u32 i = t; i < BITMAP_WORDS; i += width) owned.bitmap[i] = 0;
    if (t < MAXNB) {
        nbs[t] = a.nb[p * MAXNB + t];
        backs[t] = a.nb_back[p * MAXNB + t];
        out_count[t] = 0;
        in_count[t] = 0;
        in_ready[t] = 0;
    }
    if (t < 2) owned.count[t] = 0;
    if (t == 0) {
        stop_level = NONE;
        status = 0;
    }
    __syncthreads();
    u32 nnb = 0;
    while (nnb < MAXNB && nbs[nnb] != NONE) ++nnb;
    if (t == 0 && a.source >= base && a.source < end) {
        const u32 start = a.offsets[a.source];
        claim(a, owned, base, 0, &status, a.source, a.source, start,
              a.offsets[a.source + 1] - start, 0);
    }
    __syncthreads();
    u32 checked = 0;  // (warp 1, lane 0) the first level not known to be nonempty
#ifdef PROFILE
    u64 phase[3] = {0, 0, 0};
    u64 mark = globaltimer_ns();
#endif
    for (u32 level = 0;; ++level) {
        const u32 cur = level & 1, nxt = cur ^ 1;
        const u32 len = owned.count[cur] < LIST ? owned.count[cur] : LIST;
        const u32 next_depth = level + 1;
        if (t == 0) red_add_u64(&a.level_word[level], ARRIVAL | len);
        // Expand: own targets claimed here, the rest sent to their owners.
        for (u32 i = t; i < len; i += width) {
            const u32 u = owned.v[cur][i], s = owned.start[cur][i], d = owned.degree[cur][i];
            for (u32 e0 = 0; e0 < d; e0 += ROUND) {
                u32 v[ROUND], r0[ROUND], r1[ROUND];
#pragma unroll
                for (u32 j = 0; j < ROUND; ++j) v[j] = e0 + j < d ? a.targets[s + e0 + j] : NONE;
#pragma unroll
                for (u32 j = 0; j < ROUND; ++j) {
                    r0[j] = r1[j] = 0;
                    if (v[j] != NONE) {
                        r0[j] = a.offsets[v[j]];
                        r1[j] = a.offsets[v[j] + 1];
                    }
                }
#pragma unroll
                for (u32 j = 0; j < ROUND; ++j) {
                    if (v[j] == NONE) continue;
                    if (v[j] >= base && v[j] < end) {
                        claim(a, owned, base, nxt, &status, v[j], u, r0[j], r1[j] - r0[j],
                              next_depth);
                    } else {
                        const u32 q = v[j] / a.per;
                        u32 k = 0;
                        while (k < nnb && nbs[k] != q) ++k;
                        if (k == nnb) {
                            atomicOr(&status, NOT_A_NEIGHBOUR);
                            continue;
                        }
                        const u32 at = atomicAdd(&out_count[k], 1u);
                        if (at < CHAN) {
                            Entry* slot = channel(a, q, backs[k], next_depth) + at;
                            const u32 degree = r1[j] - r0[j];
                            if (degree > DEGREE_MASK) atomicOr(&status, DEGREE_TOO_HIGH);
                            const u32 tag = SPECULATE != 0 ? (next_depth & 0xffffu) << 16 : 0;
                            *slot = Entry{v[j], u, r0[j], tag | degree};
                        } else {
                            atomicOr(&status, OVERFLOW_CHAN);
                        }
                    }
                }
            }
        }
        // Every claim, append and sent entry of this block's level is in.
        __syncthreads();
        PROFILE_MARK(0);
        if (t < nnb) {
            u64* word = channel_word(a, nbs[t], backs[t], next_depth);
            const u32 c = out_count[t] < CHAN ? out_count[t] : CHAN;
            // Only a word with entries behind it needs them ordered before it.
            if (c != 0)
                store_release_u64(word, (u64)next_depth << 32 | c);
            else
                store_relaxed_u64(word, (u64)next_depth << 32);
        }
        if (t < 32) {
            // Warp 0 waits for the neighbours' words of the next level.
            const u64* word = channel_word(a, p, t, next_depth);
#if SPECULATE != 0
            const Entry* sent = channel(a, p, t, next_depth);
            Entry early[SPECULATE];
#endif
            bool seen = t >= nnb;
            u64 w = 0;
            for (;;) {
                if (!seen) {
                    w = load_relaxed_u64(word);
#if SPECULATE != 0
#pragma unroll
                    for (u32 i = 0; i < SPECULATE; ++i) early[i] = ld_entry(sent + i);
#endif
                    seen = (w >> 32) == next_depth || (w >> 32) == STOP;
                }
                if (__ballot_sync(0xffffffffu, seen) == 0xffffffffu) break;
                if (PAUSE_NS != 0) spin_pause_ns(PAUSE_NS);
            }
            fence_acquire();
            if (t < nnb) {
                const u32 c = (w >> 32) == STOP ? 0 : (u32)w;
                in_count[t] = c;
                bool ready = false;
#if SPECULATE != 0
                ready = c <= SPECULATE;
#pragma unroll
                for (u32 i = 0; i < SPECULATE; ++i)
                    if (i < c) ready = ready && early[i].degree >> 16 == (next_depth & 0xffffu);
#pragma unroll
                for (u32 i = 0; i < SPECULATE; ++i)
                    if (ready && i < c) staged[t][i] = early[i];
#endif
                in_ready[t] = ready;
            }
        } else if (t == 32) {
            // Warp 1 looks for the level that ended the search.
            while (checked <= level) {
                const u64 w = load_relaxed_u64(&a.level_word[checked]);
                if ((w >> 40) < gridDim.x) break;
                if ((w & FOUND_MASK) == 0) {
                    stop_level = checked;
                    break;
                }
                ++checked;
            }
            if (next_depth + 1 >= a.max_levels && stop_level == NONE) {
                atomicOr(&status, TOO_MANY_LEVELS);
                stop_level = next_depth;
            }
        }
        __syncthreads();
        PROFILE_MARK(1);
        if (stop_level != NONE) {
            if (t < nnb) {
                store_relaxed_u64(channel_word(a, nbs[t], backs[t], 0), STOP << 32);
                store_relaxed_u64(channel_word(a, nbs[t], backs[t], 1), STOP << 32);
            }
            if (t == 0) {
                if (status != 0) atomicOr(&a.status[0], status);
                if (p == 0) a.status[1] = stop_level;
#ifdef PROFILE
                if (a.spare != nullptr) {
                    for (u32 i = 0; i < 3; ++i) a.spare[4 * p + i] = phase[i];
                    a.spare[4 * p + 3] = level + 1;
                }
#endif
            }
            return;
        }
        // Claim what the neighbours sent.
        u32 total = 0;
        for (u32 k = 0; k < nnb; ++k) total += in_count[k];
        for (u32 i = t; i < total; i += width) {
            u32 k = 0, at = i;
            while (at >= in_count[k]) at -= in_count[k++];
            const Entry e =
                in_ready[k] ? staged[k][at] : ld_entry(channel(a, p, k, next_depth) + at);
            claim(a, owned, base, nxt, &status, e.v, e.parent, e.start, e.degree & DEGREE_MASK,
                  next_depth);
        }
        if (t < MAXNB) out_count[t] = 0;
        if (t == 0) owned.count[cur] = 0;
        __syncthreads();
        PROFILE_MARK(2);
    }
}
