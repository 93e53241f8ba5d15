// A timing build of fused_local (-DVYRE_LOCAL_TIMING, e.g. through
// VYRE_CUDA_NVRTC_OPTIONS), for finding where a level's time goes; never
// for real work. Without the define every hook below is empty.
//
// Thread 0 of each block reads the SM clock (clock64, no memory traffic) at
// points of each level (each mark waits for the value it follows, so the
// build is slower than the plain one and its figures are indicative) and
// stores records per block and level of the launch: its expansion (from the
// level's start to the block's first barrier, so its slowest warp), its
// barrier wait (from its arrival to seeing every block's slot) and the
// vertices it expanded. At the launch's
// end block 0 sums them over the levels whose records are complete and
// prints, with device printf (the host's stdout once the launch is waited
// for), per launch
//   VT level=L run=R blocks=B | per level: in= maxexp= minwait= maxmine=
//      meanmine= meanexp= slowmine= | slowest b:levels ...
// (cycles and vertices a level, over the blocks still in the launch: how
// many, the slowest block's expansion, the least barrier wait, which is the
// last block to arrive's and so the barrier's own latency, the most
// vertices a block held, the mean, the mean block's expansion, the slowest
// block's vertices; then the three blocks most often slowest), a VTL line
// for every 128th level, and
//   VTS level=L blocks=B | thread 0's first round: targets= claims= ballot=
//      cursor= appended= barrier= (N records)
// the clock, from the level's start, when thread 0's targets are loaded,
// its own claims and rows are back, its warp's ballot of every lane's claims
// returns, its warp's append cursor is back, its appends are stored, and the
// block passed its first barrier (means over the levels and blocks where
// thread 0 had a vertex and its first round appended something).
#ifdef VYRE_LOCAL_TIMING
// Records of the launch's levels 0..VYRE_TIMING_LEVELS - 1 (a fused
// launch's later levels overwrite earlier ones).
#define VYRE_TIMING_LEVELS 1024u
__device__ u64 local_timing_records[VYRE_LOCAL_MAX_BLOCKS * VYRE_TIMING_LEVELS];

// The clock at the level's start, after the block's expansion (its first
// barrier) and when it saw every block arrive; the vertices it expanded.
struct LocalTiming {
    u64 top, expanded, arrived;
    u32 mine;
};

__device__ __forceinline__ u64 local_timing_clamp(u64 x, u32 bits) {
    return x < (1ull << bits) ? x : (1ull << bits) - 1;
}

__device__ __forceinline__ void local_timing_begin(LocalTiming& s) {
    s.top = s.expanded = s.arrived = 0;
    s.mine = 0;
}
// Thread 0 notes the clock in `field` of `s`.
#define LOCAL_TIMING_MARK(s, field)                 \
    do {                                            \
        if (threadIdx.x == 0) s.field = clock64(); \
    } while (0)
#define LOCAL_TIMING_MINE(s, m) \
    do {                        \
        s.mine = (m);           \
    } while (0)
// A record: expansion cycles (24 bits) | barrier wait cycles (24) | vertices (16).
#define LOCAL_TIMING_LEVEL_END(s, run)                                                           \
    do {                                                                                         \
        if (threadIdx.x == 0)                                                                    \
            local_timing_records[blockIdx.x * VYRE_TIMING_LEVELS + (run) % VYRE_TIMING_LEVELS] = \
                local_timing_clamp(s.expanded - s.top, 24) << 40 |                               \
                local_timing_clamp(gridDim.x > 1 ? s.arrived - s.expanded : 0, 24) << 16 |       \
                local_timing_clamp(s.mine, 16);                                                  \
    } while (0)

