//! Where each decision about a command is made, one module each:
//!
//! | decision | module |
//! |---|---|
//! | which topology a wave runs (the seed policy, with hysteresis and cached memory plans) | [`topology`] |
//! | how many levels a command may run, and the density band it stays in | [`chain`] |
//! | every grid: first level, the rule for later levels, a fused launch's width | [`grid`] |
//! | whether a loaded graph's vertices are renumbered by degree | [`order`] |
//!
//! The engine ([`crate::engine`]) asks each in turn and puts the answers in
//! a `WaveCommand`; what a command may be is checked once by
//! `WaveCommand::check` in vyre-driver, and where the search stands is the
//! engine's `SearchPosition`.

pub mod chain;
pub mod grid;
pub mod order;
pub mod topology;
