//! Device faults become typed errors within the wait limit, and the backend
//! stays usable (or refuses clearly) afterwards.
//!
//! Under the fake libcuda (`emu/cargo_test.sh`) its test switches make a
//! stream that finishes only once the kernels are told to stop, a stream
//! that never finishes, and a driver that refuses cooperative launches. On
//! a real GPU the ignored test runs the test-only fused kernel whose grid
//! barrier never opens:
//!
//! ```text
//! VYRE_REQUIRE_BACKENDS=cuda cargo test -p vyre-cuda --release --test faults -- --ignored
//! ```
//!
//! The tests change the environment, so they hold one lock while they run.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{
    Choice, HISTORY_LEVELS, begin, check_outcome, command_for, emulated, open_request, required,
    search, upload, visible,
};
use vyre_cuda::{CudaBackend, CudaOpenRequest, STUCK_BARRIER_ENV, driver_present};
use vyre_driver::backend::{
    Backend, BackendError, BackendErrorKind, CheckedCommand, DeviceLayout, SearchPosition,
    SearchSources, WaveCommand,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as Topology;
use vyre_graph::generate::grid_2d;

static ENVIRONMENT: Mutex<()> = Mutex::new(());

/// Set (or with `None` remove) an environment variable the driver or the
/// backend reads.
fn set_switch(name: &str, value: Option<&str>) {
    // SAFETY: every test of this file holds ENVIRONMENT while it runs, and
    // no other thread of this process reads the environment meanwhile (the
    // fake driver reads it on the test's thread, inside its calls).
    unsafe {
        match value {
            Some(v) => std::env::set_var(name, v),
            None => std::env::remove_var(name),
        }
    }
}

/// Whether a device is there to test; a skip line when not (a failure when
/// cuda is required).
fn have_driver(test: &str) -> bool {
    if driver_present() {
        return true;
    }
    assert!(
        !required(),
        "{test}: VYRE_REQUIRE_BACKENDS includes cuda but no CUDA driver was found"
    );
    visible(&format!("{test}: skipped: no CUDA driver"));
    false
}

fn open_with_limit(limit: Duration) -> CudaBackend {
    CudaBackend::open(&CudaOpenRequest {
        wait_limit: Some(limit),
        ..open_request()
    })
    .expect("open")
}

fn assert_device_error(err: &BackendError, needle: &str) {
    assert_eq!(err.kind(), BackendErrorKind::Device, "{err}");
    assert!(err.message().contains(needle), "{needle}: {err}");
    assert!(err.message().contains("Fix:"), "{err}");
}

/// Run `command` with the fake driver's stream stuck in `mode`: its error
/// and how long it took.
fn run_stuck(
    backend: &mut CudaBackend,
    command: &CheckedCommand,
    mode: &str,
) -> (BackendError, Duration) {
    set_switch("VYRE_FAKE_CUDA_STUCK", Some(mode));
    let started = Instant::now();
    let result = backend.run_wave(command);
    let took = started.elapsed();
    set_switch("VYRE_FAKE_CUDA_STUCK", None);
    (result.expect_err("a stuck command"), took)
}

#[test]
fn stuck_streams_and_refused_cooperative_launches_under_the_fake_driver() {
    let _environment = ENVIRONMENT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !emulated() {
        visible("fake driver faults: skipped: they need the fake libcuda (emu/cargo_test.sh)");
        return;
    }
    if !have_driver("fake driver faults") {
        return;
    }
    let graph = Arc::new(grid_2d(12, 12).expect("grid"));

    // The warm-up cooperative launch is refused: no barrier, and why.
    set_switch("VYRE_FAKE_CUDA_NO_COOPERATIVE", Some("1"));
    let opened = CudaBackend::open(&open_request());
    set_switch("VYRE_FAKE_CUDA_NO_COOPERATIVE", None);
    let backend = opened.expect("open without cooperative launch");
    let caps = backend.capabilities().clone();
    assert!(!caps.can_fuse());
    assert!(!caps.megakernel.supports_device_wide_barrier);
    assert_eq!(
        (caps.resident_workgroups, caps.resident_workgroup_size),
        (0, 0)
    );
    assert!(
        caps.barrier_reason
            .contains("was refused (CUDA_ERROR_NOT_SUPPORTED)"),
        "{}",
        caps.barrier_reason
    );
    let layout = DeviceLayout::for_graph(&graph, &caps, HISTORY_LEVELS).expect("layout");
    let mut fused = *command_for(
        &backend,
        &graph,
        &Choice::single(Topology::SparseFrontier),
        SearchPosition::start(&SearchSources::new(&[0], &graph).expect("sources")),
    );
    fused.topology = Topology::FusedWave;
    let err = WaveCommand::check(fused, &caps, &layout).expect_err("no barrier");
    assert!(err.message().contains(&caps.barrier_reason), "{err}");
    drop(backend);

    // A stream that finishes once its kernels are told to stop: the command
    // is an error within the limit, the search must begin again, and then
    // everything works.
    let limit = Duration::from_millis(400);
    let mut backend = open_with_limit(limit);
    upload(&mut backend, &graph);
    let position = begin(&mut backend, &graph, &[0]);
    let chain = Choice {
        max_levels: 8,
        ..Choice::single(Topology::SparseFrontier)
    };
    let command = command_for(&backend, &graph, &chain, position);
    let (err, took) = run_stuck(&mut backend, &command, "abortable");
    assert_device_error(&err, "its kernels were told to stop and did");
    assert!(err.message().contains("within 400ms"), "{err}");
    assert!(
        took >= limit / 2 && took <= limit + Duration::from_millis(200),
        "the stuck command returned after {took:?}"
    );
    let err = backend.run_wave(&command).expect_err("no search now");
    assert!(err.message().contains("no search is in progress"), "{err}");
    let outcome = search(&mut backend, &graph, &[0], |_| chain);
    check_outcome("a chain after an abort", &graph, &[0], &outcome);

    // A stream that never finishes: an error within the limit, then every
    // call is refused at once and the backend drops without a driver call
    // that would wait (the fake driver aborts the process on one).
    let position = begin(&mut backend, &graph, &[0]);
    let command = command_for(&backend, &graph, &chain, position);
    let (err, took) = run_stuck(&mut backend, &command, "forever");
    assert_device_error(&err, "the CUDA device is stuck");
    assert!(
        took <= limit + Duration::from_millis(200),
        "returned after {took:?}"
    );
    let started = Instant::now();
    let sources = SearchSources::new(&[0], &graph).expect("sources");
    assert_device_error(&backend.begin_search(&sources).unwrap_err(), "stuck");
    assert_device_error(&backend.run_wave(&command).unwrap_err(), "stuck");
    let mut depths = vec![0; graph.vertex_count() as usize];
    assert_device_error(&backend.read_depths(&mut depths).unwrap_err(), "stuck");
    let layout =
        DeviceLayout::for_graph(&graph, backend.capabilities(), HISTORY_LEVELS).expect("layout");
    assert_device_error(&backend.upload(&graph, &layout).unwrap_err(), "stuck");
    drop(backend);
    assert!(
        started.elapsed() < limit,
        "refusals took {:?}",
        started.elapsed()
    );
}

#[test]
#[ignore = "needs a CUDA GPU: VYRE_REQUIRE_BACKENDS=cuda cargo test -p vyre-cuda --release --test faults -- --ignored"]
fn a_stuck_fused_kernel_ends_at_the_deadline_and_the_backend_goes_on() {
    let _environment = ENVIRONMENT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let test = "stuck fused kernel";
    if emulated() {
        visible(&format!(
            "{test}: skipped: the fake driver runs its own kernels, not the stuck variant"
        ));
        return;
    }
    if !have_driver(test) {
        return;
    }
    let limit = Duration::from_secs(3);
    set_switch(STUCK_BARRIER_ENV, Some("1"));
    let opened = CudaBackend::open(&CudaOpenRequest {
        wait_limit: Some(limit),
        ..open_request()
    });
    set_switch(STUCK_BARRIER_ENV, None);
    let mut backend = opened.expect("open with the stuck fused kernel");
    let caps = backend.capabilities().clone();
    assert!(
        caps.can_fuse(),
        "{} has no barrier to get stuck in: {}",
        caps.device_name,
        caps.barrier_reason
    );
    let graph = Arc::new(grid_2d(300, 300).expect("grid"));
    upload(&mut backend, &graph);
    let position = begin(&mut backend, &graph, &[0]);
    let fused = |blocks| Choice {
        max_levels: HISTORY_LEVELS,
        blocks: Some(blocks),
        ..Choice::single(Topology::FusedWave)
    };
    let command = command_for(&backend, &graph, &fused(caps.resident_workgroups), position);
    let started = Instant::now();
    let err = backend
        .run_wave(&command)
        .expect_err("the barrier never opens");
    let took = started.elapsed();
    visible(&format!("{test}: error after {took:?}: {err}"));
    assert_device_error(&err, "its kernels were told to stop and did");
    assert!(took <= limit + Duration::from_millis(500), "took {took:?}");
    // The device is usable again: per-wave levels, and a one-block fused
    // launch (which needs no grid barrier).
    let outcome = search(&mut backend, &graph, &[0], |_| {
        Choice::single(Topology::SparseFrontier)
    });
    check_outcome("sparse after the abort", &graph, &[0], &outcome);
    let outcome = search(&mut backend, &graph, &[0], |_| fused(1));
    check_outcome("one-block fused after the abort", &graph, &[0], &outcome);
}
