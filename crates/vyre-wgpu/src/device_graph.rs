//! The device buffers of one uploaded graph and its search state, allocated
//! exactly as the engine's [`DeviceLayout`] lists them. Where the search
//! stands is the engine's (`SearchPosition`); these are buffers only.

use vyre_driver::backend::{
    BackendError, BackendErrorKind, DeviceLayout, EdgeSegments, WORK_RESERVE_WORDS,
};
use vyre_graph::{Csr, Graph};

use vyre_wgsl_abi::GraphFacts;
use vyre_wgsl_abi::bindings::{
    Buffer, EDGE_SEGMENT_BINDINGS, FUSED_STORAGE_BINDINGS, HOST_WORDS_BYTES, STORAGE_BINDINGS,
    state_binding,
};
use vyre_wgsl_abi::control::{C_VERTEX_COUNT, LEVEL_WORDS_BYTES, RECORD_BASE_WORDS, graph_words};

use crate::kernels::Kernels;
use crate::region::{CarveError, Region, carve};
use crate::upload::Uploader;

/// Device buffers of one graph and its search state. The state is carved
/// from as few buffers as the device allows ([`crate::region`]).
pub(crate) struct DeviceGraph {
    pub layout: DeviceLayout,
    pub control: Region,
    pub depth: Region,
    pub parent: Region,
    pub queues: [Region; 2],
    pub bitmaps: [Region; 2],
    pub history: Region,
    /// Level words of each frontier set (`L_*` in `common.wgsl`), also
    /// carved from the work array's bytes.
    pub level_words: [Region; 2],
    /// What decides which dispatches a level records.
    pub facts: GraphFacts,
    pub staging: wgpu::Buffer,
    /// Bind group `d` reads frontier set `d` and writes set `1 - d`.
    pub state_groups: Vec<wgpu::BindGroup>,
    /// The same with the host words, for the fused kernel (none where the
    /// device cannot bind them).
    pub fused_groups: Vec<wgpu::BindGroup>,
    /// Two timestamps per command (its begin and end), when the device has
    /// timestamps.
    pub query_set: Option<wgpu::QuerySet>,
    pub allocated: u64,
    /// The graph's two directions (in-edges only for a directed graph) and
    /// the work array.
    out: Direction,
    reverse: Option<Direction>,
    work: Region,
    /// The fused kernel's host words. wgpu writes no buffer while a
    /// submission runs, so the abort word stays 0 and a stuck launch ends
    /// by the kernel's own bounded waits; bound so that wgpu and Vulkan
    /// run one kernel source.
    host_words: Region,
}

impl DeviceGraph {
    /// The binding of what `held` names (vyre-wgsl-abi's bindings).
    pub(crate) fn binding(&self, held: Buffer) -> wgpu::BindingResource<'_> {
        let reverse = self.reverse.as_ref().unwrap_or(&self.out);
        let state = match held {
            Buffer::OutOffsets => return self.out.offsets.as_entire_binding(),
            Buffer::InOffsets => return reverse.offsets.as_entire_binding(),
            Buffer::OutSegment(i) => return self.out.segment(i).as_entire_binding(),
            Buffer::InSegment(i) => return reverse.segment(i).as_entire_binding(),
            Buffer::Control => &self.control,
            Buffer::Depth => &self.depth,
            Buffer::Parent => &self.parent,
            Buffer::Queue(i) => &self.queues[i as usize],
            Buffer::Bitmap(i) => &self.bitmaps[i as usize],
            Buffer::Work => &self.work,
            Buffer::HostWords => &self.host_words,
            Buffer::History => &self.history,
            Buffer::LevelWords(i) => &self.level_words[i as usize],
        };
        state.binding()
    }
}

/// Buffers allocated so far, for `allocated_bytes` and for freeing all of
/// them when an upload fails part-way.
struct Allocator<'a> {
    device: &'a wgpu::Device,
    bytes: u64,
}

