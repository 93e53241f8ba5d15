//! `cargo xtask conformance`: every backend × every topology × the corpus.

use std::collections::BTreeMap;
use std::time::Instant;

use vyre::conformance::{CaseOutcome, CorpusSize, Verdict, check_batch, check_case, corpus, modes};
use vyre::{BackendChoice, BackendKind, OpenRequest, available_backends};

use crate::tally::Tally;

/// Flags of `xtask conformance`.
#[derive(clap::Args, Default)]
pub struct Args {
    /// Comma-separated backends (cpu, wgpu, cuda, vulkan); default: every backend
    /// compiled in, skipping those with no device unless `VYRE_REQUIRE_BACKENDS`
    /// names them.
    #[arg(long, value_delimiter = ',')]
    backends: Vec<String>,
    /// Corpus: small, standard or large (Kronecker up to scale 25 and a
    /// 3000x3000 grid; for GPU machines).
    #[arg(long, default_value = "standard")]
    corpus: String,
    /// Partition every graph over N ranks: N GPUs with cuda (NCCL), N
    /// simulated ranks with cpu; other backends have no partitioned device.
    #[arg(long, value_name = "N")]
    gpus: Option<u32>,
    /// CUDA: offer light graphs' fused commands the launch of one
    /// thread-block cluster (`OpenRequest::cuda_fused_cluster`).
    #[arg(long)]
    cuda_cluster: bool,
}

fn required_backends() -> Vec<String> {
    std::env::var("VYRE_REQUIRE_BACKENDS")
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Run the suite; every case (backend x graph x mode) counts once in the
/// tally: skipped when its backend is absent or the device cannot run the
/// topology.
pub fn run(args: &Args) -> Result<Tally, String> {
    let size = match args.corpus.as_str() {
        "" | "standard" => CorpusSize::Standard,
        "small" => CorpusSize::Small,
        "large" => CorpusSize::Large,
        other => {
            return Err(format!(
                "unknown corpus '{other}'. Fix: use small, standard or large."
            ));
        }
    };
    let required = required_backends();
    let started = Instant::now();
    let cases = corpus(size).map_err(|e| e.to_string())?;
    println!(
        "conformance: {} graphs generated in {:.1?}",
        cases.len(),
        started.elapsed()
    );
    let mut tally = Tally::default();
    // A single-search row and a batch row per case.
    let rows_per_case = if args.gpus.is_some() { 1 } else { 2 };
    let per_backend = (rows_per_case * cases.len() * modes().len()) as u64;
    let kinds: Vec<BackendKind> = if args.backends.is_empty() {
        available_backends()
    } else {
        args.backends
            .iter()
            .map(|name| match name.parse::<BackendChoice>()? {
                BackendChoice::Only(kind) => Ok(kind),
                BackendChoice::Auto => {
                    Err("name backends explicitly. Fix: e.g. --backends cpu,wgpu".to_string())
                }
            })
            .collect::<Result<_, _>>()?
    };
    for kind in kinds {
        let request = OpenRequest {
            ranks: args.gpus,
            cuda_fused_cluster: args.cuda_cluster,
            ..OpenRequest::new(BackendChoice::Only(kind))
        };
        let mut device = match vyre::open(&request) {
            Ok(device) => device,
            Err(e) if required.iter().any(|r| r == kind.name()) || !args.backends.is_empty() => {
                println!("{kind}: FAILED to open: {e}");
                tally.failed += per_backend;
                continue;
            }
            Err(e) => {
                println!("{kind}: skipped: {e}");
                tally.skipped += per_backend;
                continue;
            }
        };
        println!("\n== {kind}: {} ==", device.capabilities().device_name);
        let mut rows: BTreeMap<String, Vec<CaseOutcome>> = BTreeMap::new();
        for case in &cases {
            if let Err(e) = device.load_with(case.load_request()) {
                println!("{:<28} load FAILED: {e}", case.name);
                tally.failed += (rows_per_case * modes().len()) as u64;
                continue;
            }
            for mode in modes() {
                for outcome in check_case(&mut device, case, mode) {
                    rows.entry(case.name.clone()).or_default().push(outcome);
                }
                if args.gpus.is_some() {
                    // Batch passes run on one device only.
                    continue;
                }
                // The case's batch: every search checked lane by lane.
                let batch = check_batch(&mut device, case, mode);
                rows.entry(format!("{} batch", case.name))
                    .or_default()
                    .push(batch);
            }
        }
        tally = tally.add(print_table(&rows));
    }
    println!("\nconformance finished in {:.1?}", started.elapsed());
    println!(
        "conformance: {}",
        if tally.failed == 0 { "PASS" } else { "FAIL" }
    );
    Ok(tally)
}

fn cell(outcomes: &[&CaseOutcome]) -> &'static str {
    if outcomes.iter().any(|o| o.verdict.is_failure()) {
        "FAIL"
    } else if outcomes
        .iter()
        .all(|o| matches!(o.verdict, Verdict::Unsupported(_)))
    {
        "n/a"
    } else {
        "ok"
    }
}

/// Prints one row per case, one column per mode; returns the tally of its
/// cells.
fn print_table(rows: &BTreeMap<String, Vec<CaseOutcome>>) -> Tally {
    let mode_names: Vec<String> = modes()
        .into_iter()
        .map(|m| match m {
            vyre::TopologyChoice::Auto => "auto".to_string(),
            vyre::TopologyChoice::Forced(t) => vyre::topology_name(t).to_string(),
        })
        .collect();
    print!("{:<28}", "graph");
    for name in &mode_names {
        print!(" {name:>11}");
    }
    println!();
    let mut tally = Tally::default();
    for (case, outcomes) in rows {
        print!("{case:<28}");
        for name in &mode_names {
            let of_mode: Vec<&CaseOutcome> = outcomes.iter().filter(|o| &o.mode == name).collect();
            let cell = cell(&of_mode);
            match cell {
                "FAIL" => tally.failed += 1,
                "n/a" => tally.skipped += 1,
                _ => tally.passed += 1,
            }
            print!(" {cell:>11}");
        }
        println!();
        for o in outcomes.iter().filter(|o| o.verdict.is_failure()) {
            println!("    {} sources {:?}: {:?}", o.mode, o.sources, o.verdict);
        }
    }
    tally
}
