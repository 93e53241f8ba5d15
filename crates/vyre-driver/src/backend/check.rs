//! The one check of a [`WaveCommand`] against the device and the uploaded
//! layout. A backend receives only a [`CheckedCommand`], which nothing but
//! [`WaveCommand::check`] builds, and trusts it.

use std::ops::Deref;

use super::{
    BackendError, DeviceCapabilities, DeviceLayout, MAX_GRID_SLOTS, WaveCommand, slots_for,
};
use crate::megakernel_execution::MegakernelExecutionTopology;

/// A [`WaveCommand`] that fits its device and layout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheckedCommand(WaveCommand);

impl Deref for CheckedCommand {
    type Target = WaveCommand;

    fn deref(&self) -> &WaveCommand {
        &self.0
    }
}

fn refuse(message: String) -> Result<CheckedCommand, BackendError> {
    Err(BackendError::new(message))
}

impl WaveCommand {
    /// Check this command against the device's capabilities and the layout
    /// of the uploaded graph:
    /// - `FusedWave` only on a device with a device-wide barrier, at most
    ///   `resident_workgroups` workgroups of at most `resident_workgroup_size`;
    /// - a power-of-two width within the device's limits and a multiple of
    ///   `workgroup_width_multiple`, a one-dimensional grid of 1 to the per-dimension
    ///   limit workgroups, lanes x slots per lane covering every slot of the
    ///   first level (up to [`MAX_GRID_SLOTS`]; kernels stride past it);
    /// - later levels sized with at least one workgroup, within the limit;
    /// - 1 to `max_levels_per_command` levels, a non-empty frontier within
    ///   the graph in buffer 0 or 1, and depths that stay below the
    ///   unreached marker.
    ///
    /// # Errors
    ///
    /// [`BackendError`] of kind `InvalidRequest` naming what is wrong, with
    /// a `Fix:`.
    pub fn check(
        self,
        caps: &DeviceCapabilities,
        layout: &DeviceLayout,
    ) -> Result<CheckedCommand, BackendError> {
        let device = &caps.device_name;
        let fused = self.topology == MegakernelExecutionTopology::FusedWave;
        if fused && !caps.can_fuse() {
            return refuse(format!(
                "{device} cannot run FusedWave: {}. Fix: let the policy choose (it never picks FusedWave without a device-wide barrier) or force a per-wave topology.",
                caps.barrier_reason
            ));
        }
        let launch = &self.launch;
        let width = launch.workgroup_size_x;
        if launch.cluster {
            check_cluster(&self, caps, layout)?;
        }
        let (width_limit, limit_name) = if launch.cluster {
            (
                caps.fused_cluster.workgroup_size,
                "fused_cluster.workgroup_size",
            )
        } else if fused {
            (caps.resident_workgroup_size, "resident_workgroup_size")
        } else {
            (
                caps.max_workgroup_size_x
                    .min(caps.max_compute_invocations_per_workgroup),
                "max_workgroup_size_x",
            )
        };
        if !width.is_power_of_two() || width > width_limit {
            return refuse(format!(
                "{:?} asks for workgroups of {width} threads but {device} runs it with a power of two up to {width_limit}. Fix: size the launch within capabilities().{limit_name}.",
                self.topology
            ));
        }
        let multiple = caps.workgroup_width_multiple.max(1);
        if !width.is_multiple_of(multiple) {
            return refuse(format!(
                "{:?} asks for workgroups of {width} threads but the kernels on {device} run whole groups of {multiple} lanes. Fix: size the launch with a width that is a multiple of capabilities().workgroup_width_multiple.",
                self.topology
            ));
        }
        let dim_limit = caps.max_compute_workgroups_per_dimension;
        let blocks = launch.workgroups();
        // Grids are one-dimensional ([n, 1, 1]): all of it must fit the one
        // dimension a backend may launch it in.
        if launch.dispatch_grid.contains(&0) || blocks > u64::from(dim_limit) {
            return refuse(format!(
                "the launch grid {:?} has {blocks} workgroups, outside 1..={dim_limit} on {device}. Fix: size the launch with ResidentGridPlan::recommend and these capabilities; the kernels stride over the rest.",
                launch.dispatch_grid
            ));
        }
        if fused && !launch.cluster && blocks > u64::from(caps.resident_workgroups) {
            return refuse(format!(
                "FusedWave asks for {blocks} workgroups but only {} can be resident at once on {device}; its grid barrier needs every workgroup resident. Fix: launch at most capabilities().resident_workgroups workgroups.",
                caps.resident_workgroups
            ));
        }
        let position = &self.position;
        let n = layout.vertex_count;
        if position.frontier_len == 0 || position.frontier_len > n {
            return refuse(format!(
                "the command expands a frontier of {} vertices on a graph of {n}. Fix: send commands only while the frontier is not empty, with the length the last report gave.",
                position.frontier_len
            ));
        }
        if position.buffer > 1 {
            return refuse(format!(
                "the frontier is said to be in buffer {} but the layout has buffers 0 and 1. Fix: take the position from SearchPosition::after.",
                position.buffer
            ));
        }
        let lanes = blocks * u64::from(width) * u64::from(launch.slots_per_lane);
        let slots =
            u64::from(slots_for(self.topology, position.frontier_len, n).min(MAX_GRID_SLOTS));
        if lanes < slots {
            return refuse(format!(
                "the launch covers {lanes} slots but the first level of {:?} has {slots}. Fix: size the launch with ResidentGridPlan::recommend, which pads slots_per_lane.",
                self.topology
            ));
        }
        let most = layout.max_levels_per_command;
        if self.max_levels == 0 || self.max_levels > most {
            return refuse(format!(
                "the command may run {} levels but the uploaded layout records 1 to {most} per command. Fix: cap max_levels at DeviceLayout::max_levels_per_command.",
                self.max_levels
            ));
        }
        let later = launch.later.max_workgroups;
        if later == 0 || later > dim_limit {
            return refuse(format!(
                "later levels may use {later} workgroups, outside 1..={dim_limit} on {device}. Fix: set LaunchShape::later.max_workgroups within the device's limit."
            ));
        }
        if position
            .level
            .checked_add(self.max_levels)
            .is_none_or(|end| end == u32::MAX)
        {
            return refuse(format!(
                "level {} plus {} levels reaches the unreached marker u32::MAX. Fix: pass the depth of the current frontier.",
                position.level, self.max_levels
            ));
        }
        Ok(CheckedCommand(self))
    }

