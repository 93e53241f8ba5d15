//! What one level of the fused persistent kernel costs on this device, for
//! several grid sizes, against one warp-sparse launch per level on the same
//! graphs; and the wall time of fused commands of one and two levels. Prints
//! a table (uncaptured) and checks every complete search against the
//! reference BFS. Needs a CUDA device with a device-wide barrier; skips
//! visibly without one. About 20 s on an H200.

mod common;

use std::sync::Arc;

use common::{
    Choice, Gpu, Outcome, begin, check_outcome, command_for, has_barrier, open_gpu, run, size,
    small, upload, visible,
};
use vyre_driver::backend::Backend;
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as Topology;
use vyre_graph::Graph;
use vyre_graph::generate::{chain, grid_2d};

/// Levels a fused command may run (the layout holds `HISTORY_LEVELS`).
const FUSED_LEVELS: u32 = common::HISTORY_LEVELS;

/// Totals of one search (or its first `level_cap` levels).
#[derive(Clone, Copy, Default)]
struct Totals {
    levels: u64,
    commands: u64,
    device_ns: u64,
    wall_ns: u64,
}

impl Totals {
    fn device_us_per_level(&self) -> f64 {
        self.device_ns as f64 / 1e3 / self.levels.max(1) as f64
    }
    fn wall_us_per_level(&self) -> f64 {
        self.wall_ns as f64 / 1e3 / self.levels.max(1) as f64
    }
}

