#!/usr/bin/env bash
# Write the kernels as one C++-compilable file to $1: the files of
# shaders/cuda in the order src/source.rs joins them, with each
# `extern __shared__ T x[];` turned into a pointer to the emulator's
# per-block dynamic shared memory.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shaders="$here/../../../shaders/cuda"
for f in common.cuh search.cu top_down.cu bottom_up.cu fused.cu; do
    echo "#line 1 \"$f\""
    cat "$shaders/$f"
done | sed -E 's/extern __shared__ ([A-Za-z0-9_]+) ([A-Za-z0-9_]+)\[\];/\1* \2 = (\1*)emu_dynamic_smem;/' > "$1"
