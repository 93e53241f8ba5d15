#!/usr/bin/env bash
# Build and run the CPU emulation of the vyre CUDA kernels (see README.md).
# Usage: crates/vyre-cuda/emu/run.sh [forced|rotate|chains|fused|cluster|stuck]
# Without an argument: every mode, `stuck` (a build of the test-only fused
# kernel whose barrier never opens) last. VYRE_EMU_DEFINES adds compiler
# flags to every build (a kernel variant: -DVYRE_LOCAL_ROUND=2u).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${TMPDIR:-/tmp}/vyre-cuda-emu"
mkdir -p "$build"
"$here/kernels_inc.sh" "$build/kernels.inc"
compile() {
    # A block of a light fused launch keeps 8 frontier entries on chip, not
    # 512, so that small frontiers spill to global memory as well.
    g++ -std=c++20 -O2 -g -pthread -Wall -Wno-unused-parameter -Wno-unused-variable \
        -Wno-unknown-pragmas -DVYRE_LOCAL_LIST=8u \
        ${VYRE_EMU_DEFINES:-} -I"$build" -I"$here" "$@" "$here/harness.cpp"
}
mode="${1:-}"
if [ "$mode" != stuck ]; then
    compile -o "$build/harness"
    "$build/harness" "$@"
fi
if [ -z "$mode" ]; then
    "$build/harness" cluster
fi
if [ -z "$mode" ] || [ "$mode" = fused ]; then
    # Light fused launches of more than VYRE_LOCAL_MAX_BLOCKS blocks share
    # each level's frontier out through the queue (fused_levels<false>): a
    # build where that limit is 2 runs them on the harness's 3 and 4 blocks.
    compile -DVYRE_LOCAL_MAX_BLOCKS=2u -o "$build/harness-wide"
    "$build/harness-wide" fused
fi
if [ -z "$mode" ] || [ "$mode" = stuck ]; then
    compile -DVYRE_TEST_STUCK_BARRIER -o "$build/harness-stuck"
    "$build/harness-stuck" stuck
fi
