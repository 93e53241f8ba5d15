//! The device's copy of the engine's later-level rule
//! (`shaders/wgsl/level_sizing.wgsl`, as `chain.wgsl` combines it) against
//! [`LevelSizing::workgroups`] itself, over many inputs, on the device.

use std::sync::mpsc;

use vyre_driver::backend::{EDGES_PER_LANE, LevelSizing};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use wgpu::util::DeviceExt;

use vyre_wgsl_abi::control::slot_kind;
use vyre_wgsl_abi::kernels::{PER_WAVE_PRELUDE, source_file};

use crate::errors::wait_idle;
use crate::open::open_for_tests;

const PROBE: &str = include_str!("../../../shaders/wgsl/level_sizing_probe.wgsl");

/// One input: topology, width, frontier vertices, frontier edges, graph
/// vertices, and the command's rule.
type Case = (T, u32, u32, u32, u32, LevelSizing);

fn cases() -> Vec<Case> {
    let topologies = [
        T::WarpSparseFrontier,
        T::SparseFrontier,
        T::HybridFrontier,
        T::DenseFrontier,
        T::BlockDenseFrontier,
    ];
    let edgy = [0, 1, 2, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 65_535];
    let huge = [
        1 << 20,
        u32::MAX / 32,
        u32::MAX / 32 + 1,
        u32::MAX - 1,
        u32::MAX,
    ];
    let counts: Vec<u32> = edgy.iter().chain(&huge).copied().collect();
    let mut out = Vec::new();
    for topology in topologies {
        for width in [1, 2, 32, 64, 256, 1024] {
            for &count in &counts {
                for edges in [0, 1, 3, 4, 5, 1023, 1024, 1025, 1 << 20, u32::MAX] {
                    for n in [1, 31, 32, 33, 1 << 20, u32::MAX] {
                        for edges_per_lane in [0, 1, EDGES_PER_LANE, 7] {
                            for max_workgroups in [0, 1, 3, 65_535, u32::MAX] {
                                let sizing = LevelSizing {
                                    edges_per_lane,
                                    max_workgroups,
                                };
                                out.push((topology, width, count, edges, n, sizing));
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// The probe's grid for every case.
fn device_grids(device: &wgpu::Device, queue: &wgpu::Queue, cases: &[Case]) -> Vec<u32> {
    let words: Vec<u32> = cases
        .iter()
        .flat_map(|&(t, width, count, edges, n, s)| {
            let kind = slot_kind(t);
            [
                kind,
                width,
                count,
                edges,
                n,
                s.edges_per_lane,
                s.max_workgroups,
                0,
            ]
        })
        .collect();
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("probe cases"),
        contents: bytemuck::cast_slice(&words),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let bytes = 4 * cases.len() as u64;
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
    let output = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("probe grids"),
        size: bytes,
        usage,
        mapped_at_creation: false,
    });
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("probe staging"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let prelude = PER_WAVE_PRELUDE.map(|file| source_file(file).unwrap_or_default());
    let source = [prelude.as_slice(), &[PROBE]].concat().join("\n");
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("level sizing probe"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("level sizing probe"),
        layout: None,
        module: &module,
        entry_point: Some("level_sizing_probe"),
        compilation_options: wgpu::PipelineCompilationOptions::default(),
        cache: None,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("level sizing probe"),
        layout: &pipeline.get_bind_group_layout(1),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: input.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: output.as_entire_binding(),
            },
        ],
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(1, &group, &[]);
        let groups = u32::try_from(cases.len().div_ceil(64)).expect("few cases");
        pass.dispatch_workgroups(groups, 1, 1);
    }
    encoder.copy_buffer_to_buffer(&output, 0, &staging, 0, bytes);
    queue.submit([encoder.finish()]);
    let (tx, rx) = mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    wait_idle(device, "probing").expect("the probe finishes");
    rx.recv().expect("mapped").expect("mapping succeeds");
    let view = staging.get_mapped_range(..).expect("mapped range");
    bytemuck::cast_slice(&view).to_vec()
}

#[test]
fn the_device_sizes_later_levels_by_the_engines_rule() {
    let Some(opened) = open_for_tests() else {
        return;
    };
    let cases = cases();
    assert!(cases.len() > 500_000);
    let grids = device_grids(&opened.device, &opened.queue, &cases);
    opened.errors.check("probing").expect("the probe runs");
    assert_eq!(grids.len(), cases.len());
    let mut wrong = 0;
    for (&(topology, width, count, edges, n, sizing), &grid) in cases.iter().zip(&grids) {
        let expected = sizing.workgroups(topology, width, count, u64::from(edges), n);
        if grid != expected {
            wrong += 1;
            if wrong <= 5 {
                println!(
                    "{topology:?} width {width}, {count} vertices, {edges} edges, n {n}, {sizing:?}: device {grid}, engine {expected}"
                );
            }
        }
    }
    assert_eq!(
        wrong, 0,
        "cases where the device's grid is not the engine's"
    );
}