// The steps of thread 0's first round of a level (see the VTS line).
enum LocalStep : u32 {
    LOCAL_STEP_TARGETS,
    LOCAL_STEP_CLAIMS,
    LOCAL_STEP_BALLOT,
    LOCAL_STEP_CURSOR,
    LOCAL_STEP_APPENDED,
    LOCAL_STEPS
};
// Per block and level: each step's clock after the level's start, 12 bits
// each (0 when the round was not complete).
__device__ u64 local_timing_steps[VYRE_LOCAL_MAX_BLOCKS * VYRE_TIMING_LEVELS];
__shared__ u64 local_step_clock[LOCAL_STEPS];

// Thread 0 notes the clock for `step` once `val` is in a register (the move
// that reads it waits for its load), where `first_round` and while its first
// round has not appended.
#define LOCAL_TIMING_STEP(step, val, first_round)                                     \
    do {                                                                              \
        if (threadIdx.x == 0 && (first_round) &&                                      \
            local_step_clock[LOCAL_STEP_APPENDED] == 0) {                             \
            u32 held;                                                                 \
            asm volatile("mov.b32 %0, %1;" : "=r"(held) : "r"((u32)(val)));           \
            local_step_clock[step] = clock64() + (held & 0);                          \
        }                                                                             \
    } while (0)
#define LOCAL_TIMING_STEPS_BEGIN()                                                    \
    do {                                                                              \
        if (threadIdx.x == 0)                                                         \
            for (u32 i = 0; i < LOCAL_STEPS; ++i) local_step_clock[i] = 0;            \
    } while (0)
#define LOCAL_TIMING_STEPS_END(s, run)                                                \
    do {                                                                              \
        if (threadIdx.x == 0) {                                                       \
            u64 x = 0;                                                                \
            bool complete = true;                                                     \
            for (u32 i = 0; i < LOCAL_STEPS; ++i) {                                   \
                complete = complete && local_step_clock[i] != 0;                      \
                x |= local_timing_clamp(local_step_clock[i] - (s).top, 12) << (12 * i); \
            }                                                                         \
            local_timing_steps[blockIdx.x * VYRE_TIMING_LEVELS + (run) % VYRE_TIMING_LEVELS] = \
                complete ? x : 0;                                                     \
        }                                                                             \
    } while (0)

// Thread 0 of a block that leaves the launch after level `run`: no record
// of it from that level on (its barrier wait there was none).
__device__ __forceinline__ void local_timing_leave(u32 run) {
    if (threadIdx.x != 0) return;
    for (u32 r = run; r < VYRE_TIMING_LEVELS; ++r)
        local_timing_records[blockIdx.x * VYRE_TIMING_LEVELS + r] = ~0ull;
}

