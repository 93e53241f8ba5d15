// Thread-block clusters (compute capability 9.0): the blocks of one cluster
// are scheduled together, share a hardware barrier, and can store into each
// other's shared memory. fused_local.cu runs a launch of one cluster with
// them (vyre_fused_cluster). The CPU emulator defines its own
// (VYRE_HOST_ORDERING); on older devices, where the backend never launches
// a cluster, each is a trap.
#ifndef VYRE_HOST_ORDERING
#if __CUDA_ARCH__ >= 900
// Blocks in this block's cluster: 1 for a launch without clusters.
__device__ __forceinline__ u32 cluster_blocks() {
    u32 n;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    return n;
}
// Every thread of every block of the cluster arrives, then waits. Arriving
// orders nothing (the words it waits for carry their level's tag), so it
// does not wait for this thread's stores to land.
__device__ __forceinline__ void cluster_arrive() {
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" : : : "memory");
}
__device__ __forceinline__ void cluster_wait() {
    asm volatile("barrier.cluster.wait.aligned;" : : : "memory");
}
// Store `v` into block `rank`'s copy of the shared variable at `p`.
__device__ __forceinline__ void store_cluster_u64(u64* p, u32 rank, u64 v) {
    const u32 local = (u32)__cvta_generic_to_shared(p);
    u32 remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
    asm volatile("st.relaxed.cluster.shared::cluster.u64 [%0], %1;"
                 :
                 : "r"(remote), "l"(v)
                 : "memory");
}
#else
__device__ __forceinline__ u32 cluster_blocks() { return 1; }
__device__ __forceinline__ void cluster_arrive() { __trap(); }
__device__ __forceinline__ void cluster_wait() { __trap(); }
__device__ __forceinline__ void store_cluster_u64(u64*, u32, u64) { __trap(); }
#endif
// This block's barrier words of a cluster launch, per parity a word per
// block of the cluster (at most 32).
__device__ __forceinline__ u64 (*cluster_slot_words())[32] {
    __shared__ u64 words[2][32];
    return words;
}
#endif
