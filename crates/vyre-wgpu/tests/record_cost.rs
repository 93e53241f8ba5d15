//! What wgpu's host spends recording one chained level (a bind-group
//! switch and one dispatch) by the shape of the bind group, printed for the
//! record (run with `--ignored --nocapture`; timing is not asserted). wgpu
//! records a pass's commands when the encoder finishes, tracking every
//! bound buffer and ordering each read-write one with a barrier on every
//! dispatch, so the cost follows the read-write buffers bound, not the
//! bindings. The shapes are vyre's: 29 storage bindings, 11 of them read and
//! written, frontier sets that swap 3 pairs of them each level.

use std::num::NonZeroU64;
use std::time::Instant;

/// Levels recorded per encoder, and encoders timed per shape.
const LEVELS: u32 = 256;
const REPEATS: usize = 30;

/// Bytes of one binding's buffer or region.
const REGION: u64 = 1 << 16;

/// The bindings vyre's kernels only read (row offsets, edge segments).
fn read_only(binding: u32) -> bool {
    matches!(binding, 1 | 2) || (10..26).contains(&binding)
}

/// The binding set `set` puts in slot `binding`: set 1 swaps the frontier
/// pairs.
fn slot(binding: u32, set: u32) -> u32 {
    match (binding, set) {
        (5 | 7 | 27, 1) => binding + 1,
        (6 | 8 | 28, 1) => binding - 1,
        _ => binding,
    }
}

struct Shape {
    name: &'static str,
    bindings: u32,
    /// Read-write bindings as regions of one buffer instead of buffers.
    carved: bool,
    /// Whether the level switches frontier sets.
    alternate: bool,
}

#[test]
#[ignore = "measurement; run explicitly"]
fn recording_cost_by_bind_group_shape() {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let Ok(adapter) =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
    else {
        println!("skipped: no wgpu adapter");
        return;
    };
    println!("adapter: {}", adapter.get_info().name);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: adapter.limits(),
        ..Default::default()
    }))
    .expect("device");
    let storage = wgpu::BufferUsages::STORAGE;
    let buffer = |size: u64| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage: storage,
            mapped_at_creation: false,
        })
    };
    let buffers: Vec<_> = (0..29).map(|_| buffer(REGION)).collect();
    let arena = buffer(29 * REGION);
    let shapes = [
        Shape {
            name: "29 bindings, 11 read-write buffers, switching sets",
            bindings: 29,
            carved: false,
            alternate: true,
        },
        Shape {
            name: "29 bindings, read-write ones carved from one buffer, switching",
            bindings: 29,
            carved: true,
            alternate: true,
        },
        Shape {
            name: "29 bindings, carved, one set",
            bindings: 29,
            carved: true,
            alternate: false,
        },
        Shape {
            name: "1 read-write binding, one set (the floor)",
            bindings: 1,
            carved: false,
            alternate: false,
        },
    ];
    for shape in shapes {
        let entries: Vec<_> = (0..shape.bindings)
            .map(|binding| wgpu::BindGroupLayoutEntry {
                binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage {
                        read_only: read_only(binding),
                    },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &entries,
        });
        let groups: Vec<_> = (0..2)
            .map(|set| {
                let entries: Vec<_> = (0..shape.bindings)
                    .map(|binding| {
                        let held = slot(binding, set);
                        let resource = if shape.carved && !read_only(binding) {
                            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer: &arena,
                                offset: u64::from(held) * REGION,
                                size: NonZeroU64::new(REGION),
                            })
                        } else {
                            buffers[held as usize].as_entire_binding()
                        };
                        wgpu::BindGroupEntry { binding, resource }
                    })
                    .collect();
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &layout,
                    entries: &entries,
                })
            })
            .collect();
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(
                "@group(0) @binding(0) var<storage, read_write> x: array<u32>;
                 @compute @workgroup_size(64)
                 fn main(@builtin(global_invocation_id) i: vec3<u32>) {
                     if i.x == 0u { x[0] = x[0] + 1u; }
                 }"
                .into(),
            ),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let mut per_level: Vec<f64> = (0..REPEATS)
            .map(|_| {
                let start = Instant::now();
                let mut encoder = device.create_command_encoder(&Default::default());
                {
                    let mut pass = encoder.begin_compute_pass(&Default::default());
                    pass.set_pipeline(&pipeline);
                    for level in 0..LEVELS {
                        let set = if shape.alternate { level & 1 } else { 0 };
                        pass.set_bind_group(0, &groups[set as usize], &[]);
                        pass.dispatch_workgroups(64, 1, 1);
                    }
                }
                let commands = encoder.finish();
                let recorded = start.elapsed();
                queue.submit([commands]);
                device
                    .poll(wgpu::PollType::wait_indefinitely())
                    .expect("poll");
                recorded.as_secs_f64() * 1e6 / f64::from(LEVELS)
            })
            .collect();
        per_level.sort_by(f64::total_cmp);
        println!(
            "{:64} recording {:.2} us per level (median; min {:.2}, max {:.2})",
            shape.name,
            per_level[REPEATS / 2],
            per_level[0],
            per_level[REPEATS - 1]
        );
    }
}
