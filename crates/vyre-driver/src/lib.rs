//! vyre's backend-neutral core: the wave policy that picks an execution
//! topology for every BFS level, the description of a device's capabilities,
//! and the contract every backend implements.
//!
//! Nothing here names a GPU API. The runtime (`vyre-runtime`) drives a
//! [`backend::Backend`] through this contract; backends only report what their
//! device can do and execute what they are asked.
#![forbid(unsafe_code)]

pub mod backend;
pub mod collective;
pub mod megakernel_execution;
