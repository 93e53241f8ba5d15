//! The plain selector: one wave's telemetry in, one topology out.

use super::decision::MegakernelTopologyDecision;
use super::numeric::{average_degree_bps, finite_unit, launch_pressure_bps, memory_pressure_bps};
use super::thresholds::{
    BLOCK_DENSE_DENSITY, DENSE_AVERAGE_DEGREE_BPS, DENSE_DENSITY, FUSION_MEMORY_CEILING_BPS,
    FUSION_PRESSURE, FUSION_READBACK_BYTES, LAUNCH_PRESSURE_BPS, MEMORY_RED_ZONE_BPS,
    SPARSE_DENSITY, WARP_SPARSE_AVERAGE_DEGREE_BPS, WARP_SPARSE_DENSITY,
};
use super::types::{
    MegakernelDeviceCapabilities, MegakernelExecutionSample, MegakernelExecutionTopology,
    MegakernelGraphShape, MegakernelMemoryBudget,
};

/// Select the megakernel execution topology for one candidate wave.
///
/// The rules, first match wins:
/// 1. memory pressure in the red zone (>= 9 000 bps): `SparseFrontier`;
/// 2. admissible fusion pressure >= 0.70, launch pressure >= 1 500 bps,
///    readback >= 4 096 bytes and memory pressure <= 8 500 bps: `FusedWave`
///    (never on a device without a device-wide barrier, whose admissible
///    fusion pressure is zero);
/// 3. density <= 0.03125 and average degree <= 80 000 bps:
///    `WarpSparseFrontier`;
/// 4. density <= 0.125: `SparseFrontier`;
/// 5. density >= 0.85 and average degree >= 20 000 bps: `BlockDenseFrontier`;
/// 6. density >= 0.70 and average degree >= 20 000 bps: `DenseFrontier`;
/// 7. otherwise `HybridFrontier`.
///
/// Densities and fusion pressures that are not finite count as zero; finite
/// ones are clamped into `[0, 1]`.
#[must_use]
pub fn select_megakernel_topology(
    sample: MegakernelExecutionSample,
    graph: MegakernelGraphShape,
    memory: MegakernelMemoryBudget,
    launch_overhead_ns: f64,
    fusion_pressure: f64,
    capabilities: MegakernelDeviceCapabilities,
) -> MegakernelTopologyDecision {
    let memory_pressure_bps = memory_pressure_bps(memory.required_bytes, memory.budget_bytes);
    let average_degree_bps = average_degree_bps(graph.edge_count, graph.node_count);
    let launch_pressure_bps = launch_pressure_bps(launch_overhead_ns, sample.dispatch_cost_ns);
    let density = finite_unit(sample.frontier_density);
    let fusion = finite_unit(capabilities.admissible_fusion_pressure(fusion_pressure));

    let fused = fusion >= FUSION_PRESSURE
        && launch_pressure_bps >= LAUNCH_PRESSURE_BPS
        && sample.readback_bytes >= FUSION_READBACK_BYTES
        && memory_pressure_bps <= FUSION_MEMORY_CEILING_BPS;
    let dense_degree = average_degree_bps >= DENSE_AVERAGE_DEGREE_BPS;

    let topology = if memory_pressure_bps >= MEMORY_RED_ZONE_BPS {
        MegakernelExecutionTopology::SparseFrontier
    } else if fused {
        MegakernelExecutionTopology::FusedWave
    } else if density <= WARP_SPARSE_DENSITY && average_degree_bps <= WARP_SPARSE_AVERAGE_DEGREE_BPS
    {
        MegakernelExecutionTopology::WarpSparseFrontier
    } else if density <= SPARSE_DENSITY {
        MegakernelExecutionTopology::SparseFrontier
    } else if density >= BLOCK_DENSE_DENSITY && dense_degree {
        MegakernelExecutionTopology::BlockDenseFrontier
    } else if density >= DENSE_DENSITY && dense_degree {
        MegakernelExecutionTopology::DenseFrontier
    } else {
        MegakernelExecutionTopology::HybridFrontier
    };

    MegakernelTopologyDecision {
        topology,
        memory_pressure_bps,
        average_degree_bps,
        launch_pressure_bps,
    }
}
