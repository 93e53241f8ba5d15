//! Backend-neutral execution planning for persistent megakernel waves.
//!
//! Before each wave the engine feeds the last wave's telemetry and the
//! device's budget into this policy, which picks one of six execution
//! topologies and validates the memory that topology needs before any
//! backend allocates. The policy is deterministic and allocation-free (only
//! [`MegakernelTopologyDecision::stable_explanation`] builds a string).
//!
//! A `FusedWave` runs dependency-ordered waves inside one launch, so it needs
//! a barrier across every resident workgroup. That is a property of the
//! device ([`MegakernelDeviceCapabilities`]), so every backend inherits the
//! rule instead of re-checking it: neither selector ever answers `FusedWave`
//! for a device without a device-wide barrier.
//!
//! The pieces:
//! - [`select_megakernel_topology`]: one wave's telemetry to a topology;
//! - [`select_megakernel_topology_stable`]: the same with hysteresis around
//!   the previous wave's topology;
//! - [`plan_megakernel_memory_budget`]: the bytes a topology needs, against
//!   the budget;
//! - [`plan_megakernel_execution`] / [`plan_megakernel_execution_with`]: a
//!   topology whose memory fits, downgraded to sparse when it does not;
//! - [`MegakernelExecutionPlanner`]: where a backend or the runtime puts a
//!   cache in front of that decision.
//!
//! Inputs are total: NaN, infinite or negative telemetry and any `u64` byte
//! count give a defined answer, never a panic.

mod decision;
mod memory;
mod numeric;
mod planner;
mod selection;
mod stability;
pub mod thresholds;
mod types;

pub use decision::MegakernelTopologyDecision;
pub use memory::{
    MegakernelMemoryError, megakernel_resident_graph_bytes, plan_megakernel_memory_budget,
};
pub use planner::{
    MegakernelExecutionPlanner, MegakernelExecutionRequest, MegakernelPlannedExecution,
    NeutralMegakernelExecutionPlanner, plan_megakernel_execution, plan_megakernel_execution_with,
};
pub use selection::select_megakernel_topology;
pub use stability::select_megakernel_topology_stable;
pub use types::{
    MegakernelDeviceCapabilities, MegakernelExecutionPlan, MegakernelExecutionSample,
    MegakernelExecutionTopology, MegakernelGraphShape, MegakernelMemoryBudget,
    MegakernelMemoryPlan,
};
