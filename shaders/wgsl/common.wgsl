// Shared by every per-wave kernel, after base.wgsl: the frontier buffers,
// the work array, the level words of a chain, and
// where an append to the next queue goes. The visits come next: visit.wgsl
// for a search, batch.wgsl for a batch pass.

// Level words of a frontier set (this_level / next_level).
const L_INDEX: u32 = 0u;          // index within the command of the level that runs on this set
const L_PIECES: u32 = 1u;         // Hybrid: heavy-vertex pieces appended by that level

// The frontier of the running level (set d) and the next one (set 1 - d):
// queues here; a search's bitmaps (visit.wgsl) or a batch pass's words
// (batch.wgsl) in bindings 7 and 8.
@group(0) @binding(5) var<storage, read_write> queue_in: array<u32>;
@group(0) @binding(6) var<storage, read_write> queue_out: array<u32>;
// Scratch of the top-down kernels: Sparse's chunk scans (per-vertex offsets
// within a chunk, then the chunk totals) or Hybrid's heavy-vertex pieces
// (vertex, first edge). Sized by DeviceLayout::work_bytes.
@group(0) @binding(9) var<storage, read_write> work: array<u32>;

// Level words (L_*) of this frontier set and of the other one.
@group(0) @binding(27) var<storage, read_write> this_level: array<atomic<u32>, 4>;
@group(0) @binding(28) var<storage, read_write> next_level: array<atomic<u32>, 4>;

// Entry `slot` of the next frontier queue (base.wgsl's appends).
fn store_found(slot: u32, v: u32) {
    queue_out[slot] = v;
}
