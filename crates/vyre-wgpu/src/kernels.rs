//! The WGSL kernels, their bind-group layouts and the pipeline cache.
//!
//! Every kernel file in `shaders/wgsl/` is compiled with `common.wgsl`,
//! `level_sizing.wgsl` and `chain.wgsl` prepended (and `bottom_up.wgsl` for
//! the two bottom-up kernels). Every kernel but `noop` shares one bind-group
//! layout (the state of one frontier set), so a chain of levels in one pass
//! only switches between the two frontier sets' bind groups. Pipelines are
//! created once per (kernel, workgroup width); the width is the WGSL
//! `override` constant `WG`, which also sizes the kernels' workgroup arrays.

use std::collections::HashMap;

use vyre_driver::backend::WORK_PIECE_EDGES;
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;

use crate::control::{HYBRID_LIGHT_DEGREE, HYBRID_MID_ROUNDS, REPEATED_SCAN_LOADS, SCAN_CAP};

const COMMON: &str = include_str!("../../../shaders/wgsl/common.wgsl");
const LEVEL_SIZING: &str = include_str!("../../../shaders/wgsl/level_sizing.wgsl");
const CHAIN: &str = include_str!("../../../shaders/wgsl/chain.wgsl");
/// The files every kernel module starts with, in order.
pub(crate) const PRELUDE: [&str; 3] = [COMMON, LEVEL_SIZING, CHAIN];
const NOOP: &str = include_str!("../../../shaders/wgsl/noop.wgsl");
const SEARCH_START: &str = include_str!("../../../shaders/wgsl/search_start.wgsl");
const CONVERT: &str = include_str!("../../../shaders/wgsl/convert.wgsl");
const WARP_SPARSE: &str = include_str!("../../../shaders/wgsl/warp_sparse.wgsl");
const SPARSE: &str = include_str!("../../../shaders/wgsl/sparse.wgsl");
const HYBRID: &str = include_str!("../../../shaders/wgsl/hybrid.wgsl");
const BOTTOM_UP: &str = include_str!("../../../shaders/wgsl/bottom_up.wgsl");
const DENSE: &str = include_str!("../../../shaders/wgsl/dense.wgsl");
const BLOCK_DENSE: &str = include_str!("../../../shaders/wgsl/block_dense.wgsl");

/// Edge-segment bindings each kernel declares per direction.
pub(crate) const EDGE_SEGMENT_BINDINGS: u32 = 8;
/// First binding of the out-edge segments (in-edge segments follow).
pub(crate) const FIRST_SEGMENT_BINDING: u32 = 10;
/// Binding of the level history.
pub(crate) const HISTORY_BINDING: u32 = FIRST_SEGMENT_BINDING + 2 * EDGE_SEGMENT_BINDINGS;
/// Binding of the next levels' dispatch arguments.
pub(crate) const NEXT_ARGS_BINDING: u32 = HISTORY_BINDING + 1;
/// Bindings of the level words of this frontier set and of the other.
pub(crate) const THIS_LEVEL_BINDING: u32 = NEXT_ARGS_BINDING + 1;
pub(crate) const NEXT_LEVEL_BINDING: u32 = THIS_LEVEL_BINDING + 1;
/// Storage buffers every kernel binds: 10 state buffers (the work array
/// included), both edge directions, the level history, the next levels'
/// dispatch arguments and both sets' level words.
pub(crate) const STORAGE_BINDINGS: u32 = NEXT_LEVEL_BINDING + 1;

/// One compute entry point.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub(crate) enum Kernel {
    Noop,
    ResetState,
    SeedSources,
    QueueToBitmap,
    BitmapToQueue,
    WarpSparse,
    SparseScan,
    Sparse,
    Hybrid,
    HybridPieces,
    Dense,
    DenseClearNext,
    BlockDense,
}

/// Source files a kernel module is built from.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
enum Module {
    Noop,
    SearchStart,
    Convert,
    WarpSparse,
    Sparse,
    Hybrid,
    Dense,
    BlockDense,
}

impl Module {
    /// The module's own files, after `common.wgsl`, `level_sizing.wgsl` and
    /// `chain.wgsl`.
    fn sources(self) -> &'static [&'static str] {
        match self {
            Self::Noop => &[NOOP],
            Self::SearchStart => &[SEARCH_START],
            Self::Convert => &[CONVERT],
            Self::WarpSparse => &[WARP_SPARSE],
            Self::Sparse => &[SPARSE],
            Self::Hybrid => &[HYBRID],
            Self::Dense => &[BOTTOM_UP, DENSE],
            Self::BlockDense => &[BOTTOM_UP, BLOCK_DENSE],
        }
    }
}

impl Kernel {
    fn module(self) -> Module {
        match self {
            Self::Noop => Module::Noop,
            Self::ResetState | Self::SeedSources => Module::SearchStart,
            Self::QueueToBitmap | Self::BitmapToQueue => Module::Convert,
            Self::WarpSparse => Module::WarpSparse,
            Self::SparseScan | Self::Sparse => Module::Sparse,
            Self::Hybrid | Self::HybridPieces => Module::Hybrid,
            Self::Dense | Self::DenseClearNext => Module::Dense,
            Self::BlockDense => Module::BlockDense,
        }
    }

