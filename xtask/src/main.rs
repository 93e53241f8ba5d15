//! `cargo xtask`: project automation.
//!
//! - `test`: every unit and integration test, then the conformance suite for
//!   every backend present (the README's test command);
//! - `ci`: format check, clippy with `-D warnings`, then `test`;
//! - `conformance`: backends × topologies × graph corpus against the reference;
//! - `bench`: the GPU benchmark matrix (run on the H200);
//! - `ptx`: write the CUDA kernels' PTX for inspection.

mod bench;
mod conformance;
mod ptx;
mod shell;

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
    /// Run every test, then the conformance suite on every backend present.
    Test,
    /// Format check, clippy -D warnings, then `test`.
    Ci,
    /// Compare every backend x topology with the reference BFS.
    Conformance(conformance::Args),
    /// Benchmark backends and topologies (meant for a GPU machine).
    Bench(bench::Args),
    /// Write the CUDA kernels' PTX.
    Ptx(ptx::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Test => test(),
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
        Command::Conformance(args) => conformance::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Ptx(args) => ptx::run(&args),
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
    shell::cargo(&["test", "--workspace", "--release"])?;
    conformance::run(&conformance::Args::default())
}