impl Allocator<'_> {
    fn buffer(&mut self, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.bytes += size;
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    }
}

fn too_big(what: &str, bytes: u64, limit: u64) -> BackendError {
    BackendError::with_kind(
        BackendErrorKind::OutOfMemory,
        format!(
            "the {what} needs a {bytes}-byte binding but this adapter binds at most {limit} bytes. Fix: use a smaller graph, or a device that binds more."
        ),
    )
}

/// Check that `layout` describes `graph` on this backend.
pub(crate) fn check_layout(
    graph: &Graph,
    layout: &DeviceLayout,
    binding_limit: u64,
) -> Result<(), BackendError> {
    let mismatch = |what: String| {
        Err(BackendError::new(format!(
            "the device layout does not match the graph: {what}. Fix: compute the layout with DeviceLayout::for_graph(graph, backend.capabilities(), ..) for this very graph."
        )))
    };
    if layout.vertex_count != graph.vertex_count() || layout.edge_count != graph.edge_count() {
        return mismatch(format!(
            "layout has {} vertices and {} edges, the graph {} and {}",
            layout.vertex_count,
            layout.edge_count,
            graph.vertex_count(),
            graph.edge_count()
        ));
    }
    if layout.offset_bytes != 4 {
        return mismatch(format!("{}-byte offsets, wgpu uses 4", layout.offset_bytes));
    }
    if layout.in_edges.is_some() == graph.is_symmetric() {
        return mismatch("in-edge segments must be present exactly for directed graphs".into());
    }
    if !layout.readback_staging {
        return mismatch("wgpu needs a readback staging buffer".into());
    }
    if u32::try_from(layout.edge_count).is_err() {
        return mismatch(format!(
            "{} edges do not fit 32-bit offsets",
            layout.edge_count
        ));
    }
    for segments in std::iter::once(&layout.out_edges).chain(layout.in_edges.as_ref()) {
        if segments.edge_count != layout.edge_count
            || segments.segment_count == 0
            || segments.segment_count > EDGE_SEGMENT_BINDINGS
            || (segments.segment_count > 1
                && segments.edges_per_segment * u64::from(segments.segment_count - 1)
                    >= segments.edge_count)
            || segments.edges_per_segment * u64::from(segments.segment_count) < segments.edge_count
        {
            return mismatch(format!(
                "edge segments {segments:?} do not cover {} edges in at most {EDGE_SEGMENT_BINDINGS} bindings",
                layout.edge_count
            ));
        }
        for i in 0..segments.segment_count {
            if segments.bytes_of(i) > binding_limit {
                return Err(too_big("edge segment", segments.bytes_of(i), binding_limit));
            }
        }
    }
    for (what, bytes) in [
        ("row-offset array", layout.offsets_bytes()),
        ("per-vertex array", layout.vertex_array_bytes()),
        ("work array", layout.work_bytes()),
    ] {
        if bytes > binding_limit {
            return Err(too_big(what, bytes, binding_limit));
        }
    }
    if layout.staging_bytes() < layout.history_bytes() {
        return mismatch("staging smaller than the level history".into());
    }
    Ok(())
}

/// The search state's regions, in the order they are carved.
struct State {
    control: Region,
    depth: Region,
    parent: Region,
    queues: [Region; 2],
    bitmaps: [Region; 2],
    level_words: [Region; 2],
    host_words: Region,
    history: Region,
    work: Region,
}

