// Batch passes: up to VYRE_LANES independent searches at once, one bit per
// search ("lane") in a 64-bit word per vertex: `seen` (the lanes that have
// reached it) and two frontier word arrays that alternate by level like the
// queues (words_in is read, words_out written). These kernels are separate
// from the single search's so that nothing is added to those.
//
// A frontier word array holds zero for every vertex outside its frontier:
// - a push (top-down) consumes the words it expands (the one warp that owns
//   a frontier vertex clears its word) and ORs the lanes it finds into
//   words_out, appending a vertex to queue_out when its word leaves zero.
//   Its words_out must start zeroed: the host clears an array a pull left
//   stale before a push writes it;
// - a pull (bottom-up) writes every word of words_out, zero for vertices
//   that found nothing, and leaves words_in stale.
// Every kernel counts each lane's discoveries per block in shared memory and
// adds them to the level's VYRE_LANES counters in `lane_counts` once; with
// kept depths each new bit also writes its depth (vertex-major, `lanes` per
// vertex).

#define VYRE_LANES 64u

// Discoveries of each lane by this block at the current level.
__device__ __forceinline__ void lane_counts_clear(u32* found) {
    for (u32 j = threadIdx.x; j < VYRE_LANES; j += blockDim.x) found[j] = 0;
    __syncthreads();
}

// Add this block's lane counters to level `index` of the command's lane
// counts, and clear them. Every thread must call it, after its last
// discovery.
__device__ __forceinline__ void lane_counts_flush(const VyreArgs& a, u32* found, u32 index) {
    __syncthreads();
    for (u32 j = threadIdx.x; j < VYRE_LANES; j += blockDim.x) {
        const u32 count = found[j];
        if (count != 0) atomicAdd(&a.lane_counts[(u64)index * VYRE_LANES + j], count);
        found[j] = 0;
    }
    __syncthreads();
}

// v was first reached by the lanes of `lanes` at `depth`: count them, and
// record the depth when depths are kept.
__device__ __forceinline__ void lanes_reached(const VyreArgs& a, u32* found, u32 v, u64 lanes,
                                              u32 depth) {
    for (u64 bits = lanes; bits != 0; bits &= bits - 1) {
        const u32 j = __ffsll((long long)bits) - 1;
        atomicAdd(&found[j], 1u);
        if (a.lane_depths) a.lane_depths[(u64)v * a.lanes + j] = depth;
    }
}

// The two frontier word arrays of a level.
struct BatchWords {
    u64* in;
    u64* out;
};

// Edge u -> v of a push carrying u's frontier word: v gets the lanes it
// has not seen (seen first, then words.out); true when v enters the next
// frontier, with its out-degree added to out_edges. A stale read of seen[v]
// only shows fewer lanes: the atomicOr decides.
__device__ __forceinline__ bool batch_visit(const VyreArgs& a, BatchWords words, u32* found,
                                            u64 word, u32 v, u32 next_depth, u64& out_edges) {
    const u64 add = word & ~__ldcg(&a.seen[v]);
    if (add == 0) return false;
    const u64 fresh = add & ~atomicOr(&a.seen[v], add);
    if (fresh == 0) return false;
    lanes_reached(a, found, v, fresh, next_depth);
    if (atomicOr(&words.out[v], fresh) != 0) return false;
    out_edges += out_degree(a, v);
    return true;
}

// The warp walks edges [start, end) of one vertex whose frontier word is
// `word`, a lane an edge per round. All 32 lanes must call it together.
__device__ __forceinline__ void batch_warp_walk(const VyreArgs& a, BatchWords words, u32* found,
                                                u64 word, u64 start, u64 end, u32* queue_out,
                                                u32* cursor, u32 next_depth, u64& examined,
                                                u64& out_edges) {
    for (u64 e = start + lane_id(), top = end + lane_id(); e < top; e += 32) {
        bool hit = false;
        u32 v = 0;
        if (e < end) {
            v = a.out_targets[e];
            ++examined;
            hit = batch_visit(a, words, found, word, v, next_depth, out_edges);
        }
        warp_append(queue_out, cursor, hit, v);
    }
}

// ---- pieces of hubs ------------------------------------------------------------
//
// A batch piece is four words of the work array: the vertex, the piece's
// index among its pieces of VYRE_PIECE_EDGES edges, and the vertex's
// frontier word (which the push consumed). control->piece_count[0] counts
// them; the level's closing clears it. A piece that did not fit is marked
// with vertex VYRE_NO_PIECE and its vertex walked by its warp instead.

