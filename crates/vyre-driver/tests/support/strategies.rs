//! proptest strategies that mix ordinary values with every special one, so
//! that each property sees NaN, infinities, negatives, zeros, `u64::MAX` and
//! values sitting exactly on the policy's thresholds.

use proptest::prelude::*;
use vyre_driver::megakernel_execution::{
    MegakernelDeviceCapabilities, MegakernelExecutionRequest, MegakernelExecutionSample,
    MegakernelExecutionTopology, MegakernelGraphShape, MegakernelMemoryBudget,
};

/// Any `f64`, weighted toward special values and the policy's thresholds.
pub fn wild_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => any::<f64>(),
        3 => 0.0..1.0f64,
        2 => -1e6..1e6f64,
        2 => prop::sample::select(vec![
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            f64::EPSILON,
            5e-324,
            0.03125,
            0.05625,
            0.10,
            0.125,
            0.15,
            0.60,
            0.675,
            0.70,
            0.725,
            0.825,
            0.85,
            250.0,
            1_000.0,
        ]),
    ]
}

/// Any `u64`, weighted toward small values, byte-count thresholds and extremes.
pub fn wild_u64() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => any::<u64>(),
        3 => 0..100_000u64,
        1 => (u64::MAX - 16)..=u64::MAX,
        2 => prop::sample::select(vec![
            0,
            1,
            2,
            31,
            32,
            1_023,
            1_024,
            4_095,
            4_096,
            u64::from(u32::MAX),
            u64::MAX / 4,
            u64::MAX / 2,
            u64::MAX / 10_000,
            u64::MAX - 1,
            u64::MAX,
        ]),
    ]
}

/// Any topology.
pub fn topology() -> impl Strategy<Value = MegakernelExecutionTopology> {
    prop::sample::select(MegakernelExecutionTopology::ALL.to_vec())
}

/// Either device kind.
pub fn capabilities() -> impl Strategy<Value = MegakernelDeviceCapabilities> {
    any::<bool>().prop_map(
        |supports_device_wide_barrier| MegakernelDeviceCapabilities {
            supports_device_wide_barrier,
        },
    )
}

/// A sample with wild figures.
pub fn sample() -> impl Strategy<Value = MegakernelExecutionSample> {
    (wild_f64(), wild_f64(), wild_u64()).prop_map(
        |(dispatch_cost_ns, frontier_density, readback_bytes)| MegakernelExecutionSample {
            dispatch_cost_ns,
            frontier_density,
            readback_bytes,
        },
    )
}

/// A graph shape with wild counts.
pub fn graph() -> impl Strategy<Value = MegakernelGraphShape> {
    (wild_u64(), wild_u64()).prop_map(|(node_count, edge_count)| MegakernelGraphShape {
        node_count,
        edge_count,
    })
}

/// A memory envelope, often near the red zone.
pub fn budget() -> impl Strategy<Value = MegakernelMemoryBudget> {
    prop_oneof![
        (wild_u64(), wild_u64()).prop_map(|(required_bytes, budget_bytes)| {
            MegakernelMemoryBudget {
                required_bytes,
                budget_bytes,
            }
        }),
        (8_000..=10_100u64).prop_map(|required_bytes| MegakernelMemoryBudget {
            required_bytes,
            budget_bytes: 10_000,
        }),
    ]
}

/// A whole-wave request; byte inputs are kept moderate in one branch so that
/// plans often fit, and wild in the other so overflow paths are reached.
pub fn request() -> impl Strategy<Value = MegakernelExecutionRequest> {
    let moderate = (
        (1..10_000u64, 0..100_000u64),
        (0..64u64, 0..32u64),
        (0..65_536u64, 0..16_384u64, 0..8_192u64),
        0..4_000_000u64,
    );
    let wild = (
        (wild_u64(), wild_u64()),
        (wild_u64(), wild_u64()),
        (wild_u64(), wild_u64(), wild_u64()),
        wild_u64(),
    );
    let bytes = prop_oneof![3 => moderate, 1 => wild];
    (bytes, sample(), wild_f64(), wild_f64(), capabilities()).prop_map(
        |(
            (
                (node_count, edge_count),
                (bytes_per_node, bytes_per_edge),
                (frontier, scratch, output),
                budget,
            ),
            sample,
            launch_overhead_ns,
            fusion_pressure,
            capabilities,
        )| MegakernelExecutionRequest {
            sample,
            graph: MegakernelGraphShape {
                node_count,
                edge_count,
            },
            bytes_per_node,
            bytes_per_edge,
            frontier_bytes: frontier,
            scratch_bytes: scratch,
            output_bytes: output,
            budget_bytes: budget,
            launch_overhead_ns,
            fusion_pressure,
            capabilities,
        },
    )
}
