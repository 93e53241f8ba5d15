//! The host side of vyre's WGSL kernels (`shaders/wgsl/`), shared by every
//! backend that runs them: wgpu (which compiles the WGSL) and Vulkan (which
//! runs the SPIR-V vyre-spirv generates from it).
//!
//! A kernel and its host agree on words: the control block's command,
//! graph and fused words ([`control`]), the level records in the history
//! ([`records`]), what each binding holds ([`bindings`]), the values of the
//! WGSL `override`s ([`overrides`]), which files build which entry point
//! ([`kernels`]) and which dispatches each topology records per level
//! ([`level_steps`]), and for batch passes the batch words, seeds, plans and
//! lane-count readback ([`batch`]); a fused launch's plan and status words
//! ([`fused`]); and the device-wide barrier probe's trials, search and
//! verdict ([`probe`]). They are written here once, so two backends record
//! exactly the same kernels with the same words. Nothing here talks to a
//! GPU API, and nothing here decides a grid: the engine's [`LaunchShape`]
//! and `LevelSizing` come in the command.
//!
//! [`LaunchShape`]: vyre_driver::backend::LaunchShape
#![forbid(unsafe_code)]

pub mod batch;
pub mod bindings;
pub mod control;
pub mod fused;
pub mod kernels;
pub mod level_steps;
pub mod overrides;
pub mod probe;
pub mod records;

pub use kernels::{Kernel, Module};
pub use level_steps::{CommandPlan, GraphFacts, LevelFacts, conversion, level_steps};
pub use overrides::{
    FUSED_WIDTH, LIGHT_DEGREE, MID_ROUNDS, PIECE_EDGES, REPEATED_SCAN_LOADS, SCAN_CAP, START_WIDTH,
    pipeline_constants,
};
pub use records::{LevelsRun, levels_run, readback_bytes};