#define VYRE_BATCH_PIECE_WORDS 4u
#define VYRE_NO_PIECE 0xffffffffu

__device__ __forceinline__ u32 batch_piece_capacity(const VyreArgs& a) {
    const u64 cap = a.work_words / VYRE_BATCH_PIECE_WORDS;
    return cap < 0xffffffffull ? (u32)cap : 0xffffffffu;
}

// Cut the lanes' hubs (degree of at least VYRE_PIECE_EDGES) into pieces;
// returns the mask of lanes whose hub is now in pieces (the others walk
// theirs). All 32 lanes must call it together.
__device__ __forceinline__ u32 batch_emit_pieces(const VyreArgs& a, u32 u, u64 word, u64 degree) {
    const bool hub = degree >= VYRE_PIECE_EDGES;
    const u32 mine = hub ? (u32)((degree + VYRE_PIECE_EDGES - 1) / VYRE_PIECE_EDGES) : 0u;
    if (__ballot_sync(VYRE_FULL_MASK, hub) == 0) return 0;
    const u32 inclusive = warp_inclusive_sum(mine);
    const u32 total = __shfl_sync(VYRE_FULL_MASK, inclusive, 31);
    u32 base = 0;
    if (lane_id() == 0) base = atomicAdd(&a.control->piece_count[0], total);
    base = __shfl_sync(VYRE_FULL_MASK, base, 0);
    const u64 cap = batch_piece_capacity(a);
    const u64 first = (u64)base + inclusive - mine;
    // The whole warp's pieces fit, or none is used (slots below the
    // capacity are marked empty), so a hub is never half in pieces.
    const bool fits = (u64)base + total <= cap;
    for (u32 k = 0; k < mine; ++k) {
        const u64 index = first + k;
        if (index >= cap) break;
        u32* slot = a.work + index * VYRE_BATCH_PIECE_WORDS;
        slot[0] = fits ? u : VYRE_NO_PIECE;
        slot[1] = k;
        slot[2] = (u32)word;
        slot[3] = (u32)(word >> 32);
    }
    return fits ? __ballot_sync(VYRE_FULL_MASK, hub) : 0u;
}

// One warp pushes the frontier vertices at queue positions [base, base + 32)
// (below len): each lane takes one, consumes its word, and walks its edges
// itself when it has fewer than VYRE_LIGHT_DEGREE; heavier ones are walked
// by the whole warp, one after another, except that with PIECES a vertex of
// at least VYRE_PIECE_EDGES edges is cut into pieces for
// vyre_batch_push_pieces (batch_emit_pieces), so that a few hubs spread over
// the whole grid. Discoveries are appended to queue_out. All 32 lanes must
// call it.
template <bool PIECES>
__device__ void batch_push_run(const VyreArgs& a, BatchWords words, u32* found,
                               const u32* queue_in, u64 base, u32 len, u32* queue_out, u32* cursor,
                               u32 next_depth, u64& examined, u64& out_edges) {
    const u64 i = base + lane_id();
    u32 u = 0;
    u64 word = 0, start = 0, degree = 0;
    if (i < len) {
        u = __ldcg(queue_in + i);
        word = __ldcg(&words.in[u]);
        words.in[u] = 0;
        start = a.out_offsets[u];
        degree = a.out_offsets[u + 1] - start;
    }
    const bool heavy = degree >= VYRE_LIGHT_DEGREE;
    const u32 mine = heavy ? 0u : (u32)degree;
    const u32 rounds = warp_max(mine);
    for (u32 k = 0; k < rounds; ++k) {
        bool hit = false;
        u32 v = 0;
        if (k < mine) {
            v = a.out_targets[start + k];
            ++examined;
            hit = batch_visit(a, words, found, word, v, next_depth, out_edges);
        }
        warp_append(queue_out, cursor, hit, v);
    }
    u32 walk = __ballot_sync(VYRE_FULL_MASK, heavy);
    if (PIECES) walk &= ~batch_emit_pieces(a, u, word, degree);
    for (u32 hubs = walk; hubs != 0; hubs &= hubs - 1) {
        const u32 owner = __ffs(hubs) - 1;
        const u64 hub_word = __shfl_sync(VYRE_FULL_MASK, word, owner);
        const u64 hub_start = __shfl_sync(VYRE_FULL_MASK, start, owner);
        const u64 end = hub_start + __shfl_sync(VYRE_FULL_MASK, degree, owner);
        batch_warp_walk(a, words, found, hub_word, hub_start, end, queue_out, cursor, next_depth,
                        examined, out_edges);
    }
}

