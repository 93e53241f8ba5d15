// Frontier conversions between the queue and the bitmap of the current
// frontier (queue_in <-> bitmap_in).

// Queue to bitmap: bitmap_in is cleared by the host before this runs.
@compute @workgroup_size(WG)
fn queue_to_bitmap(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let count = ctl(C_CUR_COUNT);
    let lanes = lane_total(nwg);
    for (var i = group_index(wid, nwg) * WG + lid; i < count; i += lanes) {
        let v = queue_in[i];
        atomicOr(&bitmap_in[v >> 5u], 1u << (v & 31u));
    }
}

// Bitmap to queue: one append per non-empty word (C_CONV_COUNT starts at 0).
@compute @workgroup_size(WG)
fn bitmap_to_queue(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let words = (ctl(C_VERTEX_COUNT) + 31u) / 32u;
    let lanes = lane_total(nwg);
    for (var w = group_index(wid, nwg) * WG + lid; w < words; w += lanes) {
        var bits = atomicLoad(&bitmap_in[w]);
        if bits == 0u {
            continue;
        }
        var slot = atomicAdd(&control[C_CONV_COUNT], countOneBits(bits));
        while bits != 0u {
            let b = firstTrailingBit(bits);
            queue_in[slot] = w * 32u + b;
            slot += 1u;
            bits &= bits - 1u;
        }
    }
}
