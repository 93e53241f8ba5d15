//! The engine's single searches against the scripted backend (`mock/`):
//! fusing and chaining by the policy, launch sizes, bands, and the checks
//! that catch a backend breaking the contract.

mod mock;

use std::sync::Arc;

use mock::{Mock, RESIDENT_LANES, grid};
use vyre_driver::backend::{
    DeviceLayout, FrontierForm, edge_balanced_slots, is_edge_balanced, slots_for,
};
use vyre_driver::collective::{ExchangeKind, RankPlan};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;
use vyre_graph::bfs::reference_bfs;
use vyre_graph::generate::grid_2d;
use vyre_runtime::plan::chain::MAX_FUSED_LEVELS;
use vyre_runtime::plan::grid::{
    CHAIN_GRID_GROWTH, CHAIN_GRID_GROWTH_DIVISOR, FUSED_EDGES_PER_LANE, MIN_CHAIN_GRID,
};
use vyre_runtime::{ChainMode, Engine, EngineError, SearchRequest, TopologyChoice};

#[test]
fn launch_bound_levels_fuse_on_a_device_with_a_barrier() {
    // 12 us per level on the host, 1 us on the device: launch-bound.
    let (mock, commands) = Mock::new(true, (12_000, 1_000));
    let mut engine = Engine::new(Box::new(mock));
    let graph = grid();
    engine.load(Arc::clone(&graph)).unwrap();
    let result = engine.bfs(&SearchRequest::new(&[0])).unwrap();
    assert_eq!(result.depths, reference_bfs(&graph, &[0]).depths);

    let fused: Vec<_> = result
        .levels
        .iter()
        .filter(|l| l.topology == MegakernelExecutionTopology::FusedWave)
        .collect();
    assert!(!fused.is_empty(), "the policy never fused");
    assert!(fused.iter().all(|l| {
        l.explanation
            .contains("reason=launch_and_readback_pressure_fused")
    }));
    // The first wave has no measurement yet, so it cannot be fused.
    assert_ne!(
        result.levels[0].topology,
        MegakernelExecutionTopology::FusedWave
    );
    // Most of the grid's 99 levels run inside fused launches.
    assert!(fused.len() > 90, "{} fused levels", fused.len());
    for c in commands.lock().unwrap().iter() {
        if c.topology == MegakernelExecutionTopology::FusedWave {
            assert!(c.launch.workgroups() <= 6, "{:?}", c.launch);
            assert_eq!(c.launch.workgroup_size_x, 128);
            assert!(c.max_levels > 1);
            assert_eq!(c.position.form, FrontierForm::Queue);
        }
    }
}

#[test]
fn fused_launches_start_narrow_and_widen_as_the_frontier_grows() {
    let (mock, commands) = Mock::new(true, (12_000, 1_000));
    let mut engine = Engine::new(Box::new(mock));
    // Frontiers of up to 150 vertices and about 600 out-edges: wider than
    // one workgroup of 128 lanes covers.
    let graph = Arc::new(grid_2d(200, 150).unwrap());
    engine.load(Arc::clone(&graph)).unwrap();
    let result = engine.bfs(&SearchRequest::new(&[0])).unwrap();
    assert_eq!(result.depths, reference_bfs(&graph, &[0]).depths);
    let resident = u64::from(RESIDENT_LANES / 128);
    let fused: Vec<_> = commands
        .lock()
        .unwrap()
        .iter()
        .filter(|c| c.topology == MegakernelExecutionTopology::FusedWave)
        .copied()
        .collect();
    assert!(fused.len() >= 2, "{fused:?}");
    // The corner's first frontiers are a few vertices: one workgroup.
    assert_eq!(fused[0].launch.workgroups(), 1, "{:?}", fused[0]);
    let widest = fused.iter().map(|c| c.launch.workgroups()).max().unwrap();
    assert!(widest > 1, "no fused launch widened: {fused:?}");
    for c in &fused {
        let lanes = c.launch.workgroups() * u64::from(c.launch.workgroup_size_x);
        // Room for the frontier it starts from, and a band no wider than
        // what its lanes cover unless it holds every resident workgroup.
        assert!(lanes >= u64::from(c.position.frontier_len), "{c:?}");
        if c.launch.workgroups() < resident {
            assert!(
                c.band_max_frontier_edges <= lanes * FUSED_EDGES_PER_LANE,
                "{c:?}"
            );
        }
    }
    // A launch that handed back because its grid ran out is followed by a
    // wider one.
    for pair in fused.windows(2) {
        let covered = pair[0].launch.workgroups()
            * u64::from(pair[0].launch.workgroup_size_x)
            * FUSED_EDGES_PER_LANE;
        if pair[1].position.frontier_edges > covered {
            assert!(
                pair[1].launch.workgroups() > pair[0].launch.workgroups(),
                "{pair:?}"
            );
        }
    }
}

