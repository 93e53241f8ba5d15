//! FusedWave on wgpu: the suite both WGSL backends run (vyre-testkit's
//! `fused`): the persistent kernel against the reference on a device that
//! runs it (lavapipe: forced to one workgroup), its band stop, its refusal
//! without a barrier and in batch passes, and a launch that cannot
//! complete a barrier ending in a typed error. wgpu writes no buffer while
//! a submission runs, so here the kernel's own bounded waits end it.

mod common;

vyre_testkit::fused_tests!(
    fused: common::run_fused,
    plain: common::run,
    stuck: common::run_stuck
);
