//! `cargo xtask`: project automation.
//!
//! - `test`: the architecture checks (`tidy`), every unit and integration
//!   test, then the conformance suite for every backend present (the
//!   README's test command); its last line is `N passed, N failed[, N
//!   skipped]` over all of them;
//! - `tidy`: the architecture's invariants (docs/ARCHITECTURE.md);
//! - `ci`: format check, clippy with `-D warnings`, then `test`;
//! - `conformance`: backends × topologies × graph corpus against the reference;
//! - `bench`: the GPU benchmark matrix (run on the H200);
//! - `bench-batch`: a batch of searches against the same searches one by one;
//! - `ptx`: write the CUDA kernels' PTX for inspection;
//! - `spirv`: regenerate the checked-in SPIR-V kernels from the WGSL;
//! - `bundle`: release builds of several revisions for the GPU machine;
//! - `compare`: there, time them side by side in one call.

mod bench;
mod bench_batch;
mod bundle;
mod clock;
mod compare;
mod conformance;
mod ptx;
mod shell;
mod spirv;
mod tally;
mod tidy;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(about = "vyre project automation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the architecture checks, every test, then the conformance suite on
    /// every backend present; end with one summary line.
    Test,
    /// Check the architecture's invariants over the source tree.
    Tidy,
    /// Format check, clippy -D warnings, then `test`.
    Ci,
    /// Compare every backend x topology with the reference BFS.
    Conformance(conformance::Args),
    /// Benchmark backends and topologies (meant for a GPU machine).
    Bench(bench::Args),
    /// Time one batch of searches against the same searches one at a time.
    BenchBatch(bench_batch::Args),
    /// Write the CUDA kernels' PTX.
    Ptx(ptx::Args),
    /// Regenerate shaders/spirv/*.spv from shaders/wgsl (commit the result).
    Spirv,
    /// Build xtask at several revisions into one folder the device tool carries.
    Bundle(bundle::Args),
    /// Time every build of a bundle side by side, alternating (on the GPU machine).
    Compare(compare::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Test => test(),
        Command::Tidy => tidy::run().and_then(|tally| {
            println!("{tally}");
            if tally.failed == 0 {
                Ok(())
            } else {
                Err("the architecture's invariants are broken".into())
            }
        }),
        Command::Ci => shell::cargo(&["fmt", "--all", "--check"])
            .and_then(|()| {
                shell::cargo(&[
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ])
            })
            .and_then(|()| test()),
        Command::Conformance(args) => conformance::run(&args).and_then(|tally| {
            println!("{tally}");
            if tally.failed == 0 {
                Ok(())
            } else {
                Err(format!("conformance: {} failure(s)", tally.failed))
            }
        }),
        Command::Bench(args) => bench::run(&args),
        Command::BenchBatch(args) => bench_batch::run(&args),
        Command::Ptx(args) => ptx::run(&args),
        Command::Spirv => spirv::run(),
        Command::Bundle(args) => bundle::run(&args),
        Command::Compare(args) => compare::run(&args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

fn test() -> Result<(), String> {
    let tidy = tidy::run()?;
    let (tests_ok, output) = shell::cargo_output(&["test", "--workspace", "--release"])?;
    let tests = tally::Tally::of_test_output(&output);
    // Conformance runs even after a failed test, so the last line counts both.
    let conformance = conformance::run(&conformance::Args::default())?;
    let all = tidy.add(tests).add(conformance);
    println!("\n{all}");
    if all.failed == 0 && tests_ok {
        Ok(())
    } else if all.failed == 0 {
        Err("`cargo test` failed before it could report results (see above)".into())
    } else {
        Err(format!("{} failed", all.failed))
    }
}
