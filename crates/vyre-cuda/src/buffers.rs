//! The device buffers of one uploaded graph and its search state, allocated
//! exactly as the [`DeviceLayout`] lists them. The layout's level history is
//! the device-memory log the fused kernel writes while it runs; the records
//! the host reads live in pinned host memory mapped into the device (per-wave
//! kernels write them directly, the fused kernel copies its log there as it
//! exits), which is host memory and so not counted.

use std::sync::Arc;
use std::time::Duration;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DeviceRepr};
use vyre_driver::backend::{BackendError, DeviceLayout, EdgeSegments};
use vyre_graph::{Csr, Graph};

use crate::args::{CONTROL_WORDS, KernelArgs};
use crate::error::during;
use crate::records::HostRecords;

/// One CSR direction on the device.
pub(crate) struct DeviceCsr {
    pub offsets: CudaSlice<u64>,
    pub targets: CudaSlice<u32>,
}

/// Every buffer of one uploaded graph.
pub(crate) struct DeviceGraph {
    pub layout: DeviceLayout,
    pub out_edges: DeviceCsr,
    /// Reverse CSR (directed graphs); `None` when bottom-up kernels read the
    /// out-edges.
    pub in_edges: Option<DeviceCsr>,
    pub depth: CudaSlice<u32>,
    pub parent: CudaSlice<u32>,
    pub queues: [CudaSlice<u32>; 2],
    pub bitmaps: [CudaSlice<u32>; 2],
    /// Scratch of device-wide scans and heavy-vertex pieces
    /// ([`DeviceLayout::work_bytes`]).
    pub work: CudaSlice<u32>,
    pub control: CudaSlice<u32>,
    /// The level records the host reads, in mapped host memory.
    pub records: HostRecords,
    /// The layout's level history on the device: the fused kernel's records
    /// while it runs.
    pub level_log: CudaSlice<u32>,
    /// Largest out-degree of the graph (saturated at `u32::MAX`).
    pub max_out_degree: u32,
    /// One past the last vertex with an in-edge.
    pub in_edge_end: u32,
    /// Bytes of all of the above.
    pub bytes: u64,
}

/// Check that `layout` describes `graph` and that this backend can hold it.
pub(crate) fn check_layout(graph: &Graph, layout: &DeviceLayout) -> Result<(), BackendError> {
    if layout.vertex_count != graph.vertex_count() || layout.edge_count != graph.edge_count() {
        return Err(BackendError::new(format!(
            "the layout is for {} vertices and {} edges, the graph has {} and {}. Fix: compute the layout from this graph (DeviceLayout::for_graph).",
            layout.vertex_count,
            layout.edge_count,
            graph.vertex_count(),
            graph.edge_count()
        )));
    }
    // The kernels pick their light-graph paths by it.
    let most = u32::try_from(graph.out_edges().max_degree()).unwrap_or(u32::MAX);
    if layout.max_out_degree != most {
        return Err(BackendError::new(format!(
            "the layout says the largest out-degree is {}, the graph's is {most}. Fix: compute the layout from this graph (DeviceLayout::for_graph).",
            layout.max_out_degree
        )));
    }
    if layout.offset_bytes != 8 {
        return Err(BackendError::new(format!(
            "the layout uses {}-byte row offsets; the CUDA kernels read 8-byte (u64) offsets. Fix: compute the layout from this backend's capabilities (offset_bytes 8).",
            layout.offset_bytes
        )));
    }
    let single = |s: &EdgeSegments| s.segment_count == 1;
    if !single(&layout.out_edges) || !layout.in_edges.as_ref().is_none_or(single) {
        return Err(BackendError::new(
            "the layout splits the edges into several segments; the CUDA kernels read one edge array per direction. Fix: compute the layout from this backend's capabilities (max_edge_segments 1).",
        ));
    }
    if !graph.is_symmetric() && layout.in_edges.is_none() {
        return Err(BackendError::new(
            "the graph is directed but the layout has no in-edge arrays, which bottom-up levels need. Fix: compute the layout from this graph (DeviceLayout::for_graph).",
        ));
    }
    if layout.max_levels_per_command == 0 {
        return Err(BackendError::new(
            "the layout has room for 0 levels per command. Fix: compute the layout with max_levels_per_command >= 1.",
        ));
    }
    Ok(())
}