/// Carve the search state from as few buffers as the device allows. The
/// work array comes last and gives the alignment gaps between regions
/// (under 3 KB) from its reserve, as it gives the level words and host
/// words: what the kernels use of it (`DeviceLayout::work_bytes`) stays
/// whole, and the state takes exactly the layout's bytes.
fn carve_state(alloc: &mut Allocator<'_>, layout: &DeviceLayout) -> Result<State, BackendError> {
    let vertex = layout.vertex_array_bytes();
    let bitmap = layout.bitmap_bytes();
    let carved_from_work = 2 * LEVEL_WORDS_BYTES + HOST_WORDS_BYTES;
    let sizes = [
        layout.control_bytes(),
        vertex,
        vertex,
        vertex,
        vertex,
        bitmap,
        bitmap,
        LEVEL_WORDS_BYTES,
        LEVEL_WORDS_BYTES,
        HOST_WORDS_BYTES,
        layout.history_bytes(),
        layout.work_bytes() - carved_from_work,
    ];
    let slack = 4 * WORK_RESERVE_WORDS - carved_from_work;
    let limits = alloc.device.limits();
    let align = u64::from(limits.min_storage_buffer_offset_alignment);
    let carving = carve(&sizes, align, limits.max_buffer_size, slack).map_err(|e| {
        let what = match e {
            CarveError::TooLarge(i) => format!("a {}-byte state buffer", sizes[i]),
            CarveError::GapsExceedSlack(gaps) => {
                format!("{gaps} bytes of alignment gaps between state buffers")
            }
        };
        BackendError::with_kind(
            BackendErrorKind::OutOfMemory,
            format!(
                "this adapter cannot hold {what} (largest buffer {} bytes, offset alignment {align}). Fix: use a smaller graph, or another adapter or backend.",
                limits.max_buffer_size
            ),
        )
    })?;
    use wgpu::BufferUsages as U;
    let usage = U::STORAGE | U::COPY_SRC | U::COPY_DST | U::QUERY_RESOLVE;
    let arenas: Vec<_> = carving
        .arenas
        .iter()
        .map(|&size| alloc.buffer("vyre search state", size, usage))
        .collect();
    // carve returns one place and one size per size asked for.
    let [
        control,
        depth,
        parent,
        q0,
        q1,
        b0,
        b1,
        l0,
        l1,
        host_words,
        history,
        work,
    ] = std::array::from_fn(|i| Region {
        buffer: arenas[carving.places[i].arena].clone(),
        offset: carving.places[i].offset,
        size: carving.sizes[i],
    });
    Ok(State {
        control,
        depth,
        parent,
        queues: [q0, q1],
        bitmaps: [b0, b1],
        level_words: [l0, l1],
        host_words,
        history,
        work,
    })
}

/// One direction (out or in) of the graph on the device.
struct Direction {
    offsets: wgpu::Buffer,
    segments: Vec<wgpu::Buffer>,
}

impl Direction {
    /// Edge segment `i`, or segment 0 where the graph has fewer.
    fn segment(&self, i: u32) -> &wgpu::Buffer {
        self.segments.get(i as usize).unwrap_or(&self.segments[0])
    }
}

fn upload_direction(
    alloc: &mut Allocator<'_>,
    uploader: &mut Uploader<'_>,
    csr: &Csr,
    layout: &DeviceLayout,
    segments: &EdgeSegments,
    name: &str,
) -> Result<Direction, BackendError> {
    let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
    let offsets = alloc.buffer(name, layout.offsets_bytes(), storage);
    // check_layout guarantees every offset fits u32.
    uploader.write_narrowed(&offsets, csr.offsets())?;
    let targets = csr.targets();
    let per = usize::try_from(segments.edges_per_segment).unwrap_or(usize::MAX);
    let mut buffers = Vec::with_capacity(segments.segment_count as usize);
    for i in 0..segments.segment_count {
        let buffer = alloc.buffer(name, segments.bytes_of(i), storage);
        let start = (i as usize).saturating_mul(per).min(targets.len());
        let end = start.saturating_add(per).min(targets.len());
        uploader.write(&buffer, &targets[start..end])?;
        buffers.push(buffer);
    }
    Ok(Direction {
        offsets,
        segments: buffers,
    })
}

