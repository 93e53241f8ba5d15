// Device-wide barrier probe: can every workgroup of this dispatch wait for all
// of the others inside one launch? Vulkan and WebGPU promise no forward
// progress between workgroups, so a backend measures it: it dispatches N
// workgroups of this kernel and reads back what they saw. A standalone
// module (nothing else prepended).
//
// Every workgroup arrives at a device-scope counter and spins, a bounded
// number of iterations, until all N have arrived: the shape of a grid barrier
// (release fence, relaxed arrive, spin, acquire fence). The spin is bounded so
// that the probe always finishes, whether or not the workgroups are
// co-resident; the backend reads the verdict from the words below.
//
// probe words (the host zeroes them and sets FEWEST_SEEN to 0xffffffff):
// - ARRIVED: workgroups that arrived;
// - COMPLETE: workgroups that saw all N arrive before their spin ran out;
// - FEWEST_SEEN: the fewest arrivals any workgroup saw when it stopped waiting;
// - SAW_WRITE: workgroups that, after the barrier, read the marker the next
//   workgroup wrote before it (the fences made that write visible);
// - then one marker word per workgroup.

override WG: u32 = 256u;

// Spin iterations one workgroup waits at most. lavapipe silently ends every
// loop after 65,535 iterations per invocation; staying below that keeps the
// bound this kernel's own. On a GPU one iteration is at least an L2 round
// trip, so this waits milliseconds: far longer than launching the grid takes.
const SPIN_LIMIT: u32 = 60000u;

const ARRIVED: u32 = 0u;
const COMPLETE: u32 = 1u;
const FEWEST_SEEN: u32 = 2u;
const SAW_WRITE: u32 = 3u;
const MARKERS: u32 = 4u;

@group(0) @binding(0) var<storage, read_write> probe: array<atomic<u32>>;

@compute @workgroup_size(WG)
fn probe_barrier(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let expected = nwg.x;
    let me = wid.x;
    if lid == 0u {
        atomicStore(&probe[MARKERS + me], me + 1u);
    }
    // Release: this workgroup's writes are made visible at device scope
    // before it arrives.
    storageBarrier();
    if lid == 0u {
        var seen = atomicAdd(&probe[ARRIVED], 1u) + 1u;
        for (var spin = 0u; spin < SPIN_LIMIT && seen < expected; spin += 1u) {
            seen = atomicLoad(&probe[ARRIVED]);
        }
        atomicMin(&probe[FEWEST_SEEN], seen);
        if seen >= expected {
            atomicAdd(&probe[COMPLETE], 1u);
        }
    }
    // Acquire: writes released before the others arrived are visible after.
    storageBarrier();
    if lid == 0u {
        let next = (me + 1u) % expected;
        if atomicLoad(&probe[MARKERS + next]) == next + 1u {
            atomicAdd(&probe[SAW_WRITE], 1u);
        }
    }
}