/// Allocate `bytes / size_of::<T>()` elements, uninitialised.
pub(crate) fn alloc<T: DeviceRepr>(
    stream: &Arc<CudaStream>,
    bytes: u64,
) -> Result<CudaSlice<T>, BackendError> {
    let len = usize::try_from(bytes / std::mem::size_of::<T>() as u64).map_err(|_| {
        BackendError::new(format!(
            "a {bytes}-byte buffer does not fit this host's address space. Fix: use a 64-bit host."
        ))
    })?;
    // SAFETY: the memory is uninitialised; every buffer is written before it
    // is read: graph arrays by the copies below, depth, parent and both
    // bitmaps by vyre_init_search, control by a memset, queues by the level
    // or conversion that produces a frontier, the work array and the level
    // log by the launch that uses them (each kernel reads only what it wrote
    // in the same launch).
    unsafe { stream.alloc::<T>(len) }.map_err(during("device allocation"))
}

fn upload_csr(
    stream: &Arc<CudaStream>,
    csr: &Csr,
    layout: &DeviceLayout,
    segments: &EdgeSegments,
) -> Result<DeviceCsr, BackendError> {
    let mut offsets = alloc::<u64>(stream, layout.offsets_bytes())?;
    let mut targets = alloc::<u32>(stream, segments.bytes_of(0))?;
    stream
        .memcpy_htod(csr.offsets(), &mut offsets)
        .map_err(during("row offset upload"))?;
    if !csr.targets().is_empty() {
        stream
            .memcpy_htod(csr.targets(), &mut targets)
            .map_err(during("edge upload"))?;
    }
    Ok(DeviceCsr { offsets, targets })
}

impl DeviceGraph {
    /// Allocate the layout's buffers and copy the graph in. Depth and
    /// parent are initialised by the caller (a kernel); dropping the records
    /// waits up to `wait_limit` for the stream.
    pub(crate) fn upload(
        stream: &Arc<CudaStream>,
        graph: &Graph,
        layout: &DeviceLayout,
        wait_limit: Duration,
    ) -> Result<Self, BackendError> {
        check_layout(graph, layout)?;
        let out_edges = upload_csr(stream, graph.out_edges(), layout, &layout.out_edges)?;
        let in_edges = match &layout.in_edges {
            Some(segments) => Some(upload_csr(stream, graph.in_edges(), layout, segments)?),
            None => None,
        };
        let vertex_bytes = layout.vertex_array_bytes();
        let mut control = alloc::<u32>(stream, layout.control_bytes())?;
        stream
            .memset_zeros(&mut control)
            .map_err(during("control block clear"))?;
        let this = Self {
            out_edges,
            in_edges,
            depth: alloc(stream, vertex_bytes)?,
            parent: alloc(stream, vertex_bytes)?,
            queues: [alloc(stream, vertex_bytes)?, alloc(stream, vertex_bytes)?],
            bitmaps: [
                alloc(stream, layout.bitmap_bytes())?,
                alloc(stream, layout.bitmap_bytes())?,
            ],
            work: alloc(stream, layout.work_bytes())?,
            control,
            records: HostRecords::new(stream, layout.max_levels_per_command, wait_limit)?,
            level_log: alloc(stream, layout.history_bytes())?,
            max_out_degree: layout.max_out_degree,
            in_edge_end: graph.in_edges().rows_end(),
            bytes: 0,
            layout: *layout,
        };
        debug_assert_eq!(this.control.len(), CONTROL_WORDS);
        Ok(Self {
            bytes: this.held_bytes(),
            ..this
        })
    }

    fn held_bytes(&self) -> u64 {
        let csr = |c: &DeviceCsr| (c.offsets.num_bytes() + c.targets.num_bytes()) as u64;
        let words = |s: &CudaSlice<u32>| s.num_bytes() as u64;
        csr(&self.out_edges)
            + self.in_edges.as_ref().map_or(0, csr)
            + words(&self.depth)
            + words(&self.parent)
            + self.queues.iter().map(words).sum::<u64>()
            + self.bitmaps.iter().map(words).sum::<u64>()
            + words(&self.work)
            + words(&self.control)
            + words(&self.level_log)
    }

