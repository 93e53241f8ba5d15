#!/usr/bin/env bash
# Whole searches of the owner-computes kernel on vyre's CPU emulator, checked
# against a serial BFS (depths, parents, level count): as it is, and with
# entries read beside the neighbours' words (SPECULATE), and with its phases
# timed (PROFILE); then the one-cluster kernel (check_cluster.cpp) as it is,
# storing at the claim, with joined edges, profiled, with joined edges
# copied into the owner's shared memory (BULK), and with ids dealt to the
# blocks in runs (GRAIN); then the barrier-free kernel
# (check_async.cpp), as it is, with SHARE_IN_WARP, and its lean form. A few
# minutes.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="$(mktemp -d)"
for variant in "" "-DSPECULATE=4u" "-DPROFILE"; do
    echo "== owner_sync ${variant:-as it is}"
    g++ -O1 -std=c++20 -pthread $variant -I"$root/crates/vyre-cuda/emu" \
        -I"$root/shaders/cuda" -o "$dir/check" "$root/benches/owner_sync/check.cpp"
    "$dir/check"
done
for variant in "" "-DSTORE_AT_CLAIM" "-DJOINED" "-DPROFILE" "-DJOINED -DBULK" "-DSTORE_AT_CLAIM -DGRAIN=4u"; do
    echo "== cluster_owner ${variant:-as it is}"
    g++ -O1 -std=c++20 -pthread $variant -I"$root/crates/vyre-cuda/emu" \
        -I"$root/shaders/cuda" -o "$dir/check_cluster" "$root/benches/owner_sync/check_cluster.cpp"
    "$dir/check_cluster"
done
for variant in "" "-DSHARE_IN_WARP" "-DASYNC_KERNEL=async_lean_bfs" "-DASYNC_KERNEL=async_lean_bfs -DRELAXED_COUNT" \
    "-DASYNC_KERNEL=async_lean_bfs -DPOLL_WHEN_IDLE -DPROFILE" "-DASYNC_KERNEL=async_lean_bfs -DSHARDS=4u" \
    "-DASYNC_KERNEL=async_lean_bfs -DSHARDS=3u -DPROFILE"; do
    echo "== async_relax ${variant:-as it is}"
    g++ -O1 -std=c++20 -pthread $variant -I"$root/crates/vyre-cuda/emu" -I"$root/shaders/cuda" \
        -o "$dir/check_async" "$root/benches/owner_sync/check_async.cpp"
    "$dir/check_async"
done
