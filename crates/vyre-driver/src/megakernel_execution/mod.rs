//! Backend-neutral execution planning for persistent megakernel waves.
//!
//! Before each wave the engine feeds the last wave's telemetry and the
//! device's budget into this policy, which picks one of six execution
//! topologies and validates the memory that topology needs before any
//! backend allocates. The policy is deterministic and allocation-free.
//!
//! A `FusedWave` runs dependency-ordered waves inside one launch, so it needs
//! a barrier across every resident workgroup. That is a property of the
//! device ([`MegakernelDeviceCapabilities`]), so every backend inherits the
//! rule instead of re-checking it.

mod types;

pub use types::{
    MegakernelDeviceCapabilities, MegakernelExecutionPlan, MegakernelExecutionSample,
    MegakernelExecutionTopology, MegakernelGraphShape, MegakernelMemoryBudget,
    MegakernelMemoryPlan,
};