    /// Arguments with every buffer of this graph and the abort word
    /// (`abort_flag`) filled in; the queue and bitmap pointers are the ones
    /// at index 0 and 1 (callers pick).
    pub(crate) fn base_args(&self, stream: &CudaStream, abort_flag: u64) -> KernelArgs {
        let ptr64 = |s: &CudaSlice<u64>| s.device_ptr(stream).0;
        let ptr32 = |s: &CudaSlice<u32>| s.device_ptr(stream).0;
        let reverse = self.in_edges.as_ref().unwrap_or(&self.out_edges);
        KernelArgs {
            out_offsets: ptr64(&self.out_edges.offsets),
            out_targets: ptr32(&self.out_edges.targets),
            in_offsets: ptr64(&reverse.offsets),
            in_targets: ptr32(&reverse.targets),
            depth: ptr32(&self.depth),
            parent: ptr32(&self.parent),
            queue_in: ptr32(&self.queues[0]),
            queue_out: ptr32(&self.queues[1]),
            bitmap_in: ptr32(&self.bitmaps[0]),
            bitmap_out: ptr32(&self.bitmaps[1]),
            control: ptr32(&self.control),
            history: self.records.device_ptr(),
            level_log: ptr32(&self.level_log),
            work: ptr32(&self.work),
            abort_flag,
            band_max_frontier_edges: u64::MAX,
            band_max_frontier_vertices: u64::MAX,
            work_words: self.work.len() as u64,
            vertex_count: self.layout.vertex_count,
            level: 0,
            history_index: 0,
            epoch: 0,
            max_levels: 1,
            aux: 0,
            max_out_degree: self.max_out_degree,
            in_edge_end: self.in_edge_end,
            edges_per_lane: 0,
            ..KernelArgs::default()
        }
    }

    /// Device address of queue `index` (0 or 1).
    pub(crate) fn queue_ptr(&self, stream: &CudaStream, index: u32) -> u64 {
        self.queues[index as usize & 1].device_ptr(stream).0
    }

    /// Device address of bitmap `index` (0 or 1).
    pub(crate) fn bitmap_ptr(&self, stream: &CudaStream, index: u32) -> u64 {
        self.bitmaps[index as usize & 1].device_ptr(stream).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vyre_driver::backend::DeviceCapabilities;
    use vyre_driver::megakernel_execution::MegakernelDeviceCapabilities;
    use vyre_graph::build::{BuildOptions, build_graph};

    fn caps(offset_bytes: u32, max_binding_bytes: u64) -> DeviceCapabilities {
        DeviceCapabilities {
            fused_cluster: vyre_driver::backend::FusedCluster::NONE,
            device_name: "test".into(),
            megakernel: MegakernelDeviceCapabilities::FUSION_CAPABLE,
            barrier_reason: "cooperative launch in tests".into(),
            batch_fused_wave: true,
            max_workgroup_size_x: 1024,
            max_compute_workgroups_per_dimension: u32::MAX,
            max_compute_invocations_per_workgroup: 1024,
            subgroup_size: 32,
            workgroup_width_multiple: 32,
            resident_lanes: 25_600,
            resident_workgroups: 100,
            resident_workgroup_size: 256,
            memory_budget_bytes: 1 << 30,
            max_binding_bytes,
            max_edge_segments: 4,
            offset_bytes,
            needs_readback_staging: false,
            launch_overhead_ns: 1.0,
            device_timestamps: true,
        }
    }

    #[test]
    fn layouts_this_backend_cannot_hold_are_refused() {
        let path: Vec<(u32, u32)> = (1..200).map(|v| (v - 1, v)).collect();
        let directed = build_graph(200, &path, BuildOptions::DIRECTED).unwrap();
        let undirected = build_graph(200, &path, BuildOptions::UNDIRECTED).unwrap();
        let good = DeviceLayout::for_graph(&directed, &caps(8, u64::MAX), 4).unwrap();
        assert!(check_layout(&directed, &good).is_ok());
        let err = check_layout(&undirected, &good).unwrap_err();
        assert!(err.message().contains("edges"), "{err}");
        let narrow = DeviceLayout::for_graph(&directed, &caps(4, u64::MAX), 4).unwrap();
        assert!(
            check_layout(&directed, &narrow)
                .unwrap_err()
                .message()
                .contains("8-byte")
        );
        let split = DeviceLayout::for_graph(&directed, &caps(8, 256), 4).unwrap();
        assert!(split.out_edges.segment_count > 1);
        assert!(
            check_layout(&directed, &split)
                .unwrap_err()
                .message()
                .contains("segments")
        );
        let mut understated = good;
        understated.max_out_degree = 0;
        assert!(
            check_layout(&directed, &understated)
                .unwrap_err()
                .message()
                .contains("largest out-degree is 0, the graph's is 1")
        );
        let mut no_reverse = good;
        no_reverse.in_edges = None;
        assert!(
            check_layout(&directed, &no_reverse)
                .unwrap_err()
                .message()
                .contains("in-edge")
        );
        let symmetric = DeviceLayout::for_graph(&undirected, &caps(8, u64::MAX), 4).unwrap();
        assert!(check_layout(&undirected, &symmetric).is_ok());
    }
}