#[test]
fn launch_bound_levels_chain_on_a_device_without_a_barrier() {
    let (mock, commands) = Mock::new(false, (12_000, 1_000));
    let mut engine = Engine::new(Box::new(mock));
    let graph = grid();
    engine.load(Arc::clone(&graph)).unwrap();
    let result = engine.bfs(&SearchRequest::new(&[0])).unwrap();
    assert_eq!(result.depths, reference_bfs(&graph, &[0]).depths);
    assert!(
        result
            .levels
            .iter()
            .all(|l| l.topology != MegakernelExecutionTopology::FusedWave)
    );
    let lengths: Vec<u32> = commands
        .lock()
        .unwrap()
        .iter()
        .map(|c| c.max_levels)
        .collect();
    // The first command runs a short chain (two levels); chains double
    // while launch overhead dominates, from the levels the last command
    // ran: a chain that stopped at a band edge is not doubled.
    assert_eq!(&lengths[..2], &[2, 4], "{lengths:?}");
    let mut ran = vec![0u32; lengths.len()];
    for l in &result.levels {
        ran[l.command as usize] += 1;
    }
    for i in 1..lengths.len() {
        assert!(
            lengths[i] <= 2 * ran[i - 1],
            "command {i}: {lengths:?} after running {ran:?}"
        );
    }
    assert!(
        ran.iter().zip(&lengths).any(|(r, l)| r < l),
        "some chain stops at a band edge on this grid: {lengths:?} {ran:?}"
    );
    assert!(
        lengths.len() < 20,
        "{} commands for 99 levels",
        lengths.len()
    );
}

#[test]
fn kernel_bound_levels_run_one_per_command() {
    // 12 us per level, 11 us of it on the device: not launch-bound.
    let (mock, commands) = Mock::new(true, (12_000, 11_000));
    let mut engine = Engine::new(Box::new(mock));
    engine.load(grid()).unwrap();
    let result = engine.bfs(&SearchRequest::new(&[0])).unwrap();
    assert_eq!(result.levels.len(), 60 + 40 - 1);
    let commands = commands.lock().unwrap();
    assert!(
        commands
            .iter()
            .all(|c| c.topology != MegakernelExecutionTopology::FusedWave)
    );
    // Only the first command, whose frontier is the source, runs two.
    let lengths: Vec<u32> = commands.iter().map(|c| c.max_levels).collect();
    assert_eq!(lengths[0], 2, "{lengths:?}");
    assert!(lengths[1..].iter().all(|&l| l == 1), "{lengths:?}");
}

