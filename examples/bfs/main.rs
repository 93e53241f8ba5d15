//! `cargo run --release --example bfs`: BFS on a built-in or loaded graph on
//! the best backend found, with Graph500 validation and TEPS.
//!
//! Run with `--help` for the flags. Everything that does not need the graph
//! (flags, output paths, the backend) is checked before it is loaded.

mod args;
mod batch;
mod files;
mod load;
mod output;
mod plot;
mod progress;
mod trace;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use vyre::graph::load::save_binary;
use vyre::measure::{MeasureEvent, MeasureRequest, Measurement, measure_with};
use vyre::{LoadRequest, OpenRequest};

use args::Args;
use files::Output;
use progress::{Count, Phases};

fn main() -> ExitCode {
    // RUST_LOG=vyre::wave=debug logs every wave's decision with its explanation.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let outcome = args::parse().and_then(|args| run(&args));
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(2),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn claim(path: Option<&PathBuf>, flag: &'static str) -> Result<Option<Output>, String> {
    path.map(|p| Output::claim(p, flag)).transpose()
}

/// Runs the searches; `Ok(false)` when validation failed.
fn run(args: &Args) -> Result<bool, String> {
    let mut depths = claim(args.write_depths.as_ref(), "--write-depths")?;
    let mut plot = claim(args.plot.as_ref(), "--plot")?;
    let mut save = claim(args.save_graph.as_ref(), "--save-graph")?;
    let phases = Phases::new(args.quiet);

    // Opening a backend that is absent is cheap: do it before the graph.
    let phase = phases.start("open", Count::Nothing);
    let mut device = vyre::open(&OpenRequest {
        backend: args.backend,
        memory_budget_bytes: args.memory_budget,
        cpu_threads: None,
        ranks: args.gpus,
        // Off until the cluster launch is timed on a GPU (docs/BENCHMARKS.md).
        cuda_fused_cluster: false,
    })
    .map_err(|e| e.to_string())?;
    let open_time = phase.finish(device.selection_reason());

    let loaded = load::load(args, &phases)?;
    if let Some(out) = &mut save {
        let phase = phases.start("save", Count::Nothing);
        save_binary(&loaded.graph, out.path()).map_err(|e| e.to_string())?;
        out.written();
        phase.finish(&format!(
            "{}: binary CSR, reload it with --graph {0}",
            out.path().display()
        ));
    }
    let phase = phases.start("upload", Count::Nothing);
    let load_report = device
        .load_with(LoadRequest {
            order: args.order,
            ..LoadRequest::new(Arc::clone(&loaded.graph))
        })
        .map_err(|e| e.to_string())?;
    phase.finish(&format!(
        "to {} ({}); vertex order {}",
        device.capabilities().device_name,
        device.backend(),
        load_report.order.reason
    ));

    let sources = load::sources(args, &loaded.graph)?;
    if args.batch {
        let run = batch::run(
            args,
            &mut device,
            &loaded,
            &sources,
            depths.as_mut(),
            &phases,
        )?;
        if let (Some(out), Some(pass)) = (&mut plot, run.result.passes.first()) {
            let svg = plot::svg(&args.graph, sources[0], &pass.levels)?;
            out.write(svg.as_bytes())?;
        }
        let context = output::Context {
            device: &device,
            loaded: &loaded,
            graph_name: &args.graph,
            open_time,
            load_report: &load_report,
            validation_time: Duration::ZERO,
        };
        if args.json {
            let mut report = output::context_json(&context);
            report["batch"] = batch::json(&run);
            println!("{report}");
        } else {
            output::print_header(&context, args.trace);
            batch::print_human(&run, args.trace);
        }
        return Ok(run.mismatches.is_none_or(|bad| bad.is_empty()));
    }
    let request = MeasureRequest {
        sources: &sources,
        topology: args.topology,
        chaining: args.chain,
        validate: !args.no_validate,
        repeats: args.repeat,
    };
    let (measurement, validation_time) = measure(&mut device, &loaded.graph, &request, &phases)?;

    if let (Some(out), Some(first)) = (&mut depths, measurement.runs.first()) {
        out.write_depths(&first.result.depths)?;
    }
    if let (Some(out), Some(first)) = (&mut plot, measurement.runs.first()) {
        let svg = plot::svg(&args.graph, first.source, &first.result.levels)?;
        out.write(svg.as_bytes())?;
    }
    let context = output::Context {
        device: &device,
        loaded: &loaded,
        graph_name: &args.graph,
        open_time,
        load_report: &load_report,
        validation_time,
    };
    if args.json {
        println!("{}", output::json(&context, &measurement));
    } else {
        output::print_human(&context, &measurement, args.trace);
    }
    Ok(measurement.all_valid())
}

/// The searches, then their validation, each shown as a phase. Returns the
/// measurement and the validation's time.
fn measure(
    device: &mut vyre::Device,
    graph: &vyre::graph::Graph,
    request: &MeasureRequest<'_>,
    phases: &Phases,
) -> Result<(Measurement, Duration), String> {
    let count = request.sources.len() as u64;
    let repeats = request.repeats.max(1);
    let mut searching = Some(phases.start("search", Count::Items(count)));
    let mut validating = None;
    let mut validation_time = Duration::ZERO;
    let mut observe = |event| match event {
        MeasureEvent::Searched { done, of } => {
            if let Some(phase) = &searching {
                phase.set(done as u64);
            }
            if done == of {
                if let Some(phase) = searching.take() {
                    phase.finish(&format!(
                        "{of} source(s), {repeats} timed search(es) each after one untimed warm-up"
                    ));
                }
                if request.validate {
                    validating = Some(phases.start("validate", Count::Items(count)));
                }
            }
        }
        MeasureEvent::Validated { done, of } => {
            if let Some(phase) = &validating {
                phase.set(done as u64);
            }
            if done == of
                && let Some(phase) = validating.take()
            {
                validation_time =
                    phase.finish(&format!("Graph500's five checks on {of} result(s)"));
            }
        }
    };
    let measurement =
        measure_with(device, graph, request, &mut observe).map_err(|e| e.to_string())?;
    Ok((measurement, validation_time))
}
