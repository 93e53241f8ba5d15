//! `cargo xtask ptx`: the CUDA kernels' PTX, for reading.

use std::path::PathBuf;

/// Flags of `xtask ptx`.
#[derive(clap::Args)]
pub struct Args {
    /// Target architecture, e.g. sm_90 (the H200).
    #[arg(long, default_value = "sm_90")]
    arch: String,
    /// Output directory.
    #[arg(long, default_value = "target/ptx")]
    out: PathBuf,
}

pub fn run(args: &Args) -> Result<(), String> {
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let ptx = vyre_cuda::compile_ptx(&args.arch).map_err(|e| e.to_string())?;
    let path = args.out.join(format!("vyre_bfs_{}.ptx", args.arch));
    std::fs::write(&path, ptx).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}