#[test]
fn the_trace_shows_each_levels_exchange_on_a_partitioned_device_only() {
    use MegakernelExecutionTopology as T;
    for (ranks, topology, expected) in [
        (1, T::SparseFrontier, None),
        (1, T::DenseFrontier, None),
        (3, T::SparseFrontier, Some(ExchangeKind::Lists)),
        (3, T::WarpSparseFrontier, Some(ExchangeKind::Lists)),
        (3, T::DenseFrontier, Some(ExchangeKind::Bitmap)),
        (3, T::BlockDenseFrontier, Some(ExchangeKind::Bitmap)),
    ] {
        let (mut mock, _) = Mock::new(false, (12_000, 11_000));
        mock.ranks = ranks;
        let mut engine = Engine::new(Box::new(mock));
        engine.load(grid()).unwrap();
        let mut request = SearchRequest::new(&[0]);
        request.topology = TopologyChoice::Forced(topology);
        let result = engine.bfs(&request).unwrap();
        assert!(!result.levels.is_empty());
        for level in &result.levels {
            assert_eq!(level.exchange, expected, "{ranks} ranks, {topology:?}");
        }
    }
}

#[test]
fn multi_level_commands_carry_a_finite_band() {
    let (mock, commands) = Mock::new(false, (12_000, 1_000));
    let mut engine = Engine::new(Box::new(mock));
    engine.load(grid()).unwrap();
    let request = SearchRequest {
        sources: &[0],
        topology: TopologyChoice::Forced(MegakernelExecutionTopology::SparseFrontier),
        chaining: ChainMode::Levels(16),
    };
    engine.bfs(&request).unwrap();
    for c in commands.lock().unwrap().iter() {
        assert_eq!(c.max_levels, 16);
        assert!(c.band_max_frontier_edges < u64::MAX);
    }
}

#[test]
fn long_chains_run_on_their_first_grid_with_room_to_grow() {
    // Warp-sparse levels of this grid could use 300 workgroups (a warp's
    // lanes for every vertex); an edge-balanced level's cap is under the
    // chain grid's floor here (its unit tests cover those).
    let topology = MegakernelExecutionTopology::WarpSparseFrontier;
    for levels in [16, 2] {
        let (mock, commands) = Mock::new(false, (12_000, 1_000));
        let mut engine = Engine::new(Box::new(mock));
        let graph = grid();
        engine.load(Arc::clone(&graph)).unwrap();
        let request = SearchRequest {
            sources: &[0],
            topology: TopologyChoice::Forced(topology),
            chaining: ChainMode::Levels(levels),
        };
        let result = engine.bfs(&request).unwrap();
        assert_eq!(result.depths, reference_bfs(&graph, &[0]).depths);
        for (i, c) in commands.lock().unwrap().iter().enumerate() {
            if levels == 2 {
                // A short chain has no band of vertices.
                assert_eq!(c.band_max_frontier_vertices, u32::MAX, "command {i}");
                continue;
            }
            let later = u64::from(c.launch.later.max_workgroups);
            let grown = (c.launch.workgroups() * CHAIN_GRID_GROWTH / CHAIN_GRID_GROWTH_DIVISOR)
                .max(u64::from(MIN_CHAIN_GRID));
            assert!(later <= grown, "command {i}: {later} > {grown}");
            let band = u64::from(c.band_max_frontier_vertices);
            assert!(band < 2_400, "command {i}: band {band}");
            // Every frontier the band admits fits the later grid: at most
            // the band's vertices, and no more vertices than the frontier
            // before had out-edges.
            let admitted = band.min(c.band_max_frontier_edges.max(c.position.frontier_edges));
            let lanes = later * u64::from(c.launch.workgroup_size_x);
            assert!(lanes >= admitted * 32, "command {i}");
            for level in result
                .levels
                .iter()
                .filter(|l| l.command as usize == i)
                .skip(1)
            {
                assert!(
                    u64::from(level.frontier_in) <= band,
                    "level {}",
                    level.level
                );
            }
        }
    }
}

#[test]
fn a_backend_holding_more_than_the_plan_is_caught() {
    let (mut mock, _) = Mock::new(false, (1, 1));
    mock.extra_bytes = 1;
    let mut engine = Engine::new(Box::new(mock));
    let err = engine.load(grid()).unwrap_err();
    assert!(matches!(err, EngineError::ContractViolation(_)), "{err:?}");
}

