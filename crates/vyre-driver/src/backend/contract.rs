//! The [`Backend`] trait.

use std::sync::Arc;

use vyre_graph::Graph;

use super::{
    BackendError, BatchLayout, BatchReport, BatchSources, CheckedCommand, DeviceCapabilities,
    DeviceLayout, PrepareRequest, SearchSources, WaveReport,
};

/// One device, driven by the wave engine.
///
/// Call order: [`Backend::upload`] and [`Backend::prepare`] once per graph,
/// then for each search
/// [`Backend::begin_search`], [`Backend::run_wave`] until a report shows an
/// empty frontier, and [`Backend::read_depths`] / [`Backend::read_parents`].
/// A backend decides nothing: topology, every grid, chain length, band and
/// the buffer holding the frontier all come in the command, checked once by
/// [`super::WaveCommand::check`]; sources come checked as [`SearchSources`].
pub trait Backend: Send {
    /// What the device can do (measured when the backend was opened).
    fn capabilities(&self) -> &DeviceCapabilities;

    /// Devices (ranks) one graph is partitioned over: 1 for a single
    /// device. A partitioned backend exchanges each level's frontier
    /// between its ranks as [`crate::collective::ExchangeKind::of`] the
    /// command's topology says, and the engine traces that exchange.
    fn ranks(&self) -> u32 {
        1
    }

    /// Whether the backend splits the graph over ranks as
    /// [`crate::collective::RankPlan`] plans it, even over one rank. The
    /// engine then holds its memory to that plan's bytes, summed over the
    /// ranks, instead of the one-device layout's.
    fn partitioned(&self) -> bool {
        self.ranks() > 1
    }

    /// Upload `graph` into buffers of exactly the sizes `layout` gives,
    /// replacing any graph uploaded before. Depth and parent arrays start
    /// with every vertex unreached. The graph comes shared so that a backend
    /// whose device is host memory can keep it without a copy.
    ///
    /// # Errors
    ///
    /// [`BackendError`] when an allocation or copy fails; nothing stays
    /// allocated after an error.
    fn upload(&mut self, graph: &Arc<Graph>, layout: &DeviceLayout) -> Result<(), BackendError>;

    /// Build now what the commands `request` describes need and the backend
    /// would otherwise build on first use (compiled pipelines), so that no
    /// search pays for it. The engine calls it after every upload. The
    /// default builds nothing: for backends that build everything when
    /// opened.
    ///
    /// # Errors
    ///
    /// [`BackendError`] when building fails (the device or its compiler).
    fn prepare(&mut self, request: &PrepareRequest) -> Result<(), BackendError> {
        let _ = request;
        Ok(())
    }

    /// Bytes of device (and staging) memory the backend holds right now.
    fn allocated_bytes(&self) -> u64;

    /// Start a search from `sources`: every vertex unreached, then each
    /// source at depth 0 with itself as parent, and queue 0 holding the
    /// sources (the position [`super::SearchPosition::start`] describes).
    ///
    /// # Errors
    ///
    /// [`BackendError`] when nothing is uploaded or the device fails.
    fn begin_search(&mut self, sources: &SearchSources) -> Result<(), BackendError>;

    /// Run one checked command and report what it measured: one record per
    /// level run, at least one.
    ///
    /// # Errors
    ///
    /// [`BackendError`] when nothing is uploaded or the device fails (or
    /// does not finish within [`super::DEVICE_WAIT_LIMIT`]).
    fn run_wave(&mut self, command: &CheckedCommand) -> Result<WaveReport, BackendError>;

    /// Copy the depth of every vertex into `out` (`u32::MAX` = unreached).
    ///
    /// # Errors
    ///
    /// [`BackendError`] when `out` has the wrong length or the copy fails.
    fn read_depths(&mut self, out: &mut [u32]) -> Result<(), BackendError>;

    /// Copy the BFS-tree parent of every vertex into `out` (a source is its
    /// own parent; `u32::MAX` = unreached).
    ///
    /// # Errors
    ///
    /// [`BackendError`] when `out` has the wrong length or the copy fails.
    fn read_parents(&mut self, out: &mut [u32]) -> Result<(), BackendError>;

    /// Start a batch pass (see [`super::BatchSources`]): allocate the batch
    /// state exactly as `layout` lists it (unless the previous pass's has
    /// the same layout), every lane unreached everywhere, lane `j` at depth
    /// 0 on source `j`, and queue 0 with word array 0 holding the distinct
    /// sources (the position [`super::SearchPosition::start_batch`]
    /// describes). Counted by [`Backend::allocated_bytes`] until the next
    /// upload.
    ///
    /// # Errors
    ///
    /// [`BackendError`] when nothing is uploaded, the allocation fails, or
    /// the device fails.
    fn begin_batch(
        &mut self,
        sources: &BatchSources,
        layout: &BatchLayout,
    ) -> Result<(), BackendError>;

    /// Run one checked command of the batch pass begun last, and report
    /// what it measured: one record and one set of lane counts per level.
    ///
    /// # Errors
    ///
    /// [`BackendError`] when no batch pass is begun or the device fails.
    fn run_batch_wave(&mut self, command: &CheckedCommand) -> Result<BatchReport, BackendError>;

    /// Copy the batch pass's depths into `out`: vertex-major, `lanes`
    /// words per vertex (`out[v * lanes + j]` is lane `j`'s depth of `v`;
    /// `u32::MAX` = unreached).
    ///
    /// # Errors
    ///
    /// [`BackendError`] when the pass did not keep depths, `out` has the
    /// wrong length, or the copy fails.
    fn read_batch_depths(&mut self, out: &mut [u32]) -> Result<(), BackendError>;
}
