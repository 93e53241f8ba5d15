//! vyre's SPIR-V kernels, generated from the one WGSL source.
//!
//! The Vulkan backend runs the WGSL kernels of `shaders/wgsl/`, compiled to
//! SPIR-V with naga and checked in under `shaders/spirv/`. This crate holds
//! that compilation, so that `cargo xtask spirv` (which writes the files) and
//! the staleness test (which regenerates them in memory and compares bytes)
//! run the same code. It has no GPU dependency.
//!
//! naga's SPIR-V writer does not emit WGSL `override`s as specialization
//! constants (it refuses unresolved overrides), so every module is written
//! for one entry point at one workgroup width: the `WG` override is resolved
//! with `naga::back::pipeline_constants::process_overrides`, and every other
//! override gets the value vyre-wgsl-abi gives both backends. Which files
//! build which entry point comes from vyre-wgsl-abi too. See
//! `shaders/spirv/README.md`.
#![forbid(unsafe_code)]

mod catalog;
mod compile;
mod inspect;

pub use catalog::{KERNEL_WIDTHS, catalog, widths};
pub use compile::{GeneratedModule, SpirvError, compile, file_name, generate};
pub use inspect::{InspectError, MemoryOp, memory_ops, scope, semantics, storage_class};

use std::path::PathBuf;

/// The repository root this crate was built from (where `shaders/` is).
#[must_use]
pub fn repository_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}
