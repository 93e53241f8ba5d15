// An experiment, loaded by no crate (benches/owner_sync/probe.py runs it):
// the latency of each step a BFS level is built from on this GPU, one step
// waiting for the one before, so that a level's floor can be summed from
// measured parts rather than guessed. Every kernel times `steps` steps with
// the device's nanosecond clock and writes block 0's total to out[0]. A chain
// starts where the last launch's ended (out[1], which it then updates), so
// that each launch walks lines the one before did not bring into L2, and no
// step can be left out.
//
// Compiled after ../common.cuh (relaxed loads, the clock, prefetches).

// Loads through L2 only (not L1): next[i] is the index of the next load.
extern "C" __global__ void chase_load(const u32* next, u32 steps, u64* out) {
    if (threadIdx.x != 0) return;
    u32 i = (u32)out[1];
    const u64 t0 = globaltimer_ns();
    for (u32 s = 0; s < steps; ++s) i = __ldcg(next + i);
    out[0] = globaltimer_ns() - t0;
    out[1] = i;
}

// 64-bit atomicMin that changes nothing (every word is below the operand):
// the old word is the index of the next atomic, as a claim's result decides
// a chain's next vertex.
extern "C" __global__ void chase_atomic(u64* next, u32 steps, u64* out) {
    if (threadIdx.x != 0) return;
    u32 i = (u32)out[1];
    const u64 t0 = globaltimer_ns();
    for (u32 s = 0; s < steps; ++s) i = (u32)atomicMin(next + i, ~0ull);
    out[0] = globaltimer_ns() - t0;
    out[1] = i;
}

// A barrier-free chain's hop with nothing else in its loop: a 16-byte entry
// (target, index of the target's entry) loaded through L2, the target's word
// lowered by atomicMin, and the next entry's load waiting for that result.
extern "C" __global__ void chase_hop(const uint4* entries, u64* best, u32 steps, u64* out) {
    if (threadIdx.x != 0) return;
    u32 i = (u32)out[1];
    const u64 t0 = globaltimer_ns();
    for (u32 s = 0; s < steps; ++s) {
        const uint4 e = __ldcg(entries + i);
        const u64 old = atomicMin(best + e.x, ~0ull);
        i = e.y + (u32)(old >> 63);
    }
    out[0] = globaltimer_ns() - t0;
    out[1] = i;
}

__device__ __forceinline__ u32 rank_in_cluster() {
    u32 r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ void cluster_sync(bool release) {
    if (release)
        asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
                     "barrier.cluster.wait.acquire.aligned;" ::: "memory");
    else
        asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\t"
                     "barrier.cluster.wait.aligned;" ::: "memory");
}

// `steps` barriers of every thread of one cluster, with release and
// acquire or (release == 0) with neither.
extern "C" __global__ void cluster_barriers(u32 steps, u32 release, u64* out) {
    const u64 t0 = globaltimer_ns();
    for (u32 s = 0; s < steps; ++s) cluster_sync(release != 0);
    if (threadIdx.x == 0 && rank_in_cluster() == 0) out[0] = globaltimer_ns() - t0;
}

#define PROBE_WORDS 4096u
// Block 0's thread 0 chains atomic adds of 0 on block `target`'s shared
// memory (itself when target is 0): each word holds the next index.
extern "C" __global__ void chase_shared(u32 steps, u32 target, u64* out) {
    __shared__ u32 words[PROBE_WORDS];
    for (u32 k = threadIdx.x; k < PROBE_WORDS; k += blockDim.x) words[k] = (k * 2654435761u + 1u) % PROBE_WORDS;
    cluster_sync(true);
    if (rank_in_cluster() == 0 && threadIdx.x == 0) {
        const u32 base = (u32)__cvta_generic_to_shared(words);
        u32 far;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(far) : "r"(base), "r"(target));
        u32 i = 0;
        const u64 t0 = globaltimer_ns();
        for (u32 s = 0; s < steps; ++s)
            asm volatile("atom.shared::cluster.add.u32 %0, [%1], 0;" : "=r"(i) : "r"(far + 4 * i) : "memory");
        out[0] = globaltimer_ns() - t0;
        out[1] = i;
    }
    cluster_sync(true);
}

// `steps` barriers of a whole cooperative launch through one global
// counter: each block's thread 0 adds 1 with release and polls with relaxed
// loads (acquire fence after) until every block of that barrier has added.
extern "C" __global__ void grid_barriers(u32* counter, u32 steps, u64* out) {
    const u64 t0 = globaltimer_ns();
    for (u32 s = 0; s < steps; ++s) {
        __syncthreads();
        if (threadIdx.x == 0) {
            asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(__cvta_generic_to_global(counter))
                         : "memory");
            const u32 goal = (s + 1) * gridDim.x;
            while (load_relaxed(counter) < goal) {
            }
            fence_acquire();
        }
        __syncthreads();
    }
    if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = globaltimer_ns() - t0;
}

