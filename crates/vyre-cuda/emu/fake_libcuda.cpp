// A stand-in libcuda.so that runs vyre's kernels on the CPU (cuda_emu.hpp),
// so the Rust integration tests can exercise the whole backend — cudarc
// calls, buffers, launches, readbacks, events — on a machine without a GPU.
// Only the driver functions the backend uses exist; each checks what the
// real driver would refuse (cooperative grids too large, widths over a
// kernel's launch bounds, too little dynamic shared memory). See README.md.
//
// Test-only switches, read at every launch:
// - VYRE_FAKE_CUDA_STUCK=abortable: a launch does not run and its stream
//   stays busy until the launch's abort word (VyreArgs::abort_flag) is set,
//   as a kernel that honours the deadline's abort would;
// - VYRE_FAKE_CUDA_STUCK=forever: the stream never finishes;
// - VYRE_FAKE_CUDA_NO_COOPERATIVE=1: cooperative launches are refused.
// A driver call that would block on a busy stream (a synchronisation, a copy
// to pageable memory, a free that waits) aborts the process: the backend
// must never make one then.

#include "cuda_emu.hpp"
#include "kernels.inc"

#include <chrono>
#include <cstring>
#include <map>
#include <string>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum : int {
    OK = 0,
    INVALID_VALUE = 1,
    OUT_OF_MEMORY = 2,
    INVALID_DEVICE = 101,
    INVALID_IMAGE = 200,
    INVALID_HANDLE = 400,
    NOT_FOUND = 500,
    NOT_READY = 600,
    LAUNCH_FAILED = 719,
    COOPERATIVE_TOO_LARGE = 720,
    NOT_SUPPORTED = 801,
};

static const int SM_COUNT = 2;
static const int FUSED_PER_SM = 2;
static const size_t DEVICE_BYTES = size_t(8) << 30;