// WarpSparseFrontier, SparseFrontier and HybridFrontier of a batch: runs of
// 32 frontier vertices per warp (batch_push_run), striding over the grid's
// warps. Slots: one per frontier vertex.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_batch_push(const VyreArgs a) {
    __shared__ u32 found[VYRE_LANES];
    if (command_stopped(a)) return;
    lane_counts_clear(found);
    const u32 len = load_volatile(&a.control->cur_len);
    const u32 active = active_blocks(len);
    const BatchWords words = {a.words_in, a.words_out};
    u64 examined = 0, out_edges = 0;
    if (blockIdx.x < active) {
        const u64 warps = (u64)active * (blockDim.x >> 5);
        for (u64 w = (u64)blockIdx.x * (blockDim.x >> 5) + warp_in_block(); w * 32 < len;
             w += warps) {
            batch_push_run<true>(a, words, found, a.queue_in, w * 32, len, a.queue_out,
                           &a.control->next_len[0], a.level + 1, examined, out_edges);
        }
    }
    lane_counts_flush(a, found, a.history_index);
    // vyre_batch_push_pieces, launched next on the same grid, closes the level.
    add_level_counts(a, examined, out_edges, 0);
}

// The second kernel of a batch push level: every warp of the grid takes
// pieces of the level's hubs in turn (a whole warp per piece of at most
// VYRE_PIECE_EDGES edges), then the level closes. Runs after vyre_batch_push
// on the same grid.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_batch_push_pieces(const VyreArgs a) {
    __shared__ u32 found[VYRE_LANES];
    if (command_stopped(a)) return;
    lane_counts_clear(found);
    const u32 total = load_volatile(&a.control->piece_count[0]);
    const u32 cap = batch_piece_capacity(a);
    const u32 count = total < cap ? total : cap;
    const BatchWords words = {a.words_in, a.words_out};
    const u32 next_depth = a.level + 1;
    u64 examined = 0, out_edges = 0;
    const u64 warps = (u64)gridDim.x * (blockDim.x >> 5);
    for (u64 p = (u64)blockIdx.x * (blockDim.x >> 5) + warp_in_block(); p < count; p += warps) {
        const u32* slot = a.work + p * VYRE_BATCH_PIECE_WORDS;
        const u32 u = __ldcg(slot);
        if (u == VYRE_NO_PIECE) continue;
        const u64 word = (u64)__ldcg(slot + 2) | ((u64)__ldcg(slot + 3) << 32);
        const u64 start = a.out_offsets[u] + (u64)__ldcg(slot + 1) * VYRE_PIECE_EDGES;
        const u64 row_end = a.out_offsets[u + 1];
        const u64 end = start + VYRE_PIECE_EDGES < row_end ? start + VYRE_PIECE_EDGES : row_end;
        batch_warp_walk(a, words, found, word, start, end, a.queue_out, &a.control->next_len[0],
                        next_depth, examined, out_edges);
    }
    lane_counts_flush(a, found, a.history_index);
    finish_level(a, gridDim.x, examined, out_edges, 0);
}

// What a pull found for v: its new lanes go to seen, words_out (written
// whole, zero included), the counts and depths; true when v enters the next
// frontier.
__device__ __forceinline__ bool batch_settle(const VyreArgs& a, u32* found, u32 v, u64 lanes, u32 next_depth, u64& out_edges) {
    a.words_out[v] = lanes;
    if (lanes == 0) return false;
    a.seen[v] |= lanes;
    lanes_reached(a, found, v, lanes, next_depth);
    out_edges += out_degree(a, v);
    return true;
}

// DenseFrontier of a batch: one thread per vertex; a vertex some lane has
// not reached ORs its in-neighbours' frontier words into what it lacks and
// stops once it has every lane it lacks. Slots: one per vertex.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_batch_pull(const VyreArgs a) {
    __shared__ u32 found[VYRE_LANES];
    if (command_stopped(a)) return;
    lane_counts_clear(found);
    const u32 n = a.vertex_count;
    const u32 active = active_blocks(n);
    u64 examined = 0, out_edges = 0, discovered = 0;
    if (blockIdx.x < active) {
        const u64 stride = (u64)active * blockDim.x;
        for (u64 x = (u64)blockIdx.x * blockDim.x + threadIdx.x; x < n; x += stride) {
            const u32 v = (u32)x;
            const u64 missing = a.lane_mask & ~a.seen[v];
            u64 lanes = 0;
            if (missing != 0) {
                const u64 end = a.in_offsets[v + 1];
                for (u64 e = a.in_offsets[v]; e < end; ++e) {
                    ++examined;
                    lanes |= __ldg(&a.words_in[a.in_targets[e]]) & missing;
                    if (lanes == missing) break;
                }
            }
            discovered += batch_settle(a, found, v, lanes, a.level + 1, out_edges);
        }
    }
    lane_counts_flush(a, found, a.history_index);
    finish_level(a, gridDim.x, examined, out_edges, discovered);
}

