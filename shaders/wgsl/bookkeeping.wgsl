// Per-level bookkeeping of a command (one invocation each) and the empty
// kernel used to calibrate launch overhead.
//
// History buffer layout: words [0, 4 * L) are the timestamp area (two u64
// per level, resolved there at the end of a command; until then words 0..2
// hold the indirect dispatch arguments of the next level), then one record
// of four words per level from C_RECORD_BASE:
// frontier_in, frontier_out, frontier_out_edges, edges_examined.
// A record whose frontier_in is 0 belongs to a level that did not run.

@group(1) @binding(0) var<storage, read_write> history: array<u32>;

// Slot kinds (C_SLOT_KIND), mirroring vyre_driver::backend::slots_for.
const SLOTS_WARP: u32 = 0u;        // WARP_LANES per frontier vertex
const SLOTS_FRONTIER: u32 = 1u;    // one per frontier vertex
const SLOTS_VERTICES: u32 = 2u;    // one per vertex of the graph
const SLOTS_WORDS: u32 = 3u;       // one per 32-vertex bitmap word

fn level_slots(kind: u32, count: u32, n: u32) -> u32 {
    switch kind {
        case 0u: {
            if count > (0xffffffffu / 32u) {
                return 0xffffffffu;
            }
            return count * 32u;
        }
        case 1u: { return count; }
        case 2u: { return n; }
        default: { return (n + 31u) / 32u; }
    }
}

// Decide whether level C_CHAIN_INDEX runs, size its dispatch, open its record
// and zero its counters.
fn open_level() {
    let k = ctl(C_CHAIN_INDEX);
    let count = ctl(C_CUR_COUNT);
    var stopped = ctl(C_STOPPED);
    if stopped == 0u && (count == 0u || (k > 0u && ctl(C_CUR_EDGES) > ctl(C_BAND_MAX))) {
        stopped = 1u;
        atomicStore(&control[C_STOPPED], 1u);
    }
    var groups = 0u;
    if stopped == 0u {
        let slots = level_slots(ctl(C_SLOT_KIND), count, ctl(C_VERTEX_COUNT));
        let width = ctl(C_WIDTH);
        groups = min(slots / width + select(0u, 1u, slots % width != 0u), ctl(C_MAX_WORKGROUPS));
        groups = max(groups, 1u);
        history[ctl(C_RECORD_BASE) + 4u * k] = count;
        atomicStore(&control[C_NEXT_COUNT], 0u);
        atomicStore(&control[C_NEXT_EDGES], 0u);
        atomicStore(&control[C_EXAMINED], 0u);
    }
    history[0] = groups;
    history[1] = 1u;
    history[2] = 1u;
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
