//! Per-level cost with and without chaining, printed for the record (run
//! with `--ignored --nocapture`; timing is not asserted). On lavapipe the
//! wall and wait figures are CPU times of a software rasteriser; the encode
//! figures are the host work wgpu does on any backend.
//!
//! `VYRE_OVERHEAD_GRID=<side>` sets the grid of `per_level_overhead_split`
//! (default 300; the H200 figure of record is 3000).

mod common;

use std::sync::Arc;
use std::time::Instant;

use common::{begin, check, command, open, search, upload};
use vyre_driver::backend::{Backend, DeviceLayout};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::Graph;
use vyre_graph::generate::{chain, grid_2d};
use vyre_wgpu::WgpuBackend;

#[test]
#[ignore = "measurement; run explicitly"]
fn per_level_time_with_and_without_chaining() {
    let Some(mut backend) = open() else { return };
    println!("device: {}", backend.capabilities().device_name);
    let n = 2001;
    let graph = Arc::new(chain(n).expect("chain"));
    let layout = upload(&mut backend, &graph, 256);
    for topology in [T::WarpSparseFrontier, T::SparseFrontier, T::DenseFrontier] {
        for chain_len in [1, 16, 256] {
            // Warm-up (pipelines), then the timed search from one end.
            search(&mut backend, &layout, &graph, &[0], chain_len, &|_| {
                topology
            });
            let start = Instant::now();
            let result = search(&mut backend, &layout, &graph, &[0], chain_len, &|_| {
                topology
            });
            let elapsed = start.elapsed();
            check(&graph, &[0], &result, "chain");
            println!(
                "{topology:?} chain {chain_len:>3}: {} levels in {} commands, {:.1} us per level",
                result.levels.len(),
                result.commands,
                elapsed.as_secs_f64() * 1e6 / result.levels.len() as f64
            );
        }
    }
}

/// Host time of one search, summed over its commands.
#[derive(Default)]
struct Split {
    levels: u64,
    commands: u64,
    wall_ns: u64,
    encode_ns: u64,
    submit_ns: u64,
    wait_ns: u64,
    dispatches: u64,
    recorded: u64,
    /// Encode time per recorded level of each command that recorded the
    /// full chain, in ns: its minimum is robust to a busy host.
    encode_per_level: Vec<f64>,
}

/// A whole search from vertex 0, every command chaining up to `chain_len`
/// levels of `topology`, with the phases of every command summed.
fn timed_search(
    backend: &mut WgpuBackend,
    layout: &DeviceLayout,
    graph: &Graph,
    topology: T,
    chain_len: u32,
) -> Split {
    let mut split = Split::default();
    let mut at = begin(backend, graph, &[0]);
    let start = Instant::now();
    while at.frontier_len > 0 {
        let wave = command(backend, layout, topology, at, chain_len, u64::MAX);
        let report = backend.run_wave(&wave).expect("wave runs");
        let timing = backend.last_command_timing();
        split.commands += 1;
        split.encode_ns += timing.encode_ns;
        split.submit_ns += timing.submit_ns;
        split.wait_ns += timing.wait_ns;
        split.dispatches += u64::from(timing.dispatches);
        split.recorded += u64::from(timing.levels_recorded);
        if timing.levels_recorded == chain_len {
            split
                .encode_per_level
                .push(timing.encode_ns as f64 / f64::from(chain_len));
        }
        let last = report.levels.last().expect("a level ran");
        split.levels += report.levels.len() as u64;
        at = at.after(topology, report.levels.len() as u32, last);
    }
    split.wall_ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
    split
}

#[test]
#[ignore = "measurement; run explicitly"]
fn per_level_overhead_split() {
    let Some(mut backend) = open() else { return };
    let caps = backend.capabilities().clone();
    println!(
        "device: {} (calibrated empty round trip {:.1} us)",
        caps.device_name,
        caps.launch_overhead_ns / 1e3
    );
    let side: u32 = std::env::var("VYRE_OVERHEAD_GRID")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let graphs = [
        (
            format!("grid {side}x{side}"),
            grid_2d(side, side).expect("grid"),
        ),
        ("chain 4097".to_string(), chain(4097).expect("chain")),
    ];
    for (name, graph) in graphs {
        let graph = Arc::new(graph);
        let layout = upload(&mut backend, &graph, 64);
        for topology in [T::WarpSparseFrontier, T::SparseFrontier] {
            for chain_len in [1, 64] {
                // Warm-up (pipelines, allocations), then the fastest of 3
                // runs (the least disturbed by other work on the host).
                timed_search(&mut backend, &layout, &graph, topology, chain_len);
                let mut runs: Vec<Split> = (0..3)
                    .map(|_| timed_search(&mut backend, &layout, &graph, topology, chain_len))
                    .collect();
                runs.sort_by_key(|s| s.wall_ns);
                let mut encodes: Vec<f64> = runs
                    .iter()
                    .flat_map(|s| s.encode_per_level.iter().copied())
                    .collect();
                encodes.sort_by(f64::total_cmp);
                let s = &runs[0];
                let per = |ns: u64| ns as f64 / 1e3 / s.levels as f64;
                println!(
                    "{name} {topology:?} chain {chain_len:>2}: {} levels, {} commands, per level: wall {:.1} us = encode {:.1} + submit {:.1} + wait {:.1} (+ other {:.1}); encode share {:.0}%; full-length commands encode {:.2} us per recorded level (min; median {:.2}); {:.2} dispatches and {:.2} levels recorded per level run",
                    s.levels,
                    s.commands,
                    per(s.wall_ns),
                    per(s.encode_ns),
                    per(s.submit_ns),
                    per(s.wait_ns),
                    per(s
                        .wall_ns
                        .saturating_sub(s.encode_ns + s.submit_ns + s.wait_ns)),
                    100.0 * s.encode_ns as f64 / s.wall_ns as f64,
                    encodes.first().copied().unwrap_or(f64::NAN) / 1e3,
                    encodes.get(encodes.len() / 2).copied().unwrap_or(f64::NAN) / 1e3,
                    s.dispatches as f64 / s.levels as f64,
                    s.recorded as f64 / s.levels as f64,
                );
            }
        }
    }
}