namespace {

struct Kernel {
    const char* name;
    void (*fn)(VyreArgs);
    u32 max_width;
    u32 (*shared)(u32 width);  // dynamic shared memory the kernel indexes
    void (*rank_fn)(VyreRankArgs) = nullptr;  // the rank kernels take VyreRankArgs instead
};

u32 none(u32) { return 0; }
u32 sparse_smem(u32 w) {
    const u32 capacity = 4 * w < VYRE_SMALL_FRONTIER_MAX ? 4 * w : VYRE_SMALL_FRONTIER_MAX;
    return 20 * capacity + 8 * w + 8 * VYRE_SCAN_CHUNKS + 24;
}
u32 hybrid_smem(u32 w) { return 20 * w + 8; }
u32 tile_smem(u32 w) { return 20 * w + 16; }

const Kernel KERNELS[] = {
    {"vyre_noop", vyre_noop, 1024, none},
    {"vyre_init_search", vyre_init_search, 1024, none},
    {"vyre_seed_sources", vyre_seed_sources, 1024, none},
    {"vyre_queue_to_bitmap", vyre_queue_to_bitmap, 1024, none},
    {"vyre_bitmap_to_queue", vyre_bitmap_to_queue, 1024, none},
    {"vyre_warp_sparse", vyre_warp_sparse, 1024, none},
    {"vyre_sparse", vyre_sparse, 1024, sparse_smem},
    {"vyre_hybrid", vyre_hybrid, 1024, hybrid_smem},
    {"vyre_dense", vyre_dense, 1024, none},
    {"vyre_block_dense", vyre_block_dense, 1024, tile_smem},
    {"vyre_fused", vyre_fused, 256, hybrid_smem},
    {"vyre_fused_cluster", vyre_fused_cluster, 1024, none},
    {"vyre_batch_init", vyre_batch_init, 1024, none},
    {"vyre_batch_seed", vyre_batch_seed, 1024, none},
    {"vyre_batch_words_to_queue", vyre_batch_words_to_queue, 1024, none},
    {"vyre_batch_push", vyre_batch_push, 1024, none},
    {"vyre_batch_push_pieces", vyre_batch_push_pieces, 1024, none},
    {"vyre_batch_pull", vyre_batch_pull, 1024, none},
    {"vyre_batch_warp_pull", vyre_batch_warp_pull, 1024, none},
    {"vyre_batch_fused", vyre_batch_fused, 256, none},
    {"vyre_rank_init", nullptr, 1024, none, vyre_rank_init},
    {"vyre_rank_seed", nullptr, 1024, none, vyre_rank_seed},
    {"vyre_rank_expand", nullptr, 1024, none, vyre_rank_expand},
    {"vyre_rank_expand_pieces", nullptr, 1024, hybrid_smem, vyre_rank_expand_pieces},
    {"vyre_rank_merge", nullptr, 1024, none, vyre_rank_merge},
    {"vyre_rank_clear_sent", nullptr, 1024, none, vyre_rank_clear_sent},
    {"vyre_rank_frontier_words", nullptr, 1024, none, vyre_rank_frontier_words},
    {"vyre_rank_pull", nullptr, 1024, none, vyre_rank_pull},
};

EmuDevice& device() {
    static EmuDevice d;
    if (!d.base) {
        void* p = mmap(nullptr, DEVICE_BYTES, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) std::abort();
        d.base = (unsigned char*)p;
        d.size = DEVICE_BYTES;
    }
    return d;
}

std::map<CUdeviceptr, size_t> live;  // allocation -> bytes
thread_local void* current_ctx = nullptr;
int primary_ctx_token = 1;
int module_token = 1;
int stream_tokens = 0;

// Streams whose work does not finish (VYRE_FAKE_CUDA_STUCK), with the abort
// word of the launch that got stuck (null: it never stops).
std::map<void*, const u32*> stuck_streams;

bool switch_is(const char* name, const char* value) {
    const char* v = std::getenv(name);
    return v && std::strcmp(v, value) == 0;
}

// The real driver would wait here for a stream that never finishes.
void refuse_to_block(const char* what) {
    if (stuck_streams.empty()) return;
    std::fprintf(stderr, "fake libcuda: %s would wait forever for a stuck stream\n", what);
    std::fflush(stderr);
    std::abort();
}

u64 now_ns() {
    return (u64)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

CUresult launch(void* f, u32 gx, u32 gy, u32 gz, u32 bx, u32 by, u32 bz, u32 smem, void* stream,
                void** params, bool cooperative) {
    const Kernel* k = (const Kernel*)f;
    if (!k || by != 1 || bz != 1 || gx == 0 || gy == 0 || gz == 0) return INVALID_VALUE;
    const u32 blocks = gx * gy * gz;
    if (bx == 0 || bx > k->max_width || bx % 32 != 0) {
        std::fprintf(stderr, "fake libcuda: %s launched %u wide (limit %u, whole warps)\n", k->name, bx, k->max_width);
        return INVALID_VALUE;
    }
    if (smem < k->shared(bx) || smem > 48 * 1024) {
        std::fprintf(stderr, "fake libcuda: %s at width %u got %u bytes of shared memory, needs %u\n",
                     k->name, bx, smem, k->shared(bx));
        return INVALID_VALUE;
    }
    const bool fused = std::strcmp(k->name, "vyre_fused") == 0 ||
                       std::strcmp(k->name, "vyre_batch_fused") == 0;
    if (fused && !cooperative) {
        std::fprintf(stderr, "fake libcuda: the fused kernel was launched without cooperative launch\n");
        return LAUNCH_FAILED;
    }
    if (cooperative && blocks > (u32)(SM_COUNT * FUSED_PER_SM)) return COOPERATIVE_TOO_LARGE;
    if (cooperative && switch_is("VYRE_FAKE_CUDA_NO_COOPERATIVE", "1")) return NOT_SUPPORTED;
    if (k->rank_fn) {
        if (cooperative) return LAUNCH_FAILED;
        VyreRankArgs rank_args;
        std::memcpy(&rank_args, params[0], sizeof rank_args);
        return emu_launch(k->rank_fn, blocks, bx, rank_args, 4, 30) ? OK : LAUNCH_FAILED;
    }
    VyreArgs args;
    std::memcpy(&args, params[0], sizeof args);
    const bool abortable = switch_is("VYRE_FAKE_CUDA_STUCK", "abortable");
    if (stuck_streams.count(stream) || abortable || switch_is("VYRE_FAKE_CUDA_STUCK", "forever")) {
        // Queued behind (or itself) a launch that does not finish.
        if (!stuck_streams.count(stream)) stuck_streams[stream] = abortable ? args.abort_flag : nullptr;
        return OK;
    }
    std::memset(emu_dynamic_smem, 0xA5, sizeof emu_dynamic_smem);
    // A cooperative launch runs a whole fused search (hundreds of levels on
    // the emulator's chains), so only a much longer one counts as a hang.
    return emu_launch(k->fn, blocks, bx, args, cooperative ? 0 : 4, cooperative ? 300 : 30) ? OK
                                                                                           : LAUNCH_FAILED;
}

}  // namespace

extern "C" {

CUresult cuInit(unsigned) { return OK; }
CUresult cuDeviceGetCount(int* n) { *n = 1; return OK; }
CUresult cuDeviceGet(int* dev, int ordinal) {
    if (ordinal != 0) return INVALID_DEVICE;
    *dev = 0;
    return OK;
}
CUresult cuDeviceGetName(char* name, int len, int) {
    std::snprintf(name, (size_t)len, "vyre emulated GPU");
    return OK;
}
CUresult cuDeviceGetAttribute(int* v, int attr, int) {
    switch (attr) {
        case 1: *v = 1024; break;         // MAX_THREADS_PER_BLOCK
        case 2: *v = 1024; break;         // MAX_BLOCK_DIM_X
        case 5: *v = 2147483647; break;   // MAX_GRID_DIM_X
        case 10: *v = 32; break;          // WARP_SIZE
        case 16: *v = SM_COUNT; break;    // MULTIPROCESSOR_COUNT
        case 39: *v = 512; break;         // MAX_THREADS_PER_MULTIPROCESSOR: 2 fused blocks
        case 75: *v = 9; break;           // COMPUTE_CAPABILITY_MAJOR
        case 76: *v = 0; break;           // COMPUTE_CAPABILITY_MINOR
        case 95: *v = 1; break;           // COOPERATIVE_LAUNCH
        case 115: *v = 1; break;          // MEMORY_POOLS_SUPPORTED
        default:
            std::fprintf(stderr, "fake libcuda: attribute %d not modelled\n", attr);
            return INVALID_VALUE;
    }
    return OK;
}
CUresult cuDevicePrimaryCtxRetain(void** ctx, int) { *ctx = &primary_ctx_token; return OK; }
CUresult cuDevicePrimaryCtxRelease_v2(int) { refuse_to_block("cuDevicePrimaryCtxRelease"); return OK; }
CUresult cuCtxGetCurrent(void** ctx) { *ctx = current_ctx; return OK; }
CUresult cuCtxSetCurrent(void* ctx) { current_ctx = ctx; return OK; }
CUresult cuCtxSynchronize() { refuse_to_block("cuCtxSynchronize"); return OK; }
CUresult cuDriverGetVersion(int* v) { *v = 13000; return OK; }

CUresult cuModuleLoadData(void** module, const void* image) {
    const char* ptx = (const char*)image;
    if (!std::strstr(ptx, ".target sm_90")) return INVALID_IMAGE;
    for (const Kernel& k : KERNELS) {
        if (!std::strstr(ptx, (std::string(".entry ") + k.name + "(").c_str())) return INVALID_IMAGE;
    }
    *module = &module_token;
    return OK;
}
CUresult cuModuleGetFunction(void** f, void*, const char* name) {
    for (const Kernel& k : KERNELS) {
        if (std::strcmp(k.name, name) == 0) {
            *f = (void*)&k;
            return OK;
        }
    }
    return NOT_FOUND;
}
CUresult cuModuleUnload(void*) { refuse_to_block("cuModuleUnload"); return OK; }

CUresult cuStreamCreate(void** s, unsigned) { *s = (void*)(intptr_t)(0x1000 + ++stream_tokens); return OK; }
CUresult cuStreamSynchronize(void*) { refuse_to_block("cuStreamSynchronize"); return OK; }
CUresult cuStreamDestroy_v2(void*) { return OK; }
CUresult cuStreamWaitEvent(void*, void*, unsigned) { return OK; }
CUresult cuStreamQuery(void* s) {
    auto it = stuck_streams.find(s);
    if (it == stuck_streams.end()) return OK;
    if (it->second && __atomic_load_n(it->second, __ATOMIC_ACQUIRE) != 0) {
        // The stuck kernel saw the abort word and left.
        stuck_streams.erase(it);
        return OK;
    }
    return NOT_READY;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* n, void* f, int width, size_t smem, unsigned) {
    const Kernel* k = (const Kernel*)f;
    if ((u32)width > k->max_width || smem < k->shared((u32)width)) return INVALID_VALUE;
    *n = FUSED_PER_SM;
    return OK;
}

CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total) {
    *free_bytes = DEVICE_BYTES - device().used;
    *total = DEVICE_BYTES;
    return OK;
}
CUresult cuMemAllocAsync(CUdeviceptr* p, size_t bytes, void*) {
    EmuDevice& d = device();
    if (live.empty()) d.reset();
    const size_t rounded = (bytes + 255) & ~size_t(255);
    if (d.used + rounded > d.size) return OUT_OF_MEMORY;
    unsigned char* q = d.alloc<unsigned char>(bytes ? bytes : 1);
    *p = (CUdeviceptr)q;
    live[*p] = bytes;
    return OK;
}
CUresult cuMemFreeAsync(CUdeviceptr p, void*) {
    if (live.erase(p) != 1) {
        std::fprintf(stderr, "fake libcuda: free of unknown pointer %llx\n", p);
        return INVALID_VALUE;
    }
    return OK;
}

static bool inside(CUdeviceptr p, size_t bytes) {
    auto it = live.upper_bound(p);
    if (it == live.begin()) return false;
    --it;
    return p >= it->first && p + bytes <= it->first + it->second;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t bytes, void*) {
    refuse_to_block("a copy from pageable host memory");
    if (!inside(dst, bytes)) return INVALID_VALUE;
    std::memcpy((void*)dst, src, bytes);
    return OK;
}
CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t bytes, void*) {
    refuse_to_block("a copy to pageable host memory");
    if (!inside(src, bytes)) return INVALID_VALUE;
    std::memcpy(dst, (const void*)src, bytes);
    return OK;
}
// Copies between device buffers: the one-device collective of the rank
// tests moves every exchange this way.
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, void*) {
    if (!inside(dst, bytes) || !inside(src, bytes)) return INVALID_VALUE;
    std::memmove((void*)dst, (const void*)src, bytes);
    return OK;
}
// Pinned host memory the emulated kernels can write: it comes from the
// shared device mapping, so writes of the forked blocks reach the host.
CUresult cuMemHostAlloc(void** p, size_t bytes, unsigned) {
    CUdeviceptr d = 0;
    const CUresult r = cuMemAllocAsync(&d, bytes, nullptr);
    *p = (void*)d;
    return r;
}
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* d, void* p, unsigned flags) {
    if (flags != 0 || !inside((CUdeviceptr)p, 1)) return INVALID_VALUE;
    *d = (CUdeviceptr)p;
    return OK;
}
CUresult cuMemFreeHost(void* p) {
    refuse_to_block("cuMemFreeHost");
    return cuMemFreeAsync((CUdeviceptr)p, nullptr);
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t bytes, void*) {
    if (!inside(dst, bytes)) return INVALID_VALUE;
    std::memset((void*)dst, v, bytes);
    return OK;
}

