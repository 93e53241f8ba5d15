// An experiment, loaded by no crate (benches/owner_sync/probe.py runs it):
// the latency of each step a BFS level is built from on this GPU, one step
// waiting for the one before, so that a level's floor can be summed from
// measured parts rather than guessed. Every kernel times `steps` steps with
// the device's nanosecond clock and writes the total to out[0]. A chain
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