/// What a graph is allocated on.
pub(crate) struct AllocateRequest<'a> {
    pub device: &'a wgpu::Device,
    pub queue: &'a wgpu::Queue,
    pub kernels: &'a Kernels,
    /// The fused kernel's bind-group layout, where the device binds it.
    pub fused_layout: Option<&'a wgpu::BindGroupLayout>,
    /// Whether commands are timed.
    pub timestamps: bool,
}

/// Allocate and fill every buffer of `layout` (validated by [`check_layout`]).
pub(crate) fn allocate(
    request: &AllocateRequest<'_>,
    graph: &Graph,
    layout: &DeviceLayout,
) -> Result<DeviceGraph, BackendError> {
    let AllocateRequest {
        device,
        queue,
        kernels,
        fused_layout,
        timestamps,
    } = *request;
    use wgpu::BufferUsages as U;
    let mut alloc = Allocator { device, bytes: 0 };
    let mut uploader = Uploader::new(device, queue);
    let out = upload_direction(
        &mut alloc,
        &mut uploader,
        graph.out_edges(),
        layout,
        &layout.out_edges,
        "vyre out-edges",
    )?;
    let reverse = layout
        .in_edges
        .as_ref()
        .map(|segments| {
            upload_direction(
                &mut alloc,
                &mut uploader,
                graph.in_edges(),
                layout,
                segments,
                "vyre in-edges",
            )
        })
        .transpose()?;
    let state = carve_state(&mut alloc, layout)?;
    let staging = alloc.buffer(
        "vyre staging",
        layout.staging_bytes(),
        U::MAP_READ | U::COPY_DST,
    );
    let in_per = layout
        .in_edges
        .unwrap_or(layout.out_edges)
        .edges_per_segment;
    let words = graph_words(
        layout.vertex_count,
        u32::try_from(layout.out_edges.edges_per_segment).unwrap_or(u32::MAX),
        u32::try_from(in_per).unwrap_or(u32::MAX),
        RECORD_BASE_WORDS,
    );
    let (control, at) = state.control.at((C_VERTEX_COUNT * 4) as u64);
    queue.write_buffer(control, at, bytemuck::cast_slice(&words));
    let query_set = timestamps.then(|| {
        device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("vyre command timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        })
    });
    let State {
        control,
        depth,
        parent,
        queues,
        bitmaps,
        level_words,
        host_words,
        history,
        work,
    } = state;
    let mut graph = DeviceGraph {
        layout: *layout,
        control,
        depth,
        parent,
        queues,
        bitmaps,
        history,
        level_words,
        facts: GraphFacts::of(graph),
        staging,
        state_groups: Vec::new(),
        fused_groups: Vec::new(),
        query_set,
        allocated: alloc.bytes,
        out,
        reverse,
        work,
        host_words,
    };
    let group = |layout: &wgpu::BindGroupLayout, bindings: u32, d: u32| {
        bind_group(device, layout, bindings, |binding| {
            graph.binding(state_binding(binding, d))
        })
    };
    let state = &kernels.state_layout;
    let state_groups = vec![
        group(state, STORAGE_BINDINGS, 0),
        group(state, STORAGE_BINDINGS, 1),
    ];
    let fused_groups = fused_layout.map_or_else(Vec::new, |fused| {
        vec![
            group(fused, FUSED_STORAGE_BINDINGS, 0),
            group(fused, FUSED_STORAGE_BINDINGS, 1),
        ]
    });
    graph.state_groups = state_groups;
    graph.fused_groups = fused_groups;
    Ok(graph)
}

/// A bind group of `layout` whose bindings `0..bindings` hold what `held`
/// gives.
pub(crate) fn bind_group<'b>(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    bindings: u32,
    held: impl Fn(u32) -> wgpu::BindingResource<'b>,
) -> wgpu::BindGroup {
    let entries: Vec<_> = (0..bindings)
        .map(|binding| wgpu::BindGroupEntry {
            binding,
            resource: held(binding),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("vyre state"),
        layout,
        entries: &entries,
    })
}