#[test]
fn a_partitioned_backend_is_held_to_its_rank_plan_even_on_one_rank() {
    let graph = grid();
    // On this small graph one rank's plan is below the one-device layout
    // (whose level history is large), so a backend one byte over its rank
    // plan is still within the layout: only the rank plan catches it.
    let layout = DeviceLayout::for_graph(&graph, &mock::caps(false), MAX_FUSED_LEVELS).unwrap();
    let rank = RankPlan::for_graph(&graph, &[u64::MAX]).unwrap().bytes[0].total();
    assert!(
        rank < layout.total_bytes(),
        "{rank} {}",
        layout.total_bytes()
    );
    for extra in [0, 1] {
        let (mut mock, _) = Mock::new(false, (1, 1));
        mock.partitioned = true;
        mock.extra_bytes = extra;
        let mut engine = Engine::new(Box::new(mock));
        let loaded = engine.load(Arc::clone(&graph));
        match extra {
            0 => loaded.unwrap(),
            _ => assert!(
                matches!(loaded, Err(EngineError::ContractViolation(_))),
                "{loaded:?}"
            ),
        }
    }
}

#[test]
fn every_launch_fits_the_device_limits() {
    let (mock, commands) = Mock::new(true, (12_000, 1_000));
    let mut engine = Engine::new(Box::new(mock));
    engine.load(grid()).unwrap();
    for topology in MegakernelExecutionTopology::ALL {
        let request = SearchRequest {
            sources: &[5, 77],
            topology: TopologyChoice::Forced(topology),
            chaining: ChainMode::Auto,
        };
        engine.bfs(&request).unwrap();
    }
    for c in commands.lock().unwrap().iter() {
        let width = c.launch.workgroup_size_x;
        assert!(width.is_power_of_two() && width <= 256, "{c:?}");
        assert!(
            c.launch
                .dispatch_grid
                .iter()
                .all(|&d| (1..=65_535).contains(&d)),
            "{c:?}"
        );
        // A level sized on the device never gets more workgroups than a
        // frontier of every vertex and edge would need (the grid has 2,400
        // vertices and 9,400 stored edges); only edge-balanced topologies
        // have lanes for edges.
        let by_edges = if is_edge_balanced(c.topology) {
            edge_balanced_slots(9_400, c.launch.later.edges_per_lane).min(RESIDENT_LANES)
        } else {
            0
        };
        let most = slots_for(c.topology, 2_400, 2_400)
            .max(by_edges)
            .div_ceil(width);
        let later = c.launch.later.max_workgroups;
        assert!((1..=most.max(1)).contains(&later), "{c:?}");
        // Nor more than the device holds at once.
        assert!(later <= (RESIDENT_LANES / width).max(1), "{c:?}");
    }
}

/// Lanes of the launch that expands the hub of a 40,000-leaf star (level 1,
/// searched from a leaf) under `topology`, on the mock with or without a
/// device-wide barrier (only the barrier-capable mock reports its resident
/// lanes).
fn hub_level_lanes(barrier: bool, topology: MegakernelExecutionTopology) -> u64 {
    let (mock, commands) = Mock::new(barrier, (12_000, 11_000));
    let mut engine = Engine::new(Box::new(mock));
    engine
        .load(Arc::new(vyre_graph::generate::star(40_000).unwrap()))
        .unwrap();
    let request = SearchRequest {
        sources: &[7],
        topology: TopologyChoice::Forced(topology),
        chaining: ChainMode::Off,
    };
    engine.bfs(&request).unwrap();
    let hub_level = commands.lock().unwrap()[1];
    assert_eq!(hub_level.position.frontier_len, 1);
    hub_level.launch.workgroups() * u64::from(hub_level.launch.workgroup_size_x)
}

