#!/usr/bin/env bash
# Build and run the CPU emulation of the vyre CUDA kernels (see README.md).
# Usage: crates/vyre-cuda/emu/run.sh [forced|rotate|chains|fused]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shaders="$here/../../../shaders/cuda"
build="${TMPDIR:-/tmp}/vyre-cuda-emu"
mkdir -p "$build"
# Same files, same order as src/source.rs; `extern __shared__ T x[];` becomes
# a pointer into the emulator's per-block dynamic shared memory.
for f in common.cuh search.cu top_down.cu bottom_up.cu fused.cu; do
    echo "#line 1 \"$f\""
    cat "$shaders/$f"
done | sed -E 's/extern __shared__ ([A-Za-z0-9_]+) ([A-Za-z0-9_]+)\[\];/\1* \2 = (\1*)emu_dynamic_smem;/' \
    > "$build/kernels.inc"
g++ -std=c++20 -O2 -g -pthread -Wall -Wno-unused-parameter -Wno-unused-variable \
    -I"$build" -I"$here" "$here/harness.cpp" -o "$build/harness"
exec "$build/harness" "$@"
