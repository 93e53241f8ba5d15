// Per-level bookkeeping of a command (one invocation each) and the empty
// kernel used to calibrate launch overhead.
//
// History buffer layout: words [0, 4 * L) are the timestamp area (two u64
// per level, resolved there at the end of a command), then one record of four
// words per level from C_RECORD_BASE:
// frontier_in, frontier_out, frontier_out_edges, edges_examined.
// A record whose frontier_in is 0 belongs to a level that did not run.
//
// Dispatch arguments (x, y, z, pad) of the level about to run, read by its
// indirect dispatches (keep in sync with crates/vyre-wgpu/src/control.rs):
// the level kernel at word 0, Sparse's chunk scan at word 4, Hybrid's piece
// dispatch at word 8. A level that does not run gets zero workgroups in all.

@group(1) @binding(0) var<storage, read_write> history: array<u32>;
@group(1) @binding(1) var<storage, read_write> dispatch_args: array<u32>;

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
    dispatch_args[at] = groups;
    dispatch_args[at + 1u] = 1u;
    dispatch_args[at + 2u] = 1u;
}

// Decide whether level C_CHAIN_INDEX runs, size its dispatches, open its
// record and zero its counters.
fn open_level() {
    let k = ctl(C_CHAIN_INDEX);
    let count = ctl(C_CUR_COUNT);
    let edges = ctl(C_CUR_EDGES);
    var stopped = ctl(C_STOPPED);
    if stopped == 0u && (count == 0u || (k > 0u && edges > ctl(C_BAND_MAX))) {
        stopped = 1u;
        atomicStore(&control[C_STOPPED], 1u);
    }
    var groups = 0u;
    var scan_groups = 0u;
    var piece_groups = 0u;
    if stopped == 0u {
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
        // a chunk has more than MID_ROUNDS rounds of mid-degree edges.
        if kind == SLOTS_HYBRID && edges > min(PIECE_EDGES, width * MID_ROUNDS) {
            piece_groups = max(min(div_ceil(edges, PIECE_DISPATCH_EDGES), cap), 1u);
        }
        groups = max(groups, 1u);
        history[ctl(C_RECORD_BASE) + 4u * k] = count;
        atomicStore(&control[C_NEXT_COUNT], 0u);
        atomicStore(&control[C_NEXT_EDGES], 0u);
        atomicStore(&control[C_EXAMINED], 0u);
        atomicStore(&control[C_PIECES], 0u);
    }
    set_args(ARGS_LEVEL, groups);
    set_args(ARGS_SCAN, scan_groups);
    set_args(ARGS_PIECES, piece_groups);
}

// Close the record of level C_CHAIN_INDEX; its discoveries become the frontier.
fn close_level() {
    let k = ctl(C_CHAIN_INDEX);
    if ctl(C_STOPPED) == 0u {
        let base = ctl(C_RECORD_BASE) + 4u * k;
        let found = ctl(C_NEXT_COUNT);
        let edges = ctl(C_NEXT_EDGES);
        history[base + 1u] = found;
        history[base + 2u] = edges;
        history[base + 3u] = ctl(C_EXAMINED);
        atomicStore(&control[C_CUR_COUNT], found);
        atomicStore(&control[C_CUR_EDGES], edges);
        atomicStore(&control[C_LEVEL], ctl(C_LEVEL) + 1u);
    }
    atomicStore(&control[C_CHAIN_INDEX], k + 1u);
}

// Before the first level of a command.
@compute @workgroup_size(1)
fn level_begin() {
    open_level();
}

// Between two levels of a chain: one dispatch closes one and opens the next.
@compute @workgroup_size(1)
fn level_advance() {
    close_level();
    open_level();
}

// After the last level of a command.
@compute @workgroup_size(1)
fn level_end() {
    close_level();
}

@compute @workgroup_size(1)
fn noop() {
}