#[test]
fn edge_balanced_launches_are_sized_by_the_frontier_edges() {
    for topology in [
        MegakernelExecutionTopology::SparseFrontier,
        MegakernelExecutionTopology::HybridFrontier,
    ] {
        let lanes = hub_level_lanes(false, topology);
        assert!(lanes >= 40_000 / 4, "{topology:?}: {lanes} lanes");
    }
}

#[test]
fn edge_balanced_launches_stop_at_the_lanes_the_device_holds() {
    // The hub's 40,000 edges would want 10,000 lanes; the device holds 768.
    let lanes = hub_level_lanes(true, MegakernelExecutionTopology::SparseFrontier);
    assert!(
        (u64::from(RESIDENT_LANES)..u64::from(RESIDENT_LANES) + 256).contains(&lanes),
        "{lanes} lanes"
    );
}

#[test]
fn a_report_that_does_not_continue_the_search_is_caught() {
    let (mut mock, _) = Mock::new(false, (1, 1));
    mock.skew = 1;
    let mut engine = Engine::new(Box::new(mock));
    engine.load(grid()).unwrap();
    let err = engine.bfs(&SearchRequest::new(&[0])).unwrap_err();
    let EngineError::ContractViolation(what) = &err else {
        panic!("{err:?}");
    };
    assert!(what.contains("a frontier of 2"), "{what}");
}

#[test]
fn commands_carry_the_position_the_last_report_left() {
    let (mock, commands) = Mock::new(false, (12_000, 1_000));
    let mut engine = Engine::new(Box::new(mock));
    engine.load(grid()).unwrap();
    let result = engine.bfs(&SearchRequest::new(&[0])).unwrap();
    let commands = commands.lock().unwrap();
    let mut level = 0;
    let mut buffer = 0;
    for (i, c) in commands.iter().enumerate() {
        let ran: Vec<_> = result
            .levels
            .iter()
            .filter(|l| l.command == i as u32)
            .collect();
        assert_eq!(
            (c.position.level, c.position.buffer),
            (level, buffer),
            "command {i}"
        );
        assert_eq!(c.position.frontier_len, ran[0].frontier_in, "command {i}");
        level += ran.len() as u32;
        buffer ^= (ran.len() & 1) as u32;
    }
}

#[test]
fn every_per_wave_command_runs_at_a_width_the_backend_prepared() {
    use MegakernelExecutionTopology as T;
    for max_width in [256, 64, 8] {
        let (mut mock, commands) = Mock::new(false, (40_000, 30_000));
        mock.caps.max_workgroup_size_x = max_width;
        let prepared = Arc::clone(&mock.prepared);
        let mut engine = Engine::new(Box::new(mock));
        let graph = grid();
        engine.load(Arc::clone(&graph)).unwrap();
        let requests = prepared.lock().unwrap().clone();
        assert_eq!(requests.len(), 1, "one preparation per upload");
        let widths = &requests[0].per_wave_widths;
        assert_eq!(
            widths,
            &[max_width],
            "one width, the device's widest up to 256"
        );
        let choices = [
            TopologyChoice::Auto,
            TopologyChoice::Forced(T::WarpSparseFrontier),
            TopologyChoice::Forced(T::SparseFrontier),
            TopologyChoice::Forced(T::HybridFrontier),
            TopologyChoice::Forced(T::DenseFrontier),
            TopologyChoice::Forced(T::BlockDenseFrontier),
        ];
        for topology in choices {
            let mut request = SearchRequest::new(&[0]);
            request.topology = topology;
            engine.bfs(&request).unwrap();
        }
        let sent = commands.lock().unwrap();
        assert!(sent.len() > 6);
        for c in sent.iter() {
            assert!(
                widths.contains(&c.launch.workgroup_size_x),
                "{:?} at width {} was not prepared ({widths:?})",
                c.topology,
                c.launch.workgroup_size_x
            );
        }
        drop(sent);
        // A second upload prepares again (the backend may have dropped
        // what it built for the first graph).
        engine.load(Arc::clone(&graph)).unwrap();
        assert_eq!(prepared.lock().unwrap().len(), 2);
    }
}
