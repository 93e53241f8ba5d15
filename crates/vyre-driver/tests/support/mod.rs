//! Shared test support: the specification as an executable model, and
//! strategies that reach every special value.

#![allow(dead_code, reason = "each test binary uses a different part")]

pub mod seed_model;
pub mod strategies;
