//! [`Device`]: an opened backend with (at most) one graph resident.

use std::sync::Arc;

use vyre_driver::backend::DeviceCapabilities;
use vyre_graph::Graph;
use vyre_runtime::{
    BatchRequest, BatchResult, Engine, LoadReport, LoadRequest, SearchRequest, SearchResult,
    TopologyChoice,
};

use crate::{BackendKind, Topology, VyreError};

/// A device ready to run searches. Load a graph once, then search it as often
/// as needed; the graph stays on the device.
pub struct Device {
    kind: BackendKind,
    engine: Engine,
    selection_reason: String,
}

impl Device {
    pub(crate) fn new(kind: BackendKind, engine: Engine, selection_reason: String) -> Self {
        Self {
            kind,
            engine,
            selection_reason,
        }
    }

    /// Which backend drives the device.
    #[must_use]
    pub fn backend(&self) -> BackendKind {
        self.kind
    }

    /// Why [`open`](crate::open) chose this backend, in one line: each
    /// backend tried before it and what stopped it, then the device, e.g.
    /// `cuda: no CUDA driver (libcuda.so) was found on this machine; wgpu:
    /// NVIDIA H200 (Vulkan): using wgpu`.
    #[must_use]
    pub fn selection_reason(&self) -> &str {
        &self.selection_reason
    }

    /// What the device can do.
    #[must_use]
    pub fn capabilities(&self) -> &DeviceCapabilities {
        self.engine.capabilities()
    }

    /// Upload `graph`, replacing the previous one.
    ///
    /// # Errors
    ///
    /// [`VyreError::Engine`] when the graph does not fit the device (checked
    /// before anything is allocated) or the upload fails.
    pub fn load(&mut self, graph: impl Into<Arc<Graph>>) -> Result<(), VyreError> {
        self.engine
            .load(graph.into())
            .map_err(|error| VyreError::on_backend(self.kind, error))
    }

    /// Upload `request.graph` in the order it asks for (by degree, as given,
    /// or the engine's choice), replacing the previous one. Sources and
    /// results stay in the graph's own numbering either way.
    ///
    /// # Errors
    ///
    /// [`VyreError::Engine`] when a relabelled copy does not fit the host,
    /// the graph does not fit the device, or the upload fails.
    pub fn load_with(&mut self, request: LoadRequest) -> Result<LoadReport, VyreError> {
        self.engine
            .load_with(request)
            .map_err(|error| VyreError::on_backend(self.kind, error))
    }

    /// BFS from one source, every wave planned by the policy.
    ///
    /// # Errors
    ///
    /// [`VyreError::Engine`] for a missing graph, a source out of range or a
    /// device failure.
    pub fn bfs(&mut self, source: u32) -> Result<SearchResult, VyreError> {
        self.search(&SearchRequest::new(&[source]))
    }

    /// BFS from several sources at once (each at depth 0).
    ///
    /// # Errors
    ///
    /// As [`Device::bfs`], and for an empty source list.
    pub fn bfs_multi(&mut self, sources: &[u32]) -> Result<SearchResult, VyreError> {
        self.search(&SearchRequest::new(sources))
    }

    /// Independent searches, one per entry of `request.sources`, run 64 at a
    /// time in one pass over the graph each (one bit per search in a 64-bit
    /// word per vertex): per-search reached counts, depth sums (closeness)
    /// and eccentricities, and every depth when asked. Unlike
    /// [`Device::bfs_multi`], which is one search starting from several
    /// vertices at once, each source here is a search of its own.
    ///
    /// # Errors
    ///
    /// As [`Device::bfs_forced`], and when the batch state does not fit the
    /// device's memory budget beside the graph.
    pub fn bfs_batch(&mut self, request: &BatchRequest<'_>) -> Result<BatchResult, VyreError> {
        self.engine
            .bfs_batch(request)
            .map_err(|error| VyreError::on_backend(self.kind, error))
    }

    /// BFS from `sources` with every wave forced to `topology`.
    ///
    /// # Errors
    ///
    /// As [`Device::bfs_multi`], and when the device cannot run `topology`
    /// (`FusedWave` without a device-wide barrier).
    pub fn bfs_forced(
        &mut self,
        sources: &[u32],
        topology: Topology,
    ) -> Result<SearchResult, VyreError> {
        let mut request = SearchRequest::new(sources);
        request.topology = TopologyChoice::Forced(topology);
        self.search(&request)
    }

    /// A search with every choice explicit (topology, chaining).
    ///
    /// # Errors
    ///
    /// As [`Device::bfs_forced`].
    pub fn search(&mut self, request: &SearchRequest<'_>) -> Result<SearchResult, VyreError> {
        Ok(self.engine.bfs(request)?)
    }

    /// The engine underneath, for memory plans, layouts and budgets.
    #[must_use]
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The engine underneath, mutably (e.g. to set a memory budget).
    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }
}
