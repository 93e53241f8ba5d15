//! Shared test helpers: the backend test kit (vyre-testkit), and opening a
//! device under the validation layer (or skipping).
#![allow(dead_code, unused_imports)]

pub use vyre_testkit::*;
pub use vyre_vulkan::testing::{TestDevice, open, open_with, visible};
