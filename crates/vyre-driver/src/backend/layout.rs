//! The device byte layout of a graph and its BFS state.
//!
//! The layout is computed before anything is allocated, planned against the
//! device's budget by the engine, and then allocated by the backend exactly as
//! written here: no buffer a backend creates is larger than its entry, so the
//! bytes a backend holds never exceed the plan.

use vyre_graph::Graph;

use super::{BackendError, BackendErrorKind, DeviceCapabilities};

/// Bytes of one per-level record in the level-history buffer.
pub const LEVEL_RECORD_BYTES: u64 = 32;

/// Bytes of the control block (counters, indirect-dispatch arguments, flags).
pub const CONTROL_BYTES: u64 = 256;

/// Most edges of one heavy-vertex piece in the work array (see
/// [`DeviceLayout::work_bytes`]).
pub const WORK_PIECE_EDGES: u64 = 1024;

/// Words of the work array beyond what any kernel's scans and pieces use:
/// backends carve small state from them (see [`DeviceLayout::work_bytes`]).
/// The most a backend takes: a fused barrier's slots for two levels of 128
/// workgroups, 32 bytes apart, after a 128-byte line's alignment (2,078
/// words).
pub const WORK_RESERVE_WORDS: u64 = 2112;

/// How an edge array is split across bindings.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct EdgeSegments {
    /// Edges in every segment but the last (the last holds the rest).
    pub edges_per_segment: u64,
    /// Number of segments (at least 1, even for an edgeless graph).
    pub segment_count: u32,
    /// Total edges.
    pub edge_count: u64,
}

impl EdgeSegments {
    fn plan(edge_count: u64, caps: &DeviceCapabilities) -> Result<Self, BackendError> {
        // A multiple of 64 edges keeps every segment's byte size 256-aligned.
        let per_binding = (caps.max_binding_bytes / 4) & !63;
        if per_binding == 0 {
            return Err(BackendError::new(format!(
                "{} reports a {}-byte binding limit, too small for any edge segment. Fix: report the adapter's real max_storage_buffer_binding_size.",
                caps.device_name, caps.max_binding_bytes
            )));
        }
        if edge_count > caps.max_edges() {
            return Err(BackendError::with_kind(
                BackendErrorKind::OutOfMemory,
                format!(
                    "the graph has {edge_count} edges but {} addresses at most {} ({}-byte row offsets, {} bindings of {} bytes). Fix: use a device with 64-bit row offsets and no binding limit, or a smaller graph.",
                    caps.device_name,
                    caps.max_edges(),
                    caps.offset_bytes,
                    caps.max_edge_segments,
                    caps.max_binding_bytes
                ),
            ));
        }
        let segment_count = edge_count.div_ceil(per_binding).max(1);
        Ok(Self {
            edges_per_segment: per_binding.min(edge_count.max(1)),
            segment_count: u32::try_from(segment_count).unwrap_or(u32::MAX),
            edge_count,
        })
    }

    /// Edges held by segment `index`.
    #[must_use]
    pub fn edges_in(&self, index: u32) -> u64 {
        let start = self.edges_per_segment * u64::from(index);
        self.edge_count
            .saturating_sub(start)
            .min(self.edges_per_segment)
    }

    /// Bytes of segment `index` (at least 4: empty bindings are not allowed).
    #[must_use]
    pub fn bytes_of(&self, index: u32) -> u64 {
        (self.edges_in(index) * 4).max(4)
    }

    /// Bytes of all segments together.
    #[must_use]
    pub fn total_bytes(&self) -> u64 {
        (0..self.segment_count).map(|i| self.bytes_of(i)).sum()
    }
}

/// Every buffer one uploaded graph and its search state occupy on a device.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct DeviceLayout {
    /// Vertices of the graph.
    pub vertex_count: u32,
    /// Stored (directed) edges of the graph.
    pub edge_count: u64,
    /// Width of one row offset on the device (4 or 8 bytes).
    pub offset_bytes: u32,
    /// Out-edge segments.
    pub out_edges: EdgeSegments,
    /// In-edge segments for directed graphs; `None` when the graph is
    /// symmetric and bottom-up kernels read the out-edges.
    pub in_edges: Option<EdgeSegments>,
    /// Most levels one command may run (chains and fused waves); sizes the
    /// level-history buffer.
    pub max_levels_per_command: u32,
    /// Whether a host-visible staging buffer is part of the layout.
    pub readback_staging: bool,
    /// The largest out-degree of a vertex (saturating at `u32::MAX`).
    pub max_out_degree: u32,
}

/// The layout's bytes in the form [`crate::megakernel_execution`] plans with.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct LayoutBytes {
    /// Resident bytes per vertex (offsets, depth, parent).
    pub bytes_per_node: u64,
    /// Resident bytes per edge (targets, and in-edge targets when directed).
    pub bytes_per_edge: u64,
    /// Frontier queues and bitmaps.
    pub frontier_bytes: u64,
    /// Work array, control block, level history, and the fixed remainder
    /// (the closing row offsets, padding of empty buffers).
    pub scratch_bytes: u64,
    /// Host-visible readback staging.
    pub output_bytes: u64,
}