    /// [`Self::check`] for a command of a batch pass, which also needs a
    /// backend that runs batch `FusedWave` commands
    /// ([`DeviceCapabilities::batch_fused_wave`]) before it fuses.
    ///
    /// # Errors
    ///
    /// As [`Self::check`].
    pub fn check_batch(
        self,
        caps: &DeviceCapabilities,
        layout: &DeviceLayout,
    ) -> Result<CheckedCommand, BackendError> {
        if self.launch.cluster {
            return refuse(format!(
                "a batch pass's command asks for a cluster launch, which {} runs for single searches only. Fix: size batch commands without LaunchShape::cluster.",
                caps.device_name
            ));
        }
        if self.topology == MegakernelExecutionTopology::FusedWave && !caps.batch_fused_wave {
            return refuse(format!(
                "{} runs no FusedWave in batch passes. Fix: let the policy choose (it never picks FusedWave for a batch there) or force a per-wave topology.",
                caps.device_name
            ));
        }
        self.check(caps, layout)
    }
}

/// A cluster launch: a `FusedWave` of exactly the device's cluster, on a
/// graph the cluster's kernel runs.
fn check_cluster(
    command: &WaveCommand,
    caps: &DeviceCapabilities,
    layout: &DeviceLayout,
) -> Result<(), BackendError> {
    let device = &caps.device_name;
    let cluster = &caps.fused_cluster;
    let launch = &command.launch;
    if command.topology != MegakernelExecutionTopology::FusedWave || cluster.lanes() == 0 {
        return Err(BackendError::new(format!(
            "a {:?} command asks for a cluster launch, but {device} runs only FusedWave commands as one (cluster of {} workgroups). Fix: set LaunchShape::cluster only for FusedWave where capabilities().fused_cluster has workgroups.",
            command.topology, cluster.workgroups
        )));
    }
    if launch.dispatch_grid != [cluster.workgroups, 1, 1]
        || launch.workgroup_size_x != cluster.workgroup_size
    {
        return Err(BackendError::new(format!(
            "the cluster launch asks for {:?} workgroups of {} threads but {device}'s cluster is {} of {}. Fix: size a cluster launch as capabilities().fused_cluster.",
            launch.dispatch_grid,
            launch.workgroup_size_x,
            cluster.workgroups,
            cluster.workgroup_size
        )));
    }
    if !cluster.runs(layout.max_out_degree) {
        return Err(BackendError::new(format!(
            "the graph has a vertex of {} out-edges, but {device}'s cluster launch runs only graphs whose vertices have fewer than {}. Fix: launch this graph's FusedWave commands without LaunchShape::cluster.",
            layout.max_out_degree, cluster.light_degree
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use vyre_graph::build::{BuildOptions, build_graph};

    use super::*;
    use crate::backend::{FrontierForm, LaunchShape, LevelSizing, SearchPosition};
    use crate::megakernel_execution::{
        MegakernelDeviceCapabilities, MegakernelExecutionTopology as T,
    };

    fn caps(barrier: bool) -> DeviceCapabilities {
        DeviceCapabilities {
            fused_cluster: crate::backend::FusedCluster::NONE,
            device_name: "test GPU".into(),
            megakernel: if barrier {
                MegakernelDeviceCapabilities::FUSION_CAPABLE
            } else {
                MegakernelDeviceCapabilities::FUSION_INCAPABLE
            },
            barrier_reason: if barrier {
                "cooperative launch".into()
            } else {
                "workgroups may not be co-resident".into()
            },
            batch_fused_wave: false,
            max_workgroup_size_x: 1024,
            max_compute_workgroups_per_dimension: 1000,
            max_compute_invocations_per_workgroup: 1024,
            subgroup_size: 32,
            workgroup_width_multiple: 32,
            resident_lanes: 8192,
            resident_workgroups: if barrier { 64 } else { 0 },
            resident_workgroup_size: if barrier { 256 } else { 0 },
            memory_budget_bytes: 1 << 30,
            max_binding_bytes: 1 << 30,
            max_edge_segments: 8,
            offset_bytes: 8,
            needs_readback_staging: false,
            launch_overhead_ns: 0.0,
            device_timestamps: true,
        }
    }

    fn layout() -> DeviceLayout {
        let edges: Vec<_> = (1..100u32).map(|v| (v - 1, v)).collect();
        let g = build_graph(100, &edges, BuildOptions::UNDIRECTED).unwrap();
        DeviceLayout::for_graph(&g, &caps(true), 16).unwrap()
    }

    fn command(topology: T) -> WaveCommand {
        WaveCommand {
            topology,
            position: SearchPosition {
                level: 3,
                frontier_len: 10,
                frontier_edges: 20,
                form: FrontierForm::Queue,
                buffer: 1,
            },
            max_levels: 1,
            launch: LaunchShape {
                cluster: false,
                workgroup_size_x: 256,
                dispatch_grid: [4, 1, 1],
                slots_per_lane: 1,
                later: LevelSizing {
                    edges_per_lane: 0,
                    max_workgroups: 4,
                },
            },
            band_max_frontier_edges: u64::MAX,
            band_max_frontier_vertices: u32::MAX,
        }
    }

    fn refused(c: WaveCommand, barrier: bool, needle: &str) {
        let err = c.check(&caps(barrier), &layout()).unwrap_err();
        assert!(err.message().contains(needle), "{needle}: {err}");
        assert!(err.message().contains("Fix:"), "{err}");
    }

    #[test]
    fn a_command_within_every_limit_passes_unchanged() {
        let c = command(T::SparseFrontier);
        assert_eq!(*c.check(&caps(false), &layout()).unwrap(), c);
    }

    #[test]
    fn launch_shapes_outside_the_device_are_refused() {
        let mut c = command(T::SparseFrontier);
        c.launch.dispatch_grid = [4, 0, 1];
        refused(c, false, "outside 1..=1000");
        c.launch.dispatch_grid = [1001, 1, 1];
        refused(c, false, "outside 1..=1000");
        // Each dimension fits, their product does not.
        c.launch.dispatch_grid = [100, 20, 1];
        refused(c, false, "2000 workgroups");
        let mut c = command(T::SparseFrontier);
        c.launch.workgroup_size_x = 16;
        c.launch.dispatch_grid = [64, 1, 1];
        refused(c, false, "whole groups of 32 lanes");
        let mut c = command(T::SparseFrontier);
        c.launch.workgroup_size_x = 0;
        refused(c, false, "up to 1024");
        c.launch.workgroup_size_x = 48;
        refused(c, false, "up to 1024");
        c.launch.workgroup_size_x = 2048;
        refused(c, false, "up to 1024");
        let mut c = command(T::WarpSparseFrontier);
        c.launch.dispatch_grid = [1, 1, 1];
        refused(c, false, "covers 256 slots");
        c.launch.slots_per_lane = 2;
        assert!(c.check(&caps(false), &layout()).is_ok());
        let mut c = command(T::SparseFrontier);
        c.launch.later.max_workgroups = 0;
        refused(c, false, "later levels may use 0");
    }

    fn cluster_caps() -> DeviceCapabilities {
        DeviceCapabilities {
            fused_cluster: crate::backend::FusedCluster {
                workgroups: 16,
                workgroup_size: 1024,
                light_degree: 32,
            },
            ..caps(true)
        }
    }

    fn cluster_command() -> WaveCommand {
        let mut c = command(T::FusedWave);
        c.launch.cluster = true;
        c.launch.workgroup_size_x = 1024;
        c.launch.dispatch_grid = [16, 1, 1];
        c
    }

    #[test]
    fn a_cluster_launch_of_the_devices_cluster_passes_on_a_light_graph() {
        let c = cluster_command();
        // Wider than resident_workgroup_size (256): the cluster's own width.
        assert_eq!(*c.check(&cluster_caps(), &layout()).unwrap(), c);
    }

    #[test]
    fn cluster_launches_the_device_or_graph_cannot_run_are_refused() {
        let refuse =
            |c: WaveCommand, caps: &DeviceCapabilities, layout: &DeviceLayout, needle: &str| {
                let err = c.check(caps, layout).unwrap_err();
                assert!(err.message().contains(needle), "{needle}: {err}");
                assert!(err.message().contains("Fix:"), "{err}");
            };
        let cluster = cluster_caps();
        refuse(
            cluster_command(),
            &caps(true),
            &layout(),
            "cluster of 0 workgroups",
        );
        let mut c = cluster_command();
        c.topology = T::SparseFrontier;
        refuse(c, &cluster, &layout(), "runs only FusedWave");
        let mut c = cluster_command();
        c.launch.dispatch_grid = [8, 1, 1];
        refuse(c, &cluster, &layout(), "cluster is 16 of 1024");
        let mut c = cluster_command();
        c.launch.workgroup_size_x = 512;
        refuse(c, &cluster, &layout(), "cluster is 16 of 1024");
        // A star's hub has 40 out-edges.
        let edges: Vec<_> = (1..41u32).map(|v| (0, v)).collect();
        let star = build_graph(41, &edges, BuildOptions::UNDIRECTED).unwrap();
        let heavy = DeviceLayout::for_graph(&star, &cluster, 16).unwrap();
        assert_eq!(heavy.max_out_degree, 40);
        refuse(
            cluster_command(),
            &cluster,
            &heavy,
            "a vertex of 40 out-edges",
        );
        let batch = cluster_command()
            .check_batch(&cluster, &layout())
            .unwrap_err();
        assert!(batch.message().contains("single searches only"), "{batch}");
    }

    #[test]
    fn positions_and_level_counts_outside_the_layout_are_refused() {
        let mut c = command(T::SparseFrontier);
        c.max_levels = 17;
        refused(c, false, "1 to 16 per command");
        c.max_levels = 0;
        refused(c, false, "1 to 16 per command");
        let mut c = command(T::SparseFrontier);
        c.position.frontier_len = 0;
        refused(c, false, "frontier of 0 vertices");
        c.position.frontier_len = 101;
        refused(c, false, "frontier of 101 vertices");
        let mut c = command(T::SparseFrontier);
        c.position.buffer = 2;
        refused(c, false, "buffer 2");
        let mut c = command(T::SparseFrontier);
        c.position.level = u32::MAX - 1;
        refused(c, false, "unreached marker");
    }

    #[test]
    fn fused_waves_need_the_barrier_and_stay_within_the_resident_grid() {
        refused(command(T::FusedWave), false, "may not be co-resident");
        let mut c = command(T::FusedWave);
        c.launch.dispatch_grid = [64, 1, 1];
        assert!(c.check(&caps(true), &layout()).is_ok());
        c.launch.dispatch_grid = [65, 1, 1];
        refused(c, true, "only 64 can be resident");
        c.launch.dispatch_grid = [8, 8, 2];
        refused(c, true, "asks for 128 workgroups");
        let mut c = command(T::FusedWave);
        c.launch.workgroup_size_x = 512;
        refused(c, true, "up to 256");
    }

    #[test]
    fn batch_fused_waves_need_a_backend_that_runs_them() {
        let mut c = command(T::FusedWave);
        c.launch.dispatch_grid = [64, 1, 1];
        let mut fusing = caps(true);
        assert!(c.check(&fusing, &layout()).is_ok());
        let err = c.check_batch(&fusing, &layout()).unwrap_err();
        assert!(
            err.message().contains("no FusedWave in batch passes")
                && err.message().contains("Fix:"),
            "{err}"
        );
        fusing.batch_fused_wave = true;
        assert_eq!(*c.check_batch(&fusing, &layout()).unwrap(), c);
        // Per-wave batch commands pass as single ones do; the batch check
        // keeps every limit of the single one.
        let per_wave = command(T::SparseFrontier);
        assert!(per_wave.check_batch(&caps(false), &layout()).is_ok());
        c.launch.dispatch_grid = [65, 1, 1];
        let err = c.check_batch(&fusing, &layout()).unwrap_err();
        assert!(err.message().contains("only 64 can be resident"), "{err}");
    }

    #[test]
    fn batch_planning_turns_the_barrier_off_only_where_batches_cannot_fuse() {
        let mut fusing = caps(true);
        let off = fusing.for_batch();
        assert!(!off.can_fuse() && !off.megakernel.supports_device_wide_barrier);
        assert!(
            off.barrier_reason.contains("no FusedWave in batch passes"),
            "{}",
            off.barrier_reason
        );
        fusing.batch_fused_wave = true;
        assert!(fusing.can_fuse_batch());
        assert_eq!(fusing.for_batch(), fusing);
        assert_eq!(caps(false).for_batch(), caps(false));
    }
}
