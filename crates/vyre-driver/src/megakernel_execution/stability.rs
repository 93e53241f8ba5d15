//! The stable selector: the plain answer, then hysteresis around the
//! previous wave's topology so that a frontier hovering at a band edge does
//! not make consecutive waves flap between kernels.

use super::decision::MegakernelTopologyDecision;
use super::numeric::finite_unit;
use super::selection::select_megakernel_topology;
use super::thresholds::{
    BLOCK_DENSE_HOLD_DENSITY, DENSE_AVERAGE_DEGREE_BPS, DENSE_HOLD_DENSITY, FUSION_HOLD_PRESSURE,
    FUSION_READBACK_BYTES, HYBRID_HOLD_OVER_SPARSE_DENSITY, HYBRID_HOLD_UNDER_DENSE_DENSITY,
    LAUNCH_HYSTERESIS_FLOOR_BPS, MEMORY_HYSTERESIS_FLOOR_BPS, MEMORY_RED_ZONE_BPS,
    SPARSE_HOLD_DENSITY, WARP_SPARSE_AVERAGE_DEGREE_BPS, WARP_SPARSE_HOLD_DENSITY,
};
use super::types::{
    MegakernelDeviceCapabilities, MegakernelExecutionSample, MegakernelExecutionTopology,
    MegakernelGraphShape, MegakernelMemoryBudget,
};

/// Select megakernel topology with previous-topology hysteresis.
///
/// The figures are those of [`select_megakernel_topology`]; only the topology
/// may differ. In the memory red zone the plain (sparse) answer stands. Near
/// it (>= 8 750 bps) a sparse or warp-sparse predecessor stays sparse.
/// Otherwise the previous topology is held while the wave is within a band's
/// hysteresis margin:
/// - `WarpSparseFrontier` while density <= 0.05625 and average degree
///   <= 80 000 bps;
/// - `SparseFrontier` while density <= 0.15;
/// - `HybridFrontier` against a sparse answer while density >= 0.10, and
///   against a dense or block-dense answer while density <= 0.725;
/// - `DenseFrontier` while density >= 0.675 and average degree >= 20 000 bps;
/// - `BlockDenseFrontier` while density >= 0.825 and average degree
///   >= 20 000 bps;
/// - `FusedWave` while admissible fusion pressure >= 0.60, launch pressure
///   >= 1 250 bps, readback >= 4 096 bytes and memory pressure <= 8 750 bps.
///
/// A device without a device-wide barrier has no admissible fusion pressure,
/// so a fused predecessor is never held there.
#[must_use]
pub fn select_megakernel_topology_stable(
    sample: MegakernelExecutionSample,
    graph: MegakernelGraphShape,
    memory: MegakernelMemoryBudget,
    launch_overhead_ns: f64,
    fusion_pressure: f64,
    previous_topology: MegakernelExecutionTopology,
    capabilities: MegakernelDeviceCapabilities,
) -> MegakernelTopologyDecision {
    let mut decision = select_megakernel_topology(
        sample,
        graph,
        memory,
        launch_overhead_ns,
        fusion_pressure,
        capabilities,
    );
    decision.topology = held_topology(
        &decision,
        sample,
        capabilities.admissible_fusion_pressure(fusion_pressure),
        previous_topology,
    );
    decision
}

/// The topology after hysteresis: `previous` where the wave is still within
/// its band's margin, the plain decision otherwise.
fn held_topology(
    decision: &MegakernelTopologyDecision,
    sample: MegakernelExecutionSample,
    admissible_fusion_pressure: f64,
    previous: MegakernelExecutionTopology,
) -> MegakernelExecutionTopology {
    use MegakernelExecutionTopology as T;

    if decision.memory_pressure_bps >= MEMORY_RED_ZONE_BPS {
        return decision.topology;
    }
    let sparse_before = matches!(previous, T::SparseFrontier | T::WarpSparseFrontier);
    if sparse_before && decision.memory_pressure_bps >= MEMORY_HYSTERESIS_FLOOR_BPS {
        return T::SparseFrontier;
    }

    let density = finite_unit(sample.frontier_density);
    let fusion = finite_unit(admissible_fusion_pressure);
    let dense_degree = decision.average_degree_bps >= DENSE_AVERAGE_DEGREE_BPS;
    let hold = match previous {
        T::WarpSparseFrontier => {
            density <= WARP_SPARSE_HOLD_DENSITY
                && decision.average_degree_bps <= WARP_SPARSE_AVERAGE_DEGREE_BPS
        }
        T::SparseFrontier => density <= SPARSE_HOLD_DENSITY,
        T::HybridFrontier => match decision.topology {
            T::SparseFrontier => density >= HYBRID_HOLD_OVER_SPARSE_DENSITY,
            T::DenseFrontier | T::BlockDenseFrontier => density <= HYBRID_HOLD_UNDER_DENSE_DENSITY,
            T::WarpSparseFrontier | T::HybridFrontier | T::FusedWave => false,
        },
        T::DenseFrontier => density >= DENSE_HOLD_DENSITY && dense_degree,
        T::BlockDenseFrontier => density >= BLOCK_DENSE_HOLD_DENSITY && dense_degree,
        T::FusedWave => {
            fusion >= FUSION_HOLD_PRESSURE
                && decision.launch_pressure_bps >= LAUNCH_HYSTERESIS_FLOOR_BPS
                && sample.readback_bytes >= FUSION_READBACK_BYTES
                && decision.memory_pressure_bps <= MEMORY_HYSTERESIS_FLOOR_BPS
        }
    };
    if hold { previous } else { decision.topology }
}