// BlockDenseFrontier of a batch: one warp per vertex, its lanes striding
// over the in-edges, the warp's OR checked after every round of 32 so that
// it stops once every missing lane is found. Slots: 32 per vertex.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_batch_warp_pull(const VyreArgs a) {
    __shared__ u32 found[VYRE_LANES];
    if (command_stopped(a)) return;
    lane_counts_clear(found);
    const u32 n = a.vertex_count;
    const u32 active = active_blocks((u64)n * 32);
    u64 examined = 0, out_edges = 0, discovered = 0;
    if (blockIdx.x < active) {
        const u64 warps = (u64)active * (blockDim.x >> 5);
        for (u64 x = (u64)blockIdx.x * (blockDim.x >> 5) + warp_in_block(); x < n; x += warps) {
            const u32 v = (u32)x;
            const u64 missing = a.lane_mask & ~a.seen[v];
            u64 lanes = 0;
            if (missing != 0) {
                const u64 end = a.in_offsets[v + 1];
                for (u64 e = a.in_offsets[v]; e < end; e += 32) {
                    u64 mine = 0;
                    if (e + lane_id() < end) {
                        ++examined;
                        mine = __ldg(&a.words_in[a.in_targets[e + lane_id()]]) & missing;
                    }
                    for (u32 o = 16; o > 0; o >>= 1) mine |= __shfl_xor_sync(VYRE_FULL_MASK, mine, o);
                    lanes |= mine;
                    if (lanes == missing) break;
                }
            }
            if (lane_id() == 0) {
                discovered += batch_settle(a, found, v, lanes, a.level + 1, out_edges);
            }
        }
    }
    lane_counts_flush(a, found, a.history_index);
    finish_level(a, gridDim.x, examined, out_edges, discovered);
}

// Set-up of a pass: every vertex unseen by every lane, outside both
// frontiers, and (with kept depths) unreached in every lane.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_batch_init(const VyreArgs a) {
    for (u64 v = global_thread(); v < a.vertex_count; v += grid_threads()) {
        a.seen[v] = 0;
        a.words_in[v] = 0;
        a.words_out[v] = 0;
    }
    if (a.lane_depths) {
        const u64 words = (u64)a.vertex_count * a.lanes;
        for (u64 i = global_thread(); i < words; i += grid_threads()) {
            a.lane_depths[i] = VYRE_UNREACHED;
        }
    }
}

// Lane j starts at vertex lane_counts[j] (`aux` lanes, one block; the
// host puts the sources there, as a queue may be shorter than 64): its bit
// in seen and words_in, depth 0; the distinct sources become queue_in, the
// current frontier (with its out-edges). Runs after vyre_batch_init and
// after the control block was zeroed; the first command zeroes the
// counters again.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_batch_seed(const VyreArgs a) {
    if (blockIdx.x != 0) return;
    const u32 j = threadIdx.x;
    if (j < a.aux) {
        const u32 v = a.lane_counts[j];
        atomicOr(&a.seen[v], 1ull << j);
        atomicOr(&a.words_in[v], 1ull << j);
        if (a.lane_depths) a.lane_depths[(u64)v * a.lanes + j] = 0;
        bool first = true;
        for (u32 i = 0; i < j; ++i) first = first && a.lane_counts[i] != v;
        if (first) {
            a.queue_in[atomicAdd(&a.control->cur_len, 1u)] = v;
            atomicAdd(&a.control->cur_edges, out_degree(a, v));
        }
    }
}

// The frontier in words_in listed in queue_out (a batch's conversion from
// the bitmap form: its words stay where they are). One thread per vertex,
// one atomic per warp; the last block makes the count the current
// frontier's length.
extern "C" __global__ void __launch_bounds__(VYRE_MAX_BLOCK) vyre_batch_words_to_queue(const VyreArgs a) {
    const u32 n = a.vertex_count;
    // Warp-uniform loop: every lane of a warp runs the same iterations.
    for (u64 base = global_thread() - lane_id(); base < n; base += grid_threads()) {
        const u64 v = base + lane_id();
        const bool in = v < n && a.words_in[v] != 0;
        warp_append(a.queue_out, &a.control->conv_cursor, in, (u32)v);
    }
    conversion_done(a);
}
