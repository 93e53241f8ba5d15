#!/usr/bin/env bash
# Build and run the CPU emulation of the vyre CUDA kernels (see README.md).
# Usage: crates/vyre-cuda/emu/run.sh [forced|rotate|chains|fused]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${TMPDIR:-/tmp}/vyre-cuda-emu"
mkdir -p "$build"
"$here/kernels_inc.sh" "$build/kernels.inc"
g++ -std=c++20 -O2 -g -pthread -Wall -Wno-unused-parameter -Wno-unused-variable \
    -I"$build" -I"$here" "$here/harness.cpp" -o "$build/harness"
exec "$build/harness" "$@"