CUresult cuEventCreate(void** e, unsigned) { *e = new u64(0); return OK; }
CUresult cuEventRecord(void* e, void*) { *(u64*)e = now_ns(); return OK; }
CUresult cuEventSynchronize(void*) { refuse_to_block("cuEventSynchronize"); return OK; }
CUresult cuEventQuery(void*) { return OK; }
CUresult cuEventElapsedTime_v2(float* ms, void* a, void* b) {
    *ms = (float)((double)(*(u64*)b - *(u64*)a) / 1e6);
    return OK;
}
CUresult cuEventDestroy_v2(void* e) { delete (u64*)e; return OK; }

CUresult cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned smem, void* s, void** params, void**) {
    return launch(f, gx, gy, gz, bx, by, bz, smem, s, params, false);
}
CUresult cuLaunchCooperativeKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                   unsigned by, unsigned bz, unsigned smem, void* s, void** params) {
    return launch(f, gx, gy, gz, bx, by, bz, smem, s, params, true);
}

// Thread-block clusters: the emulated device offers none unless
// VYRE_FAKE_CUDA_CLUSTERS=1 (a cluster of 16 blocks of 1024 threads is
// 16,384 host threads), and then launches one as emu_launch_cluster does.
struct FakeLaunchAttribute {
    int id;
    int pad;
    union {
        unsigned char bytes[64];
        struct {
            unsigned x, y, z;
        } cluster;
    } value;
};
struct FakeLaunchConfig {
    unsigned gx, gy, gz, bx, by, bz, smem;
    void* stream;
    FakeLaunchAttribute* attrs;
    unsigned attr_count;
};
constexpr int CLUSTER_DIMENSION_ATTRIBUTE = 4;