// Block 0, every thread, after the launch's last barrier: the summary of
// its first `run` - 1 levels (the last level's records may still be in
// flight).
__device__ void local_timing_report(const VyreArgs& a, u32 run) {
    __shared__ u64 sum[7];
    // Complete step records, each step's clocks, the block barrier's.
    __shared__ u64 steps[LOCAL_STEPS + 2];
    __shared__ u32 slowest[VYRE_LOCAL_MAX_BLOCKS];
    if (blockIdx.x != 0) return;
    __threadfence();
    if (threadIdx.x < 7) sum[threadIdx.x] = 0;
    if (threadIdx.x < LOCAL_STEPS + 2) steps[threadIdx.x] = 0;
    for (u32 b = threadIdx.x; b < VYRE_LOCAL_MAX_BLOCKS; b += blockDim.x) slowest[b] = 0;
    __syncthreads();
    const u32 levels = run > 2 ? (run - 1 < VYRE_TIMING_LEVELS ? run - 1 : VYRE_TIMING_LEVELS) : 0;
    for (u32 r = threadIdx.x; r < levels; r += blockDim.x) {
        u64 max_exp = 0, min_wait = ~0ull, max_mine = 0, sum_mine = 0, sum_exp = 0, slow_mine = 0;
        u32 slow = 0, in = 0;
        for (u32 b = 0; b < gridDim.x; ++b) {
            const u64 w = *(volatile u64*)&local_timing_records[b * VYRE_TIMING_LEVELS + r];
            if (w == ~0ull) continue;  // the block had left
            ++in;
            const u64 e = w >> 40, wait = (w >> 16) & 0xffffff, m = w & 0xffff;
            if (e > max_exp) {
                max_exp = e;
                slow = b;
                slow_mine = m;
            }
            min_wait = wait < min_wait ? wait : min_wait;
            max_mine = m > max_mine ? m : max_mine;
            sum_mine += m;
            sum_exp += e;
            const u64 x = *(volatile u64*)&local_timing_steps[b * VYRE_TIMING_LEVELS + r];
            if (x == 0) continue;  // no complete first round
            atomicAdd(&steps[0], 1ull);
            for (u32 i = 0; i < LOCAL_STEPS; ++i) atomicAdd(&steps[1 + i], (x >> (12 * i)) & 0xfff);
            atomicAdd(&steps[LOCAL_STEPS + 1], e);
        }
        atomicAdd(&sum[0], max_exp);
        atomicAdd(&sum[1], min_wait);
        atomicAdd(&sum[2], max_mine);
        atomicAdd(&sum[3], sum_mine);
        atomicAdd(&sum[4], sum_exp / in);
        atomicAdd(&sum[6], in);
        atomicAdd(&sum[5], slow_mine);
        atomicAdd(&slowest[slow], 1u);
        if (r % 128 == 5)
            printf("VTL level=%u blocks=%u in=%u len=%llu maxexp=%llu slow=%u slowmine=%llu "
                   "maxmine=%llu meanexp=%llu minwait=%llu\n",
                   a.level + r, gridDim.x, in, sum_mine, max_exp, slow, slow_mine, max_mine,
                   sum_exp / in, min_wait);
    }
    __syncthreads();
    if (threadIdx.x != 0 || levels == 0) return;
    u32 top[3] = {0, 0, 0};
    for (u32 b = 0; b < VYRE_LOCAL_MAX_BLOCKS; ++b) {
        if (slowest[b] > slowest[top[0]]) {
            top[2] = top[1];
            top[1] = top[0];
            top[0] = b;
        } else if (b != top[0] && slowest[b] > slowest[top[1]]) {
            top[2] = top[1];
            top[1] = b;
        } else if (b != top[0] && b != top[1] && slowest[b] > slowest[top[2]]) {
            top[2] = b;
        }
    }
    printf("VT level=%u run=%u blocks=%u | per level: in=%llu maxexp=%llu minwait=%llu "
           "maxmine=%llu meanmine=%llu meanexp=%llu slowmine=%llu | slowest %u:%u %u:%u %u:%u\n",
           a.level, run, gridDim.x, sum[6] / levels, sum[0] / levels, sum[1] / levels,
           sum[2] / levels, sum[3] / sum[6], sum[4] / levels, sum[5] / levels, top[0],
           slowest[top[0]], top[1], slowest[top[1]], top[2], slowest[top[2]]);
    const u64 n = steps[0] != 0 ? steps[0] : 1;
    printf("VTS level=%u blocks=%u | thread 0's first round: targets=%llu claims=%llu ballot=%llu "
           "cursor=%llu appended=%llu barrier=%llu (%llu records)\n",
           a.level, gridDim.x, steps[1] / n, steps[2] / n, steps[3] / n, steps[4] / n, steps[5] / n,
           steps[6] / n, steps[0]);
}
#else
struct LocalTiming {};
__device__ __forceinline__ void local_timing_begin(LocalTiming&) {}
#define LOCAL_TIMING_MARK(s, field)
#define LOCAL_TIMING_MINE(s, m)
#define LOCAL_TIMING_LEVEL_END(s, run)
#define LOCAL_TIMING_STEP(step, val, first_round)
#define LOCAL_TIMING_STEPS_BEGIN()
#define LOCAL_TIMING_STEPS_END(s, run)
__device__ __forceinline__ void local_timing_leave(u32) {}
__device__ __forceinline__ void local_timing_report(const VyreArgs&, u32) {}
#endif
