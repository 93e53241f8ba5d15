//! The buffers of one uploaded graph and its search state: exactly the
//! engine's [`DeviceLayout`], every buffer at its size, with the two
//! descriptor sets (one per frontier set) the kernels bind and the
//! timestamp pool its commands write.

use ash::vk;
use vyre_driver::backend::{BackendError, DeviceCapabilities, DeviceLayout, EdgeSegments};
use vyre_graph::{Csr, Graph, UNREACHED};
use vyre_wgsl_abi::GraphFacts;
use vyre_wgsl_abi::bindings::{Buffer, FUSED_STORAGE_BINDINGS, state_binding};
use vyre_wgsl_abi::control::{
    C_VERTEX_COUNT, GRAPH_WORDS, LEVEL_WORDS_BYTES, RECORD_BASE_WORDS, graph_words,
};

use crate::barrier::{COMPUTE, TRANSFER, TRANSFER_WRITE, barrier};
use crate::carve::Carve;
use crate::gpu::Gpu;
use crate::host_words::staging_needed;
use crate::kernels::{Descriptors, Kernels, Range};
use crate::memory::{DeviceBuffer, Memory};
use crate::record::Timestamps;
use crate::submit::Submission;
use crate::transfer::upload;

/// One direction (out or in) of the graph.
pub(crate) struct Direction {
    pub offsets: DeviceBuffer,
    pub segments: Vec<DeviceBuffer>,
}

/// Every buffer of one layout. Dropping it frees them all.
pub(crate) struct Resident {
    // Field order is drop order: the sets and the timestamp pool before
    // the buffers.
    descriptors: Descriptors,
    /// Set `d` reads frontier set `d` (vyre-wgsl-abi's bindings).
    pub sets: [vk::DescriptorSet; 2],
    pub timestamps: Option<Timestamps>,
    pub layout: DeviceLayout,
    pub facts: GraphFacts,
    /// Control words 16..20, written at upload (and again before every
    /// command, with the command's).
    pub graph_words: [u32; GRAPH_WORDS],
    /// The dispatch arguments and level words within the work buffer.
    pub carve: Carve,
    pub out: Direction,
    pub inward: Option<Direction>,
    pub depth: DeviceBuffer,
    pub parent: DeviceBuffer,
    pub queues: [DeviceBuffer; 2],
    pub bitmaps: [DeviceBuffer; 2],
    pub work: DeviceBuffer,
    pub control: DeviceBuffer,
    pub history: DeviceBuffer,
    pub staging: DeviceBuffer,
}

/// Check that `layout` is what the engine computes for `graph` on a device
/// with `caps`, and that its buffers fit the device's real binding limit.
pub(crate) fn check_layout(
    graph: &Graph,
    layout: &DeviceLayout,
    caps: &DeviceCapabilities,
    binding_limit: u64,
) -> Result<(), BackendError> {
    let expected = DeviceLayout::for_graph(graph, caps, layout.max_levels_per_command)?;
    if *layout != expected {
        return Err(BackendError::new(format!(
            "the device layout does not match the graph on this device: got {layout:?}, expected {expected:?}. Fix: compute it with DeviceLayout::for_graph(graph, backend.capabilities(), ..) for this very graph."
        )));
    }
    let needed = staging_needed(layout.max_levels_per_command);
    if layout.staging_bytes() < needed {
        return Err(BackendError::new(format!(
            "the layout's staging buffer has {} bytes but commands of {} levels exchange {needed} with the host. Fix: lay the graph out for more levels per command (the engine uses 1024).",
            layout.staging_bytes(),
            layout.max_levels_per_command
        )));
    }
    for (what, bytes) in [
        ("row-offset array", layout.offsets_bytes()),
        ("per-vertex array", layout.vertex_array_bytes()),
        ("work array", layout.work_bytes()),
        ("level history", layout.history_bytes()),
        ("staging buffer", layout.staging_bytes()),
    ] {
        if bytes > binding_limit {
            return Err(crate::error::out_of_memory(&format!(
                "the {what} needs a {bytes}-byte binding but {} binds at most {binding_limit} bytes",
                caps.device_name
            )));
        }
    }
    Ok(())
}