CUresult cuFuncSetAttribute(void*, int, int) { return OK; }
CUresult cuOccupancyMaxActiveClusters(int* n, void*, const FakeLaunchConfig*) {
    *n = switch_is("VYRE_FAKE_CUDA_CLUSTERS", "1") ? 1 : 0;
    return OK;
}
CUresult cuLaunchKernelEx(const FakeLaunchConfig* c, void* f, void** params, void**) {
    u32 cluster = 1;
    for (unsigned i = 0; i < c->attr_count; ++i) {
        if (c->attrs[i].id == CLUSTER_DIMENSION_ATTRIBUTE) cluster = c->attrs[i].value.cluster.x;
    }
    const Kernel* k = (const Kernel*)f;
    if (cluster == 1) return launch(f, c->gx, c->gy, c->gz, c->bx, c->by, c->bz, c->smem, c->stream, params, false);
    if (!switch_is("VYRE_FAKE_CUDA_CLUSTERS", "1")) return NOT_SUPPORTED;
    if (!k || k->rank_fn || cluster != c->gx || c->gy != 1 || c->gz != 1 || c->by != 1 || c->bz != 1 ||
        c->bx == 0 || c->bx > k->max_width || c->bx % 32 != 0) {
        std::fprintf(stderr, "fake libcuda: a cluster launch must be one cluster of whole warps\n");
        return INVALID_VALUE;
    }
    VyreArgs args;
    std::memcpy(&args, params[0], sizeof args);
    return emu_launch_cluster(k->fn, c->gx, c->bx, args) ? OK : LAUNCH_FAILED;
}

CUresult cuGetErrorString(int, const char** s) { *s = "emulated CUDA error"; return OK; }
CUresult cuGetErrorName(int, const char** s) { *s = "CUDA_ERROR_EMULATED"; return OK; }

}  // extern "C"
