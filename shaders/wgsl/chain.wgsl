// Level transitions of a command. The last workgroup to finish the dispatch
// that ends a level closes it (writes its record, makes its discoveries the
// frontier) and opens the next level of the chain (sizes its dispatches into
// next_args, zeroes its counters), so a chained level costs its own
// dispatches and nothing else. Prepended, after common.wgsl, to every kernel
// file (crates/vyre-wgpu/src/kernels.rs).
//
// Records (from history word C_RECORD_BASE, four words per level):
// frontier_in, frontier_out, frontier_out_edges, edges_examined. When a
// chain stops, the record after the last level run gets frontier_in = 0;
// the host reads records up to it.
//
// A stopped chain leaves the dispatches the host recorded for its later
// levels: the one after the stop has zero workgroups, and the ones after it
// read arguments of earlier levels, so every level kernel starts with
// chain_stopped and returns at once.

const ARGS_LEVEL: u32 = 0u;
const ARGS_SCAN: u32 = 4u;
const ARGS_PIECES: u32 = 8u;

// Slot kinds (C_SLOT_KIND), mirroring vyre_driver::backend::slots_for.
const SLOTS_WARP: u32 = 0u;        // WARP_LANES per frontier vertex
const SLOTS_FRONTIER: u32 = 1u;    // one per frontier vertex
const SLOTS_VERTICES: u32 = 2u;    // one per vertex of the graph
const SLOTS_WORDS: u32 = 3u;       // one per 32-vertex bitmap word
const SLOTS_SPARSE: u32 = 4u;      // Sparse: sized by the frontier's edges
const SLOTS_HYBRID: u32 = 5u;      // Hybrid: one per frontier vertex, plus pieces
const SLOTS_HYBRID_LIGHT: u32 = 6u;// Hybrid, later levels recorded without a piece dispatch

fn level_slots(kind: u32, count: u32, n: u32) -> u32 {
    switch kind {
        case 0u: {
            if count > (0xffffffffu / 32u) {
                return 0xffffffffu;
            }
            return count * 32u;
        }
        case 2u: { return n; }
        case 3u: { return (n + 31u) / 32u; }
        default: { return count; }
    }
}

fn set_args(at: u32, groups: u32) {
    next_args[at] = groups;
    next_args[at + 1u] = 1u;
    next_args[at + 2u] = 1u;
}

// Open level `k` of the command, whose frontier has `count` vertices and
// `edges` out-edges: size its dispatches and zero its counters, or stop the
// chain (an empty frontier, or a later level out of band).
fn open_level(k: u32, count: u32, edges: u32) {
    var groups = 0u;
    var scan_groups = 0u;
    var piece_groups = 0u;
    if count == 0u || (k > 0u && edges > ctl(C_BAND_MAX)) {
        atomicStore(&control[C_STOPPED], 1u);
        history[ctl(C_RECORD_BASE) + 4u * k] = 0u;
    } else {
        let kind = ctl(C_SLOT_KIND);
        let width = ctl(C_WIDTH);
        let cap = ctl(C_MAX_WORKGROUPS);
        if kind == SLOTS_SPARSE {
            // Equal shares of the edges, each at least WG * EDGES_PER_LANE
            // edges and, chunked, no fewer than the chunk totals every
            // workgroup scans.
            let chunk = sparse_chunk(count, edges, width, cap);
            atomicStore(&control[C_SPARSE_CHUNK], chunk);
            var share = width * EDGES_PER_LANE;
            if chunk != 0u {
                let chunks = div_ceil(count, chunk);
                scan_groups = min(chunks, cap);
                share = max(share, chunks);
            }
            groups = min(div_ceil(edges, share), cap);
        } else {
            let slots = level_slots(kind, count, ctl(C_VERTEX_COUNT));
            groups = min(div_ceil(slots, width), cap);
        }
        // Pieces exist only if a vertex has more than PIECE_EDGES edges or
        // a chunk has more than MID_ROUNDS rounds of mid-degree edges. The
        // host records the piece dispatch whenever this can hold (for the
        // first level, whenever level_begin runs), and says by the slot kind
        // when it did not for later levels: those end in the light pass.
        let pieces_recorded = kind == SLOTS_HYBRID || (kind == SLOTS_HYBRID_LIGHT && k == 0u);
        if pieces_recorded && edges > min(PIECE_EDGES, width * MID_ROUNDS) {
            piece_groups = max(min(div_ceil(edges, PIECE_DISPATCH_EDGES), cap), 1u);
        }
        groups = max(groups, 1u);
        atomicStore(&control[C_NEXT_COUNT], 0u);
        atomicStore(&control[C_NEXT_EDGES], 0u);
        atomicStore(&control[C_EXAMINED], 0u);
        atomicStore(&control[C_PIECES], 0u);
    }
    atomicStore(&control[C_PIECE_GROUPS], piece_groups);
    set_args(ARGS_LEVEL, groups);
    set_args(ARGS_SCAN, scan_groups);
    set_args(ARGS_PIECES, piece_groups);
}

// Close the running level: its record, its discoveries as the frontier, and
// the next level of the command opened.
fn close_level() {
    let k = ctl(C_CHAIN_INDEX);
    let found = ctl(C_NEXT_COUNT);
    let edges = ctl(C_NEXT_EDGES);
    let base = ctl(C_RECORD_BASE) + 4u * k;
    history[base] = ctl(C_CUR_COUNT);
    history[base + 1u] = found;
    history[base + 2u] = edges;
    history[base + 3u] = ctl(C_EXAMINED);
    atomicStore(&control[C_CUR_COUNT], found);
    atomicStore(&control[C_CUR_EDGES], edges);
    atomicStore(&control[C_LEVEL], ctl(C_LEVEL) + 1u);
    atomicStore(&control[C_CHAIN_INDEX], k + 1u);
    if k + 1u < ctl(C_LEVELS) {
        open_level(k + 1u, found, edges);
    }
}

var<workgroup> l_last: u32;

// Whether the chain stopped before the level this dispatch belongs to. Call
// first, from every invocation; return at once when it holds.
fn chain_stopped(lid: u32) -> bool {
    return uniform_ctl(lid, C_STOPPED) != 0u;
}

// End of a workgroup of a level's last dispatch (`closes`, uniform) or of
// any other one: the last workgroup of a closing dispatch to arrive closes
// the level. Call last, from every invocation, after flush_counters. The
// storage barriers order each workgroup's counter updates before its
// arrival, and the closer's reads after it.
fn finish_level(lid: u32, nwg: vec3<u32>, closes: bool) {
    if !closes {
        return;
    }
    storageBarrier();
    if lid == 0u {
        let arrived = atomicAdd(&control[C_ARRIVED], 1u) + 1u;
        l_last = select(0u, 1u, arrived == group_total(nwg));
    }
    if workgroupUniformLoad(&l_last) != 0u {
        storageBarrier();
        if lid == 0u {
            atomicStore(&control[C_ARRIVED], 0u);
            close_level();
        }
    }
}