pub(crate) const STATE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw()
        | vk::BufferUsageFlags::TRANSFER_SRC.as_raw()
        | vk::BufferUsageFlags::TRANSFER_DST.as_raw(),
);

/// Buffers that hold indirect dispatch arguments (the host's grids, carved
/// from the work array) need that usage too.
const ARGUMENTS: vk::BufferUsageFlags =
    vk::BufferUsageFlags::from_raw(STATE.as_raw() | vk::BufferUsageFlags::INDIRECT_BUFFER.as_raw());

fn direction(
    memory: &Memory,
    layout: &DeviceLayout,
    segments: &EdgeSegments,
    name: &str,
) -> Result<Direction, BackendError> {
    let offsets = memory.buffer(
        &format!("{name} offsets"),
        layout.offsets_bytes(),
        STATE,
        false,
    )?;
    let segments = (0..segments.segment_count)
        .map(|i| {
            memory.buffer(
                &format!("{name} segment {i}"),
                segments.bytes_of(i),
                STATE,
                false,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Direction { offsets, segments })
}

/// Every buffer of a layout, before the sets that name them.
struct Buffers {
    out: Direction,
    inward: Option<Direction>,
    depth: DeviceBuffer,
    parent: DeviceBuffer,
    queues: [DeviceBuffer; 2],
    bitmaps: [DeviceBuffer; 2],
    work: DeviceBuffer,
    control: DeviceBuffer,
    history: DeviceBuffer,
    staging: DeviceBuffer,
}

/// Allocate every buffer of `layout` for `graph`, with its descriptor sets
/// and timestamp pool (nothing stays allocated on error: what was made so
/// far is dropped).
pub(crate) fn allocate(
    gpu: &Gpu,
    kernels: &Kernels,
    graph: &Graph,
    layout: &DeviceLayout,
) -> Result<Resident, BackendError> {
    let b = buffers(&gpu.memory, layout)?;
    let carve = Carve::of(layout.work_bytes(), gpu.facts.storage_offset_alignment);
    let descriptors = Descriptors::new(&gpu.device, 2)?;
    let timestamps = gpu
        .facts
        .timestamp_period_ns
        .map(|period| Timestamps::new(&gpu.device, period))
        .transpose()?;
    let in_per = layout
        .in_edges
        .unwrap_or(layout.out_edges)
        .edges_per_segment;
    let narrow = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    let mut resident = Resident {
        descriptors,
        sets: [vk::DescriptorSet::null(); 2],
        timestamps,
        layout: *layout,
        facts: GraphFacts::of(graph),
        graph_words: graph_words(
            layout.vertex_count,
            narrow(layout.out_edges.edges_per_segment),
            narrow(in_per),
            RECORD_BASE_WORDS,
        ),
        carve,
        out: b.out,
        inward: b.inward,
        depth: b.depth,
        parent: b.parent,
        queues: b.queues,
        bitmaps: b.bitmaps,
        work: b.work,
        control: b.control,
        history: b.history,
        staging: b.staging,
    };
    let set = |d: u32| {
        let ranges: Vec<Range> = (0..FUSED_STORAGE_BINDINGS)
            .map(|binding| resident.range(state_binding(binding, d)))
            .collect();
        resident.descriptors.set(kernels.set_layout(), &ranges)
    };
    resident.sets = [set(0)?, set(1)?];
    Ok(resident)
}

fn buffers(memory: &Memory, layout: &DeviceLayout) -> Result<Buffers, BackendError> {
    let vertex = layout.vertex_array_bytes();
    let bitmap = layout.bitmap_bytes();
    let state = |name: &str, bytes| memory.buffer(name, bytes, STATE, false);
    Ok(Buffers {
        out: direction(memory, layout, &layout.out_edges, "out-edge")?,
        inward: layout
            .in_edges
            .as_ref()
            .map(|segments| direction(memory, layout, segments, "in-edge"))
            .transpose()?,
        depth: state("depth array", vertex)?,
        parent: state("parent array", vertex)?,
        queues: [state("queue 0", vertex)?, state("queue 1", vertex)?],
        bitmaps: [state("bitmap 0", bitmap)?, state("bitmap 1", bitmap)?],
        work: memory.buffer("work array", layout.work_bytes(), ARGUMENTS, false)?,
        control: memory.buffer("control block", layout.control_bytes(), ARGUMENTS, false)?,
        history: state("level history", layout.history_bytes())?,
        // The fused kernel polls its abort word there.
        staging: memory.buffer("staging buffer", layout.staging_bytes(), STATE, true)?,
    })
}

impl Resident {
    /// What a binding naming `held` (vyre-wgsl-abi's bindings) sees.
    pub(crate) fn range(&self, held: Buffer) -> Range {
        let inward = self.inward.as_ref().unwrap_or(&self.out);
        let segment = |dir: &Direction, i: u32| {
            Range::whole(
                dir.segments
                    .get(i as usize)
                    .unwrap_or(&dir.segments[0])
                    .buffer,
            )
        };
        let work = |offset: u64, bytes: u64| Range {
            buffer: self.work.buffer,
            offset,
            bytes,
        };
        let carve = &self.carve;
        match held {
            Buffer::Control => Range::whole(self.control.buffer),
            Buffer::OutOffsets => Range::whole(self.out.offsets.buffer),
            Buffer::InOffsets => Range::whole(inward.offsets.buffer),
            Buffer::Depth => Range::whole(self.depth.buffer),
            Buffer::Parent => Range::whole(self.parent.buffer),
            Buffer::Queue(i) => Range::whole(self.queues[i as usize].buffer),
            Buffer::Bitmap(i) => Range::whole(self.bitmaps[i as usize].buffer),
            Buffer::Work => work(0, carve.work_bytes),
            Buffer::OutSegment(i) => segment(&self.out, i),
            Buffer::InSegment(i) => segment(inward, i),
            Buffer::History => Range::whole(self.history.buffer),
            Buffer::LevelWords(i) => work(carve.level_words[i as usize], LEVEL_WORDS_BYTES),
            Buffer::HostWords => Range::whole(self.staging.buffer),
        }
    }

    /// Every buffer with its bytes, for `allocated_bytes` and tests.
    pub(crate) fn buffers(&self) -> Vec<&DeviceBuffer> {
        let mut all = vec![&self.out.offsets];
        all.extend(&self.out.segments);
        if let Some(inward) = &self.inward {
            all.push(&inward.offsets);
            all.extend(&inward.segments);
        }
        all.extend([
            &self.depth,
            &self.parent,
            &self.work,
            &self.control,
            &self.history,
        ]);
        all.extend(&self.queues);
        all.extend(&self.bitmaps);
        all.push(&self.staging);
        all
    }

    /// Bytes of every buffer.
    pub(crate) fn bytes(&self) -> u64 {
        self.buffers().iter().map(|b| b.size).sum()
    }

    /// Copy `graph` in, set every vertex unreached and zero the search state.
    pub(crate) fn fill(&mut self, gpu: &Gpu, graph: &Graph) -> Result<(), BackendError> {
        let narrow = |offset: u64| u32::try_from(offset).unwrap_or(u32::MAX);
        let mut write_direction = |csr: &Csr, direction: &Direction| -> Result<(), BackendError> {
            // check_layout made every offset fit 32 bits.
            upload(
                gpu,
                &mut self.staging,
                &direction.offsets,
                csr.offsets(),
                narrow,
            )?;
            let per =
                usize::try_from(self.layout.out_edges.edges_per_segment).unwrap_or(usize::MAX);
            let targets = csr.targets();
            for (segment, buffer) in direction.segments.iter().enumerate() {
                let start = segment.saturating_mul(per).min(targets.len());
                let end = start.saturating_add(per).min(targets.len());
                upload(gpu, &mut self.staging, buffer, &targets[start..end], |t| t)?;
            }
            Ok(())
        };
        write_direction(graph.out_edges(), &self.out)?;
        if let Some(inward) = &self.inward {
            write_direction(graph.in_edges(), inward)?;
        }
        let submission = Submission::begin(gpu, "clearing the search state")?;
        for (buffer, value) in [(&self.depth, UNREACHED), (&self.parent, UNREACHED)]
            .into_iter()
            .chain(
                [
                    &self.queues[0],
                    &self.queues[1],
                    &self.bitmaps[0],
                    &self.bitmaps[1],
                ]
                .into_iter()
                .chain([&self.work, &self.control, &self.history])
                .map(|b| (b, 0)),
            )
        {
            // SAFETY: the buffer is live with TRANSFER_DST usage; its size
            // is a multiple of 4.
            unsafe {
                gpu.device.cmd_fill_buffer(
                    submission.command,
                    buffer.buffer,
                    0,
                    vk::WHOLE_SIZE,
                    value,
                );
            }
        }
        let graph_words: Vec<u8> = self
            .graph_words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        // The fills above zeroed the control block: order the update after.
        barrier(&gpu.device, submission.command, TRANSFER_WRITE, &[TRANSFER]);
        // SAFETY: a live buffer with TRANSFER_DST usage; the update lies
        // within it.
        unsafe {
            gpu.device.cmd_update_buffer(
                submission.command,
                self.control.buffer,
                4 * C_VERTEX_COUNT as u64,
                &graph_words,
            );
        }
        barrier(
            &gpu.device,
            submission.command,
            TRANSFER_WRITE,
            &[TRANSFER, COMPUTE],
        );
        submission.finish("clearing the search state")
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use vyre_driver::backend::{Backend, BackendErrorKind, DeviceLayout};
    use vyre_graph::build::{BuildOptions, build_graph};
    use vyre_graph::{Graph, UNREACHED};

    use crate::VulkanOpenRequest;
    use crate::testing::{TestDevice, open, open_with};
    use crate::transfer::read_back;

    fn graph(n: u32, edges: &[(u32, u32)], symmetrize: bool) -> Arc<Graph> {
        let options = BuildOptions {
            symmetrize,
            ..BuildOptions::UNDIRECTED
        };
        Arc::new(build_graph(n, edges, options).unwrap())
    }

    fn upload(gpu: &mut TestDevice, g: &Arc<Graph>) -> DeviceLayout {
        let layout = DeviceLayout::for_graph(g, gpu.capabilities(), 16).unwrap();
        gpu.upload(g, &layout).unwrap();
        layout
    }

    fn device_words(
        gpu: &TestDevice,
        pick: impl Fn(&super::Resident) -> &crate::memory::DeviceBuffer,
        words: usize,
    ) -> Vec<u32> {
        let resident = gpu.resident.as_ref().unwrap();
        let mut out = vec![0; words];
        read_back(&gpu.gpu, &resident.staging, pick(resident), &mut out).unwrap();
        out
    }

    #[test]
    fn the_layout_is_allocated_exactly_and_the_graph_arrives_intact() {
        let Some(mut gpu) = open("the_layout_is_allocated_exactly_and_the_graph_arrives_intact")
        else {
            return;
        };
        // A directed graph, so both directions are uploaded.
        let edges: Vec<_> = (0..3000u32)
            .map(|i| (i % 1000, (i * 7 + 1) % 1000))
            .collect();
        let g = graph(1000, &edges, false);
        let layout = upload(&mut gpu, &g);
        assert_eq!(gpu.allocated_bytes(), layout.total_bytes());
        let (live, reserved) = gpu.allocator_report();
        assert_eq!(live, gpu.resident.as_ref().unwrap().buffers().len());
        assert!(reserved >= gpu.allocated_bytes());
        let n = g.vertex_count() as usize;
        let m = g.edge_count() as usize;
        let offsets: Vec<u32> = g.out_edges().offsets().iter().map(|&o| o as u32).collect();
        assert_eq!(device_words(&gpu, |r| &r.out.offsets, n + 1), offsets);
        assert_eq!(
            device_words(&gpu, |r| &r.out.segments[0], m),
            g.out_edges().targets()
        );
        let in_offsets: Vec<u32> = g.in_edges().offsets().iter().map(|&o| o as u32).collect();
        assert_eq!(
            device_words(&gpu, |r| &r.inward.as_ref().unwrap().offsets, n + 1),
            in_offsets
        );
        let mut depths = vec![0; n];
        gpu.read_depths(&mut depths).unwrap();
        assert!(depths.iter().all(|&d| d == UNREACHED));
        let mut parents = vec![0; n];
        gpu.read_parents(&mut parents).unwrap();
        assert!(parents.iter().all(|&p| p == UNREACHED));
        let err = gpu.read_depths(&mut depths[1..]).unwrap_err();
        assert!(err.message().contains("Fix:"), "{err}");
        gpu.assert_valid();
    }

    #[test]
    fn edges_split_across_segments_at_the_binding_limit() {
        let request = VulkanOpenRequest {
            max_binding_bytes_override: Some(1024),
            ..VulkanOpenRequest::default()
        };
        let Some(mut gpu) = open_with("edges_split_across_segments_at_the_binding_limit", &request)
        else {
            return;
        };
        // 600 vertices, 1200 stored edges: 256 edges per 1 KiB segment.
        let edges: Vec<_> = (0..600u32).map(|v| (v, (v + 1) % 600)).collect();
        let g = graph(600, &edges, true);
        let layout = upload(&mut gpu, &g);
        assert_eq!(layout.out_edges.segment_count, 5);
        assert_eq!(gpu.allocated_bytes(), layout.total_bytes());
        let targets = g.out_edges().targets();
        for segment in 0..5 {
            let held = layout.out_edges.edges_in(segment) as usize;
            let start = segment as usize * 256;
            let words = device_words(&gpu, |r| &r.out.segments[segment as usize], held);
            assert_eq!(words, targets[start..start + held], "segment {segment}");
        }
    }

    #[test]
    fn out_of_memory_is_typed_and_leaves_nothing_allocated() {
        let request = VulkanOpenRequest {
            allocation_limit_bytes: Some(64 << 10),
            ..VulkanOpenRequest::default()
        };
        let Some(mut gpu) = open_with(
            "out_of_memory_is_typed_and_leaves_nothing_allocated",
            &request,
        ) else {
            return;
        };
        let small = graph(10, &[(0, 1), (1, 2)], true);
        upload(&mut gpu, &small);
        assert!(gpu.allocated_bytes() > 0);
        // 20,000 vertices need far more than 64 KiB.
        let edges: Vec<_> = (1..20_000u32).map(|v| (v - 1, v)).collect();
        let big = graph(20_000, &edges, true);
        let layout = DeviceLayout::for_graph(&big, gpu.capabilities(), 16).unwrap();
        let err = gpu.upload(&big, &layout).unwrap_err();
        assert_eq!(err.kind(), BackendErrorKind::OutOfMemory, "{err}");
        assert!(err.message().contains("Fix:"), "{err}");
        assert_eq!(gpu.allocated_bytes(), 0);
        assert_eq!(
            gpu.allocator_report().0,
            0,
            "live allocations after the error"
        );
        // The device still works: the small graph uploads again.
        upload(&mut gpu, &small);
        gpu.assert_valid();
    }

    #[test]
    fn a_layout_for_another_graph_is_refused() {
        let Some(mut gpu) = open("a_layout_for_another_graph_is_refused") else {
            return;
        };
        let a = graph(10, &[(0, 1)], true);
        let b = graph(11, &[(0, 1)], true);
        let layout = DeviceLayout::for_graph(&a, gpu.capabilities(), 16).unwrap();
        let err = gpu.upload(&b, &layout).unwrap_err();
        assert_eq!(err.kind(), BackendErrorKind::InvalidRequest);
        assert!(err.message().contains("does not match"), "{err}");
        assert_eq!(gpu.allocated_bytes(), 0);
    }
}