impl DeviceLayout {
    /// Lay out `graph` for a device with `caps`.
    ///
    /// # Errors
    ///
    /// [`BackendError`] when the graph has more edges than the device can
    /// address or the device reports unusable limits.
    pub fn for_graph(
        graph: &Graph,
        caps: &DeviceCapabilities,
        max_levels_per_command: u32,
    ) -> Result<Self, BackendError> {
        if caps.offset_bytes != 4 && caps.offset_bytes != 8 {
            return Err(BackendError::new(format!(
                "{} reports {}-byte row offsets. Fix: a backend must use 4- or 8-byte offsets.",
                caps.device_name, caps.offset_bytes
            )));
        }
        let out_edges = EdgeSegments::plan(graph.edge_count(), caps)?;
        let in_edges = if graph.is_symmetric() {
            None
        } else {
            Some(EdgeSegments::plan(graph.edge_count(), caps)?)
        };
        Ok(Self {
            vertex_count: graph.vertex_count(),
            edge_count: graph.edge_count(),
            offset_bytes: caps.offset_bytes,
            out_edges,
            in_edges,
            max_levels_per_command: max_levels_per_command.max(1),
            readback_staging: caps.needs_readback_staging,
            max_out_degree: u32::try_from(graph.out_edges().max_degree()).unwrap_or(u32::MAX),
        })
    }

    fn vertex_words(&self) -> u64 {
        u64::from(self.vertex_count).max(1)
    }

    /// Bytes of one row-offset array.
    #[must_use]
    pub fn offsets_bytes(&self) -> u64 {
        (u64::from(self.vertex_count) + 1) * u64::from(self.offset_bytes)
    }

    /// Bytes of one per-vertex `u32` array (depth, parent, one queue).
    #[must_use]
    pub fn vertex_array_bytes(&self) -> u64 {
        self.vertex_words() * 4
    }

    /// Bytes of one frontier bitmap (one bit per vertex, whole `u32` words).
    #[must_use]
    pub fn bitmap_bytes(&self) -> u64 {
        u64::from(self.vertex_count).div_ceil(32).max(1) * 4
    }

    /// Bytes of the work array: scratch for device-wide degree scans of the
    /// frontier (one word per frontier vertex plus chunk totals) and for
    /// heavy-vertex pieces (two words per piece of at most
    /// [`WORK_PIECE_EDGES`] edges). `2n + ceil(m / 512)` words hold either
    /// for any frontier; [`WORK_RESERVE_WORDS`] more are the backends'.
    #[must_use]
    pub fn work_bytes(&self) -> u64 {
        let words = 2 * u64::from(self.vertex_count)
            + self.edge_count.div_ceil(WORK_PIECE_EDGES / 2)
            + WORK_RESERVE_WORDS;
        words * 4
    }

    /// Bytes of the control block.
    #[must_use]
    pub fn control_bytes(&self) -> u64 {
        CONTROL_BYTES
    }

    /// Bytes of the level-history buffer.
    #[must_use]
    pub fn history_bytes(&self) -> u64 {
        u64::from(self.max_levels_per_command) * LEVEL_RECORD_BYTES
    }

    /// Check that `len` entries hold one per-vertex array (the depths or
    /// parents a backend reads back).
    ///
    /// # Errors
    ///
    /// [`BackendError`] naming both lengths when they differ.
    pub fn check_vertex_output(&self, len: usize) -> Result<(), BackendError> {
        if len == self.vertex_count as usize {
            return Ok(());
        }
        Err(BackendError::new(format!(
            "the output slice holds {len} entries but the graph has {} vertices. Fix: pass a slice of vertex_count entries.",
            self.vertex_count
        )))
    }

    /// Bytes of the host-visible staging buffer (0 when not needed): large
    /// enough for one per-vertex array or the level history.
    #[must_use]
    pub fn staging_bytes(&self) -> u64 {
        if self.readback_staging {
            self.vertex_array_bytes().max(self.history_bytes())
        } else {
            0
        }
    }

    /// Every byte of the layout: graph, depth and parent, two queues, two
    /// bitmaps, the work array, control, history and staging.
    #[must_use]
    pub fn total_bytes(&self) -> u64 {
        let graph = self.offsets_bytes() + self.out_edges.total_bytes();
        let reverse = self
            .in_edges
            .map_or(0, |s| self.offsets_bytes() + s.total_bytes());
        graph
            + reverse
            + 2 * self.vertex_array_bytes()
            + 2 * self.vertex_array_bytes()
            + 2 * self.bitmap_bytes()
            + self.work_bytes()
            + self.control_bytes()
            + self.history_bytes()
            + self.staging_bytes()
    }

