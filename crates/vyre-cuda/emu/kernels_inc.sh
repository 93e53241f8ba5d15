#!/usr/bin/env bash
# Write the kernels as one C++-compilable file to $1: the engine's
# EDGES_PER_LANE (read from vyre-driver, its one definition) as
# VYRE_ENGINE_EDGES_PER_LANE for the harness, then the files of shaders/cuda
# in the order src/source.rs joins them, with each `extern __shared__ T x[];`
# turned into a pointer to the emulator's per-block dynamic shared memory.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shaders="$here/../../../shaders/cuda"
wave="$here/../../vyre-driver/src/backend/wave.rs"
edges_per_lane="$(sed -n 's/^pub const EDGES_PER_LANE: u32 = \([0-9][0-9]*\);$/\1/p' "$wave")"
if [ -z "$edges_per_lane" ]; then
    echo "kernels_inc.sh: no 'pub const EDGES_PER_LANE: u32 = N;' in $wave" >&2
    exit 1
fi
{
    echo "#define VYRE_ENGINE_EDGES_PER_LANE ${edges_per_lane}u"
    for f in common.cuh cluster.cuh search.cu top_down.cu bottom_up.cu fused.cu fused_local_timing.cuh fused_local.cu batch.cu batch_fused.cu ranks.cu; do
        echo "#line 1 \"$f\""
        cat "$shaders/$f"
    done
} | sed -E 's/extern __shared__ ([A-Za-z0-9_]+) ([A-Za-z0-9_]+)\[\];/\1* \2 = (\1*)emu_dynamic_smem;/' > "$1"
