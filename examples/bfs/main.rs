//! `cargo run --release --example bfs`: BFS on a built-in or loaded graph on
//! the best backend found, with Graph500 validation and TEPS.
//!
//! Run with `--help` for the flags.

mod args;
mod output;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use clap::Parser;
use vyre::measure::{MeasureRequest, measure};
use vyre::{OpenRequest, TopologyChoice};

use args::Args;

fn main() -> ExitCode {
    // RUST_LOG=vyre::wave=debug logs every wave's decision with its explanation.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(2),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the searches; `Ok(false)` when validation failed.
fn run(args: &Args) -> Result<bool, String> {
    let loading = Instant::now();
    let graph = Arc::new(args.load_graph()?);
    let load_time = loading.elapsed();

    let mut device = vyre::open(&OpenRequest {
        backend: args.backend,
        memory_budget_bytes: args.memory_budget,
        cpu_threads: None,
    })
    .map_err(|e| e.to_string())?;
    let uploading = Instant::now();
    device.load(Arc::clone(&graph)).map_err(|e| e.to_string())?;
    let upload_time = uploading.elapsed();

    let sources = args.sources(&graph)?;
    let topology = args.topology_choice()?;
    let request = MeasureRequest {
        sources: &sources,
        topology,
        chaining: args.chain_mode()?,
        validate: !args.no_validate,
        repeats: args.repeat,
    };
    let measurement = measure(&mut device, &graph, &request).map_err(|e| e.to_string())?;

    if let Some(path) = &args.write_depths {
        let first = measurement
            .runs
            .first()
            .ok_or("no search ran. Fix: pass a source.")?;
        output::write_depths(path, &first.result.depths)?;
    }
    let context = output::Context {
        device: device.capabilities(),
        backend: device.backend(),
        graph: &graph,
        graph_name: &args.graph,
        load_time,
        upload_time,
        forced: matches!(topology, TopologyChoice::Forced(_)),
    };
    if args.json {
        println!("{}", output::json(&context, &measurement));
    } else {
        output::print_human(&context, &measurement, args.trace);
    }
    Ok(measurement.all_valid())
}