    /// The same bytes split the way the execution planner takes them; the
    /// parts add up to [`Self::total_bytes`] exactly.
    #[must_use]
    pub fn planner_bytes(&self) -> LayoutBytes {
        let directions: u64 = if self.in_edges.is_some() { 2 } else { 1 };
        let n = u64::from(self.vertex_count);
        let bytes_per_node = directions * u64::from(self.offset_bytes) + 8;
        let bytes_per_edge = directions * 4;
        let frontier_bytes = 2 * self.vertex_array_bytes() + 2 * self.bitmap_bytes();
        let output_bytes = self.staging_bytes();
        let proportional = n * bytes_per_node + self.edge_count * bytes_per_edge;
        let scratch_bytes = self.total_bytes() - proportional - frontier_bytes - output_bytes;
        LayoutBytes {
            bytes_per_node,
            bytes_per_edge,
            frontier_bytes,
            scratch_bytes,
            output_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use vyre_graph::build::{BuildOptions, build_graph};

    use super::*;
    use crate::megakernel_execution::MegakernelDeviceCapabilities;

    fn caps(offset_bytes: u32, max_binding_bytes: u64) -> DeviceCapabilities {
        DeviceCapabilities {
            fused_cluster: crate::backend::FusedCluster::NONE,
            device_name: "test".into(),
            megakernel: MegakernelDeviceCapabilities::FUSION_INCAPABLE,
            barrier_reason: "none in tests".into(),
            batch_fused_wave: false,
            max_workgroup_size_x: 256,
            max_compute_workgroups_per_dimension: 65_535,
            max_compute_invocations_per_workgroup: 256,
            subgroup_size: 32,
            workgroup_width_multiple: 1,
            resident_lanes: 0,
            resident_workgroups: 0,
            resident_workgroup_size: 0,
            memory_budget_bytes: 1 << 30,
            max_binding_bytes,
            max_edge_segments: 8,
            offset_bytes,
            needs_readback_staging: true,
            launch_overhead_ns: 0.0,
            device_timestamps: false,
        }
    }

    fn graph(n: u32, edges: &[(u32, u32)], symmetrize: bool) -> vyre_graph::Graph {
        let options = BuildOptions {
            symmetrize,
            ..BuildOptions::UNDIRECTED
        };
        build_graph(n, edges, options).unwrap()
    }

    #[test]
    fn planner_split_adds_up_to_the_total() {
        let edges: Vec<_> = (0..300u32).map(|i| (i % 97, (i * 7) % 97)).collect();
        for (g, offset) in [
            (graph(97, &edges, true), 4),
            (graph(97, &edges, false), 8),
            (graph(1, &[], true), 4),
            (graph(5, &[], false), 8),
        ] {
            let layout = DeviceLayout::for_graph(&g, &caps(offset, 1 << 20), 16).unwrap();
            let b = layout.planner_bytes();
            let n = u64::from(layout.vertex_count);
            let sum = n * b.bytes_per_node
                + layout.edge_count * b.bytes_per_edge
                + b.frontier_bytes
                + b.scratch_bytes
                + b.output_bytes;
            assert_eq!(sum, layout.total_bytes());
            assert_eq!(layout.in_edges.is_some(), !g.is_symmetric());
        }
    }

    #[test]
    fn vertex_outputs_must_hold_one_entry_per_vertex() {
        let layout =
            DeviceLayout::for_graph(&graph(5, &[(0, 1)], true), &caps(4, 1 << 20), 1).unwrap();
        assert!(layout.check_vertex_output(5).is_ok());
        let err = layout.check_vertex_output(4).unwrap_err();
        assert!(
            err.message()
                .contains("holds 4 entries but the graph has 5"),
            "{err}"
        );
        assert!(err.message().contains("Fix:"), "{err}");
    }

    #[test]
    fn edges_split_at_the_binding_limit() {
        let edges: Vec<_> = (0..1000u32).map(|i| (i, (i + 1) % 1000)).collect();
        let g = graph(1000, &edges, true);
        // 1024-byte bindings hold 256 edges: 2000 stored edges need 8 segments.
        let layout = DeviceLayout::for_graph(&g, &caps(4, 1024), 1).unwrap();
        assert_eq!(layout.out_edges.edges_per_segment, 256);
        assert_eq!(layout.out_edges.segment_count, 8);
        let held: u64 = (0..8).map(|i| layout.out_edges.edges_in(i)).sum();
        assert_eq!(held, 2000);
        // 512-byte bindings would need 16 segments: more than the device binds.
        let err = DeviceLayout::for_graph(&g, &caps(4, 512), 1).unwrap_err();
        assert!(err.message().contains("Fix:"), "{err}");
    }

    #[test]
    fn work_array_holds_a_full_frontier_scan_and_every_piece() {
        let edges: Vec<_> = (1..5000u32).map(|v| (0, v)).collect();
        let g = graph(5000, &edges, true);
        let layout = DeviceLayout::for_graph(&g, &caps(8, 1 << 30), 1).unwrap();
        let words = layout.work_bytes() / 4;
        let n = u64::from(layout.vertex_count);
        // A scan of every vertex plus chunk totals.
        assert!(words >= n + n.div_ceil(256));
        // Two words per piece: one piece per vertex plus one per full
        // WORK_PIECE_EDGES of edges.
        assert!(words >= 2 * (n + layout.edge_count / WORK_PIECE_EDGES));
    }
}
