#!/usr/bin/env bash
# Whole searches of the owner-computes kernel on vyre's CPU emulator, checked
# against a serial BFS (depths, parents, level count). About a minute.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$(mktemp -d)/owner_sync_check"
g++ -O1 -std=c++20 -pthread -I"$root/crates/vyre-cuda/emu" -I"$root/shaders/cuda/experiments" \
    -o "$bin" "$root/benches/owner_sync/check.cpp"
"$bin"
