// Just enough of CUDA to run vyre's kernels on a CPU, for checking their
// logic on machines without a GPU (see README.md).
//
// Model: every block of a launch is a forked process, so `__shared__`
// variables (static here) are per block; device memory is one MAP_SHARED
// mapping every block sees; every thread of a block is a std::thread.
// __syncthreads and the warp intrinsics are barriers that also check that
// every thread arrived from the same number of earlier calls: a kernel
// whose threads diverge around them aborts instead of silently pairing up
// different call sites.
#pragma once

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

typedef unsigned int u32;
typedef unsigned long long u64;

struct EmuDim3 {
    u32 x = 0, y = 0, z = 0;
};

inline thread_local EmuDim3 threadIdx;
inline EmuDim3 blockIdx;   // one block per process
inline EmuDim3 blockDim;
inline EmuDim3 gridDim;

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define VYRE_SPIN_PAUSE() sched_yield()

// Dynamic shared memory (extern __shared__ arrays are rewritten to point
// here by run.sh).
alignas(16) inline unsigned char emu_dynamic_smem[64 * 1024];

[[noreturn]] inline void emu_fail(const char* what) {
    std::fprintf(stderr, "EMU FAILURE (block %u thread %u): %s\n", blockIdx.x, threadIdx.x, what);
    std::fflush(stderr);
    _exit(3);
}

// A barrier over `count` threads that checks they all come from the same
// number of previous waits.
struct EmuBarrier {
    pthread_barrier_t bar;
    u64 calls[1024];
    void init(u32 count) { pthread_barrier_init(&bar, nullptr, count); }
};

inline EmuBarrier emu_block_barrier;
inline EmuBarrier emu_warp_barrier[32];
inline u64 emu_warp_values[32][32];
inline thread_local u64 emu_block_calls = 0;
inline thread_local u64 emu_warp_calls = 0;

inline void emu_checked_wait(EmuBarrier& b, u32 slot, u32 count, u64& my_calls, const char* what) {
    b.calls[slot] = ++my_calls;
    pthread_barrier_wait(&b.bar);
    for (u32 i = 0; i < count; ++i) {
        if (b.calls[i] != my_calls) emu_fail(what);
    }
    pthread_barrier_wait(&b.bar);
}

inline void __syncthreads() {
    emu_checked_wait(emu_block_barrier, threadIdx.x, blockDim.x, emu_block_calls,
                     "__syncthreads reached from diverged threads");
}

// Barrier that also counts the threads whose predicate is true.
inline u32 emu_block_flags[1024];
inline int __syncthreads_count(int pred) {
    emu_block_flags[threadIdx.x] = pred ? 1u : 0u;
    __syncthreads();
    u32 count = 0;
    for (u32 i = 0; i < blockDim.x; ++i) count += emu_block_flags[i];
    __syncthreads();
    return (int)count;
}

inline u32 emu_lane() { return threadIdx.x & 31u; }
inline u32 emu_warp() { return threadIdx.x >> 5; }

// Publish `v` from every lane, then return lane `src`'s value.
inline u64 emu_exchange(u64 v, u32 src) {
    const u32 w = emu_warp(), lane = emu_lane();
    EmuBarrier& b = emu_warp_barrier[w];
    emu_warp_values[w][lane] = v;
    b.calls[lane] = ++emu_warp_calls;
    pthread_barrier_wait(&b.bar);
    for (u32 i = 0; i < 32; ++i) {
        if (b.calls[i] != emu_warp_calls) emu_fail("warp intrinsic reached from diverged lanes");
    }
    const u64 r = emu_warp_values[w][src & 31u];
    pthread_barrier_wait(&b.bar);
    return r;
}

inline u32 __ballot_sync(u32 mask, bool pred) {
    if (mask != 0xffffffffu) emu_fail("partial warp mask");
    const u32 w = emu_warp(), lane = emu_lane();
    EmuBarrier& b = emu_warp_barrier[w];
    emu_warp_values[w][lane] = pred ? 1 : 0;
    b.calls[lane] = ++emu_warp_calls;
    pthread_barrier_wait(&b.bar);
    u32 bits = 0;
    for (u32 i = 0; i < 32; ++i) {
        if (b.calls[i] != emu_warp_calls) emu_fail("ballot reached from diverged lanes");
        if (emu_warp_values[w][i]) bits |= 1u << i;
    }
    pthread_barrier_wait(&b.bar);
    return bits;
}

inline bool __any_sync(u32 mask, bool pred) { return __ballot_sync(mask, pred) != 0; }

inline void __syncwarp(u32 mask = 0xffffffffu) {
    if (mask != 0xffffffffu) emu_fail("partial warp mask");
    emu_exchange(0, emu_lane());
}