    fn entry_point(self) -> &'static str {
        match self {
            Self::Noop => "noop",
            Self::ResetState => "reset_state",
            Self::SeedSources => "seed_sources",
            Self::QueueToBitmap => "queue_to_bitmap",
            Self::BitmapToQueue => "bitmap_to_queue",
            Self::WarpSparse => "warp_sparse",
            Self::SparseScan => "sparse_scan",
            Self::Sparse => "sparse",
            Self::Hybrid => "hybrid",
            Self::HybridPieces => "hybrid_pieces",
            Self::Dense => "dense",
            Self::DenseClearNext => "dense_clear_next",
            Self::BlockDense => "block_dense",
        }
    }

    /// The level kernel of a topology (`None` for `FusedWave`).
    pub(crate) fn for_topology(topology: MegakernelExecutionTopology) -> Option<Self> {
        match topology {
            MegakernelExecutionTopology::WarpSparseFrontier => Some(Self::WarpSparse),
            MegakernelExecutionTopology::SparseFrontier => Some(Self::Sparse),
            MegakernelExecutionTopology::HybridFrontier => Some(Self::Hybrid),
            MegakernelExecutionTopology::DenseFrontier => Some(Self::Dense),
            MegakernelExecutionTopology::BlockDenseFrontier => Some(Self::BlockDense),
            MegakernelExecutionTopology::FusedWave => None,
        }
    }
}

/// Bind-group layouts, pipeline layouts, shader modules and pipelines of one
/// device.
pub(crate) struct Kernels {
    pub(crate) state_layout: wgpu::BindGroupLayout,
    state_pipeline_layout: wgpu::PipelineLayout,
    empty_pipeline_layout: wgpu::PipelineLayout,
    modules: HashMap<Module, wgpu::ShaderModule>,
    pipelines: HashMap<(Kernel, u32), wgpu::ComputePipeline>,
    /// The `STALE_SIZING` fault injection (tests only).
    stale_sizing: bool,
}

fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

impl Kernels {
    pub(crate) fn new(device: &wgpu::Device, stale_sizing: bool) -> Self {
        let mut entries = vec![
            storage_entry(0, false),
            storage_entry(1, true),
            storage_entry(2, true),
        ];
        entries.extend((3..=9).map(|b| storage_entry(b, false)));
        entries.extend(
            (0..2 * EDGE_SEGMENT_BINDINGS).map(|i| storage_entry(FIRST_SEGMENT_BINDING + i, true)),
        );
        entries.push(storage_entry(HISTORY_BINDING, false));
        entries.extend(
            [NEXT_ARGS_BINDING, THIS_LEVEL_BINDING, NEXT_LEVEL_BINDING]
                .map(|b| storage_entry(b, false)),
        );
        let state_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("vyre state"),
            entries: &entries,
        });
        let state_pipeline_layout =
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("vyre kernels"),
                bind_group_layouts: &[Some(&state_layout)],
                immediate_size: 0,
            });
        let empty_pipeline_layout =
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("vyre empty"),
                bind_group_layouts: &[],
                immediate_size: 0,
            });
        Self {
            state_layout,
            state_pipeline_layout,
            empty_pipeline_layout,
            modules: HashMap::new(),
            pipelines: HashMap::new(),
            stale_sizing,
        }
    }

    /// The pipeline of `kernel` at workgroup width `width`, created on first
    /// use (a cheap handle clone afterwards).
    pub(crate) fn pipeline(
        &mut self,
        device: &wgpu::Device,
        kernel: Kernel,
        width: u32,
    ) -> wgpu::ComputePipeline {
        let width = if kernel == Kernel::Noop { 1 } else { width };
        let module_id = kernel.module();
        let module = self.modules.entry(module_id).or_insert_with(|| {
            let source = PRELUDE
                .iter()
                .chain(module_id.sources())
                .copied()
                .collect::<Vec<_>>()
                .join("\n");
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(kernel.entry_point()),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })
        });
        let stale_sizing = f64::from(u8::from(self.stale_sizing));
        let layout = if kernel == Kernel::Noop {
            &self.empty_pipeline_layout
        } else {
            &self.state_pipeline_layout
        };
        self.pipelines
            .entry((kernel, width))
            .or_insert_with(|| {
                let constants = [
                    ("WG", f64::from(width)),
                    ("SCAN_CAP", f64::from(SCAN_CAP)),
                    ("PIECE_EDGES", WORK_PIECE_EDGES as f64),
                    ("LIGHT_DEGREE", f64::from(HYBRID_LIGHT_DEGREE)),
                    ("REPEATED_SCAN_LOADS", REPEATED_SCAN_LOADS as f64),
                    ("MID_ROUNDS", f64::from(HYBRID_MID_ROUNDS)),
                    ("STALE_SIZING", stale_sizing),
                ];
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(kernel.entry_point()),
                    layout: Some(layout),
                    module,
                    entry_point: Some(kernel.entry_point()),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        zero_initialize_workgroup_memory: true,
                    },
                    cache: None,
                })
            })
            .clone()
    }

    /// Number of pipelines created so far (for tests of the cache).
    pub(crate) fn pipeline_count(&self) -> usize {
        self.pipelines.len()
    }
}
