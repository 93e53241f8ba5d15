#!/usr/bin/env bash
# Run the crate's Rust tests against fake_libcuda.cpp: a libcuda.so that
# runs the kernels on the CPU (see README.md). NVRTC must be loadable (the
# backend compiles the real PTX; the fake driver checks it and runs the
# emulated kernels). Arguments go to `cargo test`.
# Usage: crates/vyre-cuda/emu/cargo_test.sh [--test NAME] [-- FILTER]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${TMPDIR:-/tmp}/vyre-cuda-emu"
mkdir -p "$build/lib"
"$here/kernels_inc.sh" "$build/kernels.inc"
g++ -std=c++20 -O2 -g -pthread -fPIC -shared -Wall -Wno-unused-parameter -Wno-unused-variable \
    -I"$build" -I"$here" "$here/fake_libcuda.cpp" -o "$build/lib/libcuda.so"
export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VYRE_CUDA_EMULATED=1 VYRE_REQUIRE_BACKENDS=cuda
export VYRE_PTX_CACHE="$build/ptx"
cd "$here/../../.."
exec cargo test -p vyre-cuda --release "$@"