// `steps` barriers of a whole cooperative launch the way fused_local's
// blocks meet: each block's thread 0 stores a word tagged with the step into
// its slot (block b's at slots[b * stride], a parity's slots apart from the
// other's), and warp 0 polls every block's slot at once until all carry the
// tag. `stride` spreads the slots over more L2 sectors and lines, to see
// whether the polls of many blocks on a few lines are what a barrier waits
// for. The slots must be zero when the launch starts.
extern "C" __global__ void slot_barriers(u64* slots, u32 stride, u32 steps, u64* out) {
    const u64 t0 = globaltimer_ns();
    for (u32 s = 0; s < steps; ++s) {
        __syncthreads();
        if (threadIdx.x < 32) {
            u64* base = slots + (u64)(s & 1) * 128 * stride;
            const u64 tag = ((u64)(s % 255u) + 1) << 56;
            if (threadIdx.x == 0) store_relaxed_u64(base + (u64)blockIdx.x * stride, tag | blockIdx.x);
            for (;;) {
                u64 w[4];
#pragma unroll
                for (u32 k = 0; k < 4; ++k) {
                    const u32 b = threadIdx.x + 32 * k;
                    w[k] = b < gridDim.x ? load_relaxed_u64(base + (u64)b * stride) : tag;
                }
                bool seen = true;
#pragma unroll
                for (u32 k = 0; k < 4; ++k) seen = seen && (w[k] >> 56) == (tag >> 56);
                if (__all_sync(0xffffffffu, seen)) break;
            }
        }
    }
    __syncthreads();
    if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = globaltimer_ns() - t0;
}

__device__ __forceinline__ u32 add_relaxed(u32* p, u32 v) {
    u32 old;
    asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], %2;"
                 : "=r"(old)
                 : "l"(__cvta_generic_to_global(p)), "r"(v)
                 : "memory");
    return old;
}

__device__ __forceinline__ void store_relaxed_u32(u32* p, u32 v) {
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(__cvta_generic_to_global(p)), "r"(v) : "memory");
}

// `steps` barriers through one counter with neither release nor acquire
// (grid_barriers without its orderings). With `flag` != 0 only the last
// block to add polls nothing: it stores the step into counter[32] (another
// L2 line), which the others poll instead of the counter.
extern "C" __global__ void count_barriers(u32* counter, u32 flag, u32 steps, u64* out) {
    const u64 t0 = globaltimer_ns();
    for (u32 s = 0; s < steps; ++s) {
        __syncthreads();
        if (threadIdx.x == 0) {
            const u32 goal = (s + 1) * gridDim.x;
            const u32 before = add_relaxed(counter, 1);
            if (flag == 0) {
                while (load_relaxed(counter) < goal) {
                }
            } else if (before + 1 == goal) {
                store_relaxed_u32(counter + 32, s + 1);
            } else {
                while (load_relaxed(counter + 32) < s + 1) {
                }
            }
        }
    }
    __syncthreads();
    if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = globaltimer_ns() - t0;
}

// Rounds of a warp's claims, as fused_local's expansion issues them: each
// warp of the launch, in each of `steps` rounds, issues three
// compare-and-swaps from all 32 lanes (which fail: no word is ~0), then
// votes, and the next round's addresses wait for the results. `pattern`: 0,
// the lanes' words are consecutive (one 128-byte line an instruction, as on
// a graph numbered by breadth); 1, each lane's word on a line of its own;
// 2, lane 0 alone claims; 3, the same as 0 with loads through L2 in place
// of the claims; 4, every lane sets its bit of one word with atomicOr (a
// bitmap's claims of 32 consecutive vertices). Each warp walks its own words, which `words` (32 Mi
// words) holds, so only the pattern differs. Block 0's time, ns a round.
extern "C" __global__ void claim_rounds(u32* words, u32 pattern, u32 steps, u64* out) {
    const u32 lane = threadIdx.x & 31;
    const u32 warp = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const u64 region = (32u << 20) / 1024;  // words a warp walks (up to 1024 warps)
    u32 carry = 0;
    const u64 t0 = globaltimer_ns();
    for (u32 s = 0; s < steps; ++s) {
        u32 got[3];
#pragma unroll
        for (u32 j = 0; j < 3; ++j) {
            const u64 slot = (u64)(s * 3 + j) * 32 + lane;
            const u64 at = pattern == 1 ? (slot * 32) % region : slot % region;
            u32* p = words + (u64)warp * region + at + carry;
            if (pattern == 3)
                got[j] = __ldcg(p);
            else if (pattern == 4)
                got[j] = atomicOr(words + (u64)warp * region + (s * 3 + j) % region + carry, 1u << lane);
            else if (pattern == 2 && lane != 0)
                got[j] = 0;
            else
                got[j] = atomicCAS(p, ~0u, s);
        }
        // Never true (no word is ever this), but the next round waits for it.
        carry = __ballot_sync(0xffffffffu, (got[0] ^ got[1] ^ got[2]) == 0x5a5a5a5au);
    }
    __syncthreads();
    if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = globaltimer_ns() - t0;
    if (carry != 0) out[1] = carry;
}
