//! Total basis-point arithmetic for the selectors and the memory planner.
//!
//! Telemetry comes from devices and calibrations, so any `f64` (NaN,
//! infinities, negatives) and any `u64` can arrive here. Every helper answers
//! a defined figure for every input; none panics, wraps or allocates.

/// Basis points in one whole (100 %).
const FULL_BPS: u64 = 10_000;

/// `value` clamped into `[0, 1]`; NaN and infinities count as `0`.
pub(super) fn finite_unit(value: f64) -> f64 {
    if value.is_finite() {
        value.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// `floor(numerator * 10 000 / denominator)`, computed in 128 bits and
/// saturating at `u64::MAX`.
///
/// A zero denominator answers `u64::MAX` when there is something to divide
/// (`numerator > 0`) and `0` otherwise.
pub(super) fn ratio_bps(numerator: u64, denominator: u64) -> u64 {
    if denominator == 0 {
        return if numerator == 0 { 0 } else { u64::MAX };
    }
    if let Some(scaled) = numerator.checked_mul(FULL_BPS) {
        // Byte counts below ~1.8 PB: a plain 64-bit division, same result.
        return scaled / denominator;
    }
    // u64::MAX * 10_000 < u128::MAX, so the product cannot overflow.
    let wide = u128::from(numerator) * u128::from(FULL_BPS) / u128::from(denominator);
    u64::try_from(wide).unwrap_or(u64::MAX)
}

/// Required bytes over budget bytes in basis points, clamped to 10 000.
pub(super) fn memory_pressure_bps(required_bytes: u64, budget_bytes: u64) -> u32 {
    let clamped = ratio_bps(required_bytes, budget_bytes).min(FULL_BPS);
    // The clamp keeps the value within u32.
    u32::try_from(clamped).unwrap_or(10_000)
}

/// Edges per node in basis points (see [`ratio_bps`]).
pub(super) fn average_degree_bps(edge_count: u64, node_count: u64) -> u64 {
    ratio_bps(edge_count, node_count)
}

/// `round(overhead / cost * 10 000)`, saturating at `u32::MAX`.
///
/// A cost that is not finite or not positive gives `0` (there is nothing to
/// compare against). The overhead is floored at zero the way `f64::max`
/// does it, so NaN and negative overheads give `0`; `+inf` gives `u32::MAX`.
/// Rounding is half away from zero ([`f64::round`]).
pub(super) fn launch_pressure_bps(launch_overhead_ns: f64, dispatch_cost_ns: f64) -> u32 {
    if !(dispatch_cost_ns.is_finite() && dispatch_cost_ns > 0.0) {
        return 0;
    }
    // f64::max returns the other operand for NaN, so NaN becomes 0 here.
    let overhead = launch_overhead_ns.max(0.0);
    if overhead.is_nan() || overhead <= 0.0 {
        return 0;
    }
    if overhead == f64::INFINITY {
        return u32::MAX;
    }
    round_to_u32_saturating(overhead / dispatch_cost_ns * 10_000.0)
}

/// `value.round()` (half away from zero) saturated into `u32`, for a
/// non-negative `value`; NaN gives 0.
///
/// Below 2^32 the integer part and the fraction of an `f64` are both exact,
/// so comparing the fraction with one half rounds exactly as `f64::round`
/// does, without the library call `round` needs on baseline x86-64.
fn round_to_u32_saturating(value: f64) -> u32 {
    if value.is_nan() || value <= 0.0 {
        return 0;
    }
    if value >= 4_294_967_296.0 {
        return u32::MAX;
    }
    // In (0, 2^32): the cast truncates exactly.
    let whole = value as u32;
    let round_up = value - f64::from(whole) >= 0.5;
    whole.saturating_add(u32::from(round_up))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    #[test]
    fn finite_unit_clamps_and_zeroes_non_finite_values() {
        assert_eq!(finite_unit(0.5), 0.5);
        assert_eq!(finite_unit(-3.0), 0.0);
        assert_eq!(finite_unit(7.0), 1.0);
        assert_eq!(finite_unit(f64::NAN), 0.0);
        assert_eq!(finite_unit(f64::INFINITY), 0.0);
        assert_eq!(finite_unit(f64::NEG_INFINITY), 0.0);
    }

    #[test]
    fn ratio_floors_and_saturates() {
        // 1 * 10 000 / 3 = 3 333.33 -> 3 333.
        assert_eq!(ratio_bps(1, 3), 3_333);
        // 2 * 10 000 / 3 = 6 666.67 -> 6 666 (floor, not round).
        assert_eq!(ratio_bps(2, 3), 6_666);
        assert_eq!(ratio_bps(0, 0), 0);
        assert_eq!(ratio_bps(1, 0), u64::MAX);
        assert_eq!(ratio_bps(0, 5), 0);
        // u64::MAX * 10 000 does not fit u64: saturates.
        assert_eq!(ratio_bps(u64::MAX, 1), u64::MAX);
        // u64::MAX * 10 000 / u64::MAX = 10 000 exactly (needs 128 bits).
        assert_eq!(ratio_bps(u64::MAX, u64::MAX), 10_000);
        // (u64::MAX / 10 000) * 10 000 / 1 = 18 446 744 073 709 550 000.
        assert_eq!(ratio_bps(u64::MAX / 10_000, 1), 18_446_744_073_709_550_000);
    }

    #[test]
    fn memory_pressure_clamps_to_full() {
        assert_eq!(memory_pressure_bps(1_000, 10_000), 1_000);
        assert_eq!(memory_pressure_bps(20_000, 10_000), 10_000);
        assert_eq!(memory_pressure_bps(1, 0), 10_000);
        assert_eq!(memory_pressure_bps(0, 0), 0);
        assert_eq!(memory_pressure_bps(u64::MAX, 1), 10_000);
        // 8 999.9 -> 8 999: floor keeps it out of the red zone.
        assert_eq!(memory_pressure_bps(89_999, 100_000), 8_999);
    }

    #[test]
    fn launch_pressure_handles_every_special_value() {
        assert_eq!(launch_pressure_bps(250.0, 1_000.0), 2_500);
        // 1 / 3 * 10 000 = 3 333.33 -> 3 333; 2 / 3 -> 6 666.67 -> 6 667.
        assert_eq!(launch_pressure_bps(1.0, 3.0), 3_333);
        assert_eq!(launch_pressure_bps(2.0, 3.0), 6_667);
        // 0.5 bps rounds away from zero: 1 / 20 000 * 10 000 = 0.5 -> 1.
        assert_eq!(launch_pressure_bps(1.0, 20_000.0), 1);
        assert_eq!(launch_pressure_bps(100.0, 0.0), 0);
        assert_eq!(launch_pressure_bps(100.0, -1.0), 0);
        assert_eq!(launch_pressure_bps(100.0, f64::NAN), 0);
        assert_eq!(launch_pressure_bps(100.0, f64::INFINITY), 0);
        assert_eq!(launch_pressure_bps(f64::INFINITY, f64::INFINITY), 0);
        assert_eq!(launch_pressure_bps(f64::NAN, 1.0), 0);
        assert_eq!(launch_pressure_bps(-5.0, 1.0), 0);
        assert_eq!(launch_pressure_bps(f64::NEG_INFINITY, 1.0), 0);
        assert_eq!(launch_pressure_bps(0.0, 1.0), 0);
        assert_eq!(launch_pressure_bps(f64::INFINITY, 1.0), u32::MAX);
        // 1e300 / 1e-300 overflows to +inf before scaling: saturates.
        assert_eq!(launch_pressure_bps(1e300, 1e-300), u32::MAX);
        // 429 496.7295 * 10 000 = u32::MAX exactly -> saturates to it.
        assert_eq!(launch_pressure_bps(429_496.729_5, 1.0), u32::MAX);
        assert_eq!(launch_pressure_bps(f64::MIN_POSITIVE, 1.0), 0);
    }

    #[test]
    fn rounding_is_half_away_from_zero_and_saturates() {
        assert_eq!(round_to_u32_saturating(0.5), 1);
        assert_eq!(round_to_u32_saturating(0.499_999_999_999_999_94), 0);
        assert_eq!(round_to_u32_saturating(1.5), 2);
        assert_eq!(round_to_u32_saturating(2.5), 3);
        assert_eq!(round_to_u32_saturating(2.499_999), 2);
        assert_eq!(
            round_to_u32_saturating(4_294_967_294.499_999),
            4_294_967_294
        );
        assert_eq!(round_to_u32_saturating(4_294_967_294.5), u32::MAX);
        assert_eq!(round_to_u32_saturating(4_294_967_295.9), u32::MAX);
        assert_eq!(round_to_u32_saturating(1e300), u32::MAX);
        assert_eq!(round_to_u32_saturating(f64::INFINITY), u32::MAX);
        assert_eq!(round_to_u32_saturating(f64::NAN), 0);
        assert_eq!(round_to_u32_saturating(-0.0), 0);
        assert_eq!(round_to_u32_saturating(5e-324), 0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]

        #[test]
        fn fast_rounding_matches_f64_round(
            value in proptest::prop_oneof![
                0.0..8.0f64,
                0.0..5e9f64,
                proptest::num::f64::POSITIVE | proptest::num::f64::ZERO | proptest::num::f64::SUBNORMAL,
                (0..u32::MAX).prop_map(|n| f64::from(n) + 0.5),
            ]
        ) {
            let rounded = value.round();
            let expected = if rounded >= f64::from(u32::MAX) { u32::MAX } else { rounded as u32 };
            proptest::prop_assert_eq!(round_to_u32_saturating(value), expected);
        }
    }
}