template <class T>
inline T __shfl_sync(u32 mask, T v, u32 src) {
    if (mask != 0xffffffffu) emu_fail("partial warp mask");
    return (T)emu_exchange((u64)v, src);
}
template <class T>
inline T __shfl_up_sync(u32 mask, T v, u32 d) {
    if (mask != 0xffffffffu) emu_fail("partial warp mask");
    const u32 lane = emu_lane();
    const T r = (T)emu_exchange((u64)v, lane >= d ? lane - d : lane);
    return r;
}
template <class T>
inline T __shfl_down_sync(u32 mask, T v, u32 d) {
    if (mask != 0xffffffffu) emu_fail("partial warp mask");
    const u32 lane = emu_lane();
    return (T)emu_exchange((u64)v, lane + d < 32 ? lane + d : lane);
}
template <class T>
inline T __shfl_xor_sync(u32 mask, T v, u32 m) {
    if (mask != 0xffffffffu) emu_fail("partial warp mask");
    return (T)emu_exchange((u64)v, emu_lane() ^ m);
}

inline int __popc(u32 x) { return __builtin_popcount(x); }
inline int __ffs(u32 x) { return __builtin_ffs((int)x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
template <class T>
inline T __ldg(const T* p) { return *p; }
template <class T>
inline T __ldcg(const T* p) { return *p; }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// The device-scope orderings of common.cuh (VYRE_HOST_ORDERING).
#define VYRE_HOST_ORDERING 1
inline u32 load_relaxed(const u32* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
inline u64 load_relaxed_u64(const u64* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
inline void store_relaxed_u64(u64* p, u64 v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
inline void fence_acquire() { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
inline u32 add_acq_rel(u32* p, u32 v) { return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL); }
inline void spin_pause_ns(u32) { sched_yield(); }
inline void prefetch_l1(const void*) {}
inline void prefetch_l2(const void*) {}
inline u64 globaltimer_ns() {
    return (u64)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
inline u32 load_system(const u32* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

inline u32 atomicAdd(u32* p, u32 v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline u64 atomicAdd(u64* p, u64 v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline u32 atomicOr(u32* p, u32 v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
inline u64 atomicOr(u64* p, u64 v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
inline u32 atomicExch(u32* p, u32 v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
inline u32 atomicCAS(u32* p, u32 expected, u32 desired) {
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return expected;
}
// atomicMin and atomicMax: `v` replaces the word while `replaces(v, old)`.
template <class T, class Replaces>
inline T emu_atomic_replace(T* p, T v, Replaces replaces) {
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (replaces(v, old) &&
           !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    return old;
}
inline u64 atomicMin(u64* p, u64 v) {
    return emu_atomic_replace(p, v, [](u64 a, u64 b) { return a < b; });
}
inline u32 atomicMax(u32* p, u32 v) {
    return emu_atomic_replace(p, v, [](u32 a, u32 b) { return a > b; });
}

// ---- device memory and launches -------------------------------------------

struct EmuDevice {
    unsigned char* base = nullptr;
    size_t size = 0, used = 0;

    void init(size_t bytes) {
        void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            std::perror("mmap");
            std::exit(2);
        }
        base = (unsigned char*)p;
        size = bytes;
    }
    void reset() { used = 0; }
    template <class T>
    T* alloc(size_t count) {
        const size_t bytes = (count * sizeof(T) + 255) & ~size_t(255);
        if (used + bytes > size) {
            std::fprintf(stderr, "emulated device memory exhausted\n");
            std::exit(2);
        }
        T* p = (T*)(base + used);
        // Poison: uninitialised device memory is not zero.
        std::memset(p, 0xA5, bytes);
        used += bytes;
        return p;
    }
};

template <class Args>
inline bool emu_launch_slice(void (*kernel)(Args), u32 first, u32 count, u32 blocks, u32 width,
                             const Args& args, unsigned timeout_s);

// Run kernel(args) on a grid of `blocks` x `width` threads, each block in
// its own process, at most `concurrent` at a time (0: all at once, which a
// cooperative launch needs). Returns false if a block failed or the launch
// timed out (a hang).
template <class Args>
inline bool emu_launch(void (*kernel)(Args), u32 blocks, u32 width, const Args& args,
                       u32 concurrent = 0, unsigned timeout_s = 30) {
    if (width == 0 || width % 32 != 0 || width > 1024) emu_fail("bad block width");
    std::fflush(stdout);
    std::fflush(stderr);
    gridDim = EmuDim3{blocks, 1, 1};
    blockDim = EmuDim3{width, 1, 1};
    if (concurrent != 0 && concurrent < blocks) {
        // Run the grid in slices; each slice is a launch of its own blocks.
        for (u32 first = 0; first < blocks; first += concurrent) {
            const u32 count = blocks - first < concurrent ? blocks - first : concurrent;
            if (!emu_launch_slice(kernel, first, count, blocks, width, args, timeout_s)) return false;
        }
        return true;
    }
    return emu_launch_slice(kernel, 0, blocks, blocks, width, args, timeout_s);
}

template <class Args>
inline bool emu_launch_slice(void (*kernel)(Args), u32 first, u32 count, u32 blocks, u32 width,
                             const Args& args, unsigned timeout_s) {
    gridDim = EmuDim3{blocks, 1, 1};
    blockDim = EmuDim3{width, 1, 1};
    std::vector<pid_t> children;
    for (u32 b = first; b < first + count; ++b) {
        const pid_t pid = fork();
        if (pid < 0) {
            std::perror("fork");
            std::exit(2);
        }
        if (pid == 0) {
            blockIdx = EmuDim3{b, 0, 0};
            emu_block_barrier.init(width);
            for (u32 w = 0; w < width / 32; ++w) emu_warp_barrier[w].init(32);
            std::vector<std::thread> threads;
            threads.reserve(width);
            for (u32 t = 0; t < width; ++t) {
                threads.emplace_back([t, kernel, &args] {
                    threadIdx = EmuDim3{t, 0, 0};
                    kernel(args);
                });
            }
            for (auto& th : threads) th.join();
            std::fflush(stdout);
            _exit(0);
        }
        children.push_back(pid);
    }
    bool ok = true;
    const time_t deadline = time(nullptr) + timeout_s;
    size_t done = 0;
    std::vector<bool> finished(children.size(), false);
    while (done < children.size()) {
        for (size_t i = 0; i < children.size(); ++i) {
            if (finished[i]) continue;
            int status = 0;
            const pid_t r = waitpid(children[i], &status, WNOHANG);
            if (r == children[i]) {
                finished[i] = true;
                ++done;
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ok = false;
            }
        }
        if (done < children.size()) {
            if (time(nullptr) > deadline) {
                std::fprintf(stderr, "EMU FAILURE: launch of %u blocks hung\n", blocks);
                for (size_t i = 0; i < children.size(); ++i) {
                    if (!finished[i]) kill(children[i], SIGKILL);
                }
                for (size_t i = 0; i < children.size(); ++i) {
                    if (!finished[i]) waitpid(children[i], nullptr, 0);
                }
                return false;
            }
            usleep(200);
        }
    }
    return ok;
}

// ---- a launch of one thread-block cluster ---------------------------------
//
// cluster.cuh's primitives: every block of the launch in one cluster, its
// barrier a process-shared barrier over every thread (arriving does
// nothing, waiting is the whole barrier), each block's part of the
// distributed shared memory a slot of one mapping every block sees.

constexpr u32 EMU_CLUSTER_MAX = 32;
constexpr size_t EMU_CLUSTER_SMEM = 4096;
struct EmuCluster {
    pthread_barrier_t bar;
    u32 blocks;
    alignas(16) unsigned char smem[EMU_CLUSTER_MAX][EMU_CLUSTER_SMEM];
};
inline EmuCluster* emu_cluster = nullptr;

inline u32 cluster_blocks() { return emu_cluster ? emu_cluster->blocks : 1; }
inline void cluster_arrive() {}
inline void cluster_wait() {
    if (!emu_cluster) emu_fail("cluster barrier outside a cluster launch");
    pthread_barrier_wait(&emu_cluster->bar);
}
inline void __trap() { emu_fail("trap"); }
inline u64 (*cluster_slot_words())[32] {
    if (!emu_cluster) return nullptr;
    return (u64(*)[32])emu_cluster->smem[blockIdx.x];
}
inline void store_cluster_u64(u64* p, u32 rank, u64 v) {
    const size_t off = (size_t)((unsigned char*)p - emu_cluster->smem[blockIdx.x]);
    if (off >= EMU_CLUSTER_SMEM || rank >= emu_cluster->blocks) emu_fail("bad cluster address");
    __atomic_store_n((u64*)(emu_cluster->smem[rank] + off), v, __ATOMIC_RELAXED);
}

template <class Args>
inline bool emu_launch_cluster(void (*kernel)(Args), u32 blocks, u32 width, const Args& args,
                               unsigned timeout_s = 300) {
    if (blocks > EMU_CLUSTER_MAX) emu_fail("cluster too large");
    void* m = mmap(nullptr, sizeof(EmuCluster), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        std::perror("mmap");
        std::exit(2);
    }
    EmuCluster* c = (EmuCluster*)m;
    std::memset(c->smem, 0xA5, sizeof(c->smem));
    pthread_barrierattr_t attr;
    pthread_barrierattr_init(&attr);
    pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_barrier_init(&c->bar, &attr, blocks * width);
    c->blocks = blocks;
    emu_cluster = c;
    const bool ok = emu_launch(kernel, blocks, width, args, 0, timeout_s);
    emu_cluster = nullptr;
    pthread_barrier_destroy(&c->bar);
    munmap(m, sizeof(EmuCluster));
    return ok;
}
