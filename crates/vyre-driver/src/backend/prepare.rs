//! What the engine will launch on an uploaded graph, so that a backend can
//! build it before the first search ([`super::Backend::prepare`]).

/// The launches the engine's commands on one uploaded graph use.
///
/// A backend that builds kernels on first use (a pipeline per kernel and
/// workgroup width) would otherwise build them inside whichever search first
/// needs one: on a GPU driver that compiles at pipeline creation, a search
/// of a few hundred microseconds then takes hundreds of milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrepareRequest {
    /// Workgroup widths of the per-wave commands (and of their frontier
    /// conversions) the engine sends for this graph, each once.
    pub per_wave_widths: Vec<u32>,
}