/// Search `graph` from `sources` with `choice` for every command until the
/// frontier empties or `level_cap` levels ran. Returns the totals, the
/// per-command reports as an [`Outcome`] when the search completed, and the
/// wall time of every command.
fn drive(
    gpu: &mut Gpu,
    graph: &Graph,
    sources: &[u32],
    choice: Choice,
    level_cap: u32,
) -> (Totals, Option<Outcome>, Vec<u64>) {
    let n = graph.vertex_count();
    let mut position = begin(&mut gpu.backend, graph, sources);
    let mut totals = Totals::default();
    let mut waves = Vec::new();
    let mut walls = Vec::new();
    while position.frontier_len > 0 && position.level < level_cap {
        let command = command_for(&gpu.backend, graph, &choice, position);
        let (report, after) = run(&mut gpu.backend, &command)
            .unwrap_or_else(|e| panic!("{choice:?} at level {}: {e}", position.level));
        totals.levels += report.levels.len() as u64;
        totals.commands += 1;
        totals.device_ns += report.device_ns.expect("device time");
        totals.wall_ns += report.wall_ns;
        walls.push(report.wall_ns);
        position = after;
        waves.push((choice, report));
    }
    if position.frontier_len > 0 {
        return (totals, None, walls);
    }
    let mut depths = vec![0; n as usize];
    let mut parents = vec![0; n as usize];
    gpu.backend.read_depths(&mut depths).expect("read_depths");
    gpu.backend
        .read_parents(&mut parents)
        .expect("read_parents");
    let outcome = Outcome {
        depths,
        parents,
        waves,
    };
    (totals, Some(outcome), walls)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

fn median_u64(values: &[u64]) -> f64 {
    median(values.iter().map(|&v| v as f64).collect())
}

/// Grid sizes to compare: one block, a few fractions of an H200's 132 SMs
/// (up to 128 blocks a light graph's levels keep their frontiers in each
/// block, `fused_local.cu`; past it they share them out through the queue)
/// and every resident block, as far as the device holds them.
fn grid_sizes(resident: u32) -> Vec<u32> {
    let wanted: &[u32] = if small() {
        &[1, 2, 4]
    } else {
        &[1, 16, 66, 128, 132, 264]
    };
    let mut sizes: Vec<u32> = wanted.iter().copied().filter(|&g| g < resident).collect();
    sizes.push(resident);
    sizes
}

fn fused(blocks: u32) -> Choice {
    Choice {
        max_levels: FUSED_LEVELS,
        blocks: Some(blocks),
        ..Choice::single(Topology::FusedWave)
    }
}

/// Fused cost per level at every grid size, and warp-sparse one launch per
/// level (the first `per_wave_cap` levels) on `graph` from vertex 0.
fn profile_graph(
    gpu: &mut Gpu,
    name: &str,
    graph: &Arc<Graph>,
    per_wave_cap: u32,
    reps: u32,
    check: bool,
) {
    upload(&mut gpu.backend, graph);
    let sources = [0];
    let resident = gpu.backend.capabilities().resident_workgroups;
    // One warm-up search, so that no figure below pays a first touch.
    let _ = drive(gpu, graph, &sources, fused(resident), u32::MAX);
    let (per_wave, _, _) = drive(
        gpu,
        graph,
        &sources,
        Choice::single(Topology::WarpSparseFrontier),
        per_wave_cap,
    );
    for (i, blocks) in grid_sizes(resident).into_iter().enumerate() {
        let mut device = Vec::new();
        let mut wall = Vec::new();
        let mut levels = 0;
        let mut commands = 0;
        for rep in 0..reps {
            let (totals, outcome, _) = drive(gpu, graph, &sources, fused(blocks), u32::MAX);
            let outcome = outcome.expect("a fused search runs to the end");
            if rep == 0 && (check || i == 0) {
                let what = format!("fused x{FUSED_LEVELS} on {name} with {blocks} blocks");
                check_outcome(&what, graph, &sources, &outcome);
            }
            device.push(totals.device_us_per_level());
            wall.push(totals.wall_us_per_level());
            levels = totals.levels;
            commands = totals.commands;
        }
        let fused_wall = median(wall);
        visible(&format!(
            "{name:<16} {levels:>7} {commands:>5} {blocks:>6} {:>10.2} {fused_wall:>10.2} {:>11.2} {:>11.2} {:>7.2}x",
            median(device),
            per_wave.device_us_per_level(),
            per_wave.wall_us_per_level(),
            per_wave.wall_us_per_level() / fused_wall.max(1e-9),
        ));
    }
}

/// Wall and device time of short commands, each its own command from the
/// start of a search on `graph`, median over `count` commands.
fn short_commands(gpu: &mut Gpu, graph: &Arc<Graph>, first_fused_wall_ns: u64) {
    let resident = gpu.backend.capabilities().resident_workgroups;
    let count = size(200, 20);
    let mut rows = Vec::new();
    for (label, choice) in [
        (
            "fused, 1 level",
            Choice {
                blocks: Some(resident),
                ..Choice::single(Topology::FusedWave)
            },
        ),
        (
            "fused, 2 levels",
            Choice {
                max_levels: 2,
                blocks: Some(resident),
                ..Choice::single(Topology::FusedWave)
            },
        ),
        (
            "warp-sparse, 1 level",
            Choice::single(Topology::WarpSparseFrontier),
        ),
    ] {
        let (totals, _, walls) = drive(gpu, graph, &[0], choice, count * choice.max_levels);
        let device_per_command = totals.device_ns as f64 / totals.commands.max(1) as f64;
        rows.push(format!(
            "  {label:<22} wall {:>7.1} us (median of {}), device {:>7.1} us (mean)",
            median_u64(&walls) / 1e3,
            walls.len(),
            device_per_command / 1e3
        ));
    }
    visible(&format!(
        "short commands on the {} vertex grid, {resident} fused blocks:",
        graph.vertex_count()
    ));
    visible(&format!(
        "  first fused command after open: wall {:.1} us",
        first_fused_wall_ns as f64 / 1e3
    ));
    for row in rows {
        visible(&row);
    }
}

#[test]
fn fused_per_level_cost() {
    let Some(mut gpu) = open_gpu("fused_profile") else {
        return;
    };
    if !has_barrier(&gpu) {
        return;
    }
    let side = size(1000, 24);
    let grid = Arc::new(grid_2d(side, side).expect("grid"));
    let path = Arc::new(chain(size(100_000, 300)).expect("chain"));
    let caps = gpu.backend.capabilities().clone();

    // The very first fused command of this backend, before anything warmed
    // it up.
    upload(&mut gpu.backend, &grid);
    let resident = caps.resident_workgroups;
    let one = Choice {
        blocks: Some(resident),
        ..Choice::single(Topology::FusedWave)
    };
    let (_, _, first) = drive(&mut gpu, &grid, &[0], one, 1);

    visible(&format!(
        "fused per-level cost on {}, {} resident blocks of {}",
        caps.device_name, caps.resident_workgroups, caps.resident_workgroup_size
    ));
    visible(&format!(
        "{:<16} {:>7} {:>5} {:>6} {:>10} {:>10} {:>11} {:>11} {:>8}",
        "graph",
        "levels",
        "cmds",
        "blocks",
        "fused dev",
        "fused wall",
        "per-lvl dev",
        "per-lvl wall",
        "ratio"
    ));
    visible(&format!(
        "{:<16} {:>7} {:>5} {:>6} {:>10} {:>10} {:>11} {:>11} {:>8}",
        "", "", "", "", "us/level", "us/level", "us/level", "us/level", "wall"
    ));
    let grid_name = format!("grid {side}x{side}");
    profile_graph(&mut gpu, &grid_name, &grid, u32::MAX, size(3, 1), true);
    let chain_name = format!("chain {}", path.vertex_count());
    profile_graph(
        &mut gpu,
        &chain_name,
        &path,
        size(20_000, 300),
        size(2, 1),
        true,
    );
    if !small() {
        // The grid of the project's goal (5,999 levels); checked once.
        let big = Arc::new(grid_2d(3000, 3000).expect("grid"));
        profile_graph(&mut gpu, "grid 3000x3000", &big, u32::MAX, 3, false);
    }
    visible(
        "(per-lvl: warp-sparse, one launch per level, the chain's first 20,000 levels; ratio: its wall per level / fused wall per level)",
    );
    upload(&mut gpu.backend, &grid);
    short_commands(&mut gpu, &grid, first.first().copied().unwrap_or(0));
}
