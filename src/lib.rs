//! vyre: breadth-first search and other graph waves on GPUs with persistent
//! megakernels.
//!
//! ```no_run
//! use std::sync::Arc;
//! use vyre::{BackendChoice, OpenRequest};
//!
//! let graph = Arc::new(vyre::graph::generate::grid_2d(1000, 1000)?);
//! let mut device = vyre::open(&OpenRequest::new(BackendChoice::Auto))?;
//! device.load(graph)?;
//! let result = device.bfs(0)?;
//! assert_eq!(result.depths[999_999], 1998);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Every wave (BFS level) is planned by a backend-neutral policy
//! ([`driver::megakernel_execution`]) from what the previous wave measured,
//! sized by the runtime ([`runtime`]) and executed by a backend: CUDA, wgpu
//! or the CPU, each a cargo feature that is on by default.
#![forbid(unsafe_code)]

mod backend_kind;
pub mod conformance;
mod device;
mod error;
pub mod measure;
mod names;
mod open;

pub use backend_kind::BackendKind;
pub use device::Device;
pub use error::VyreError;
pub use names::{
    parse_topology, parse_vertex_order, topology_name, topology_sequence, vertex_order_name,
};
pub use open::{BackendChoice, OpenRequest, available_backends, open};

pub use vyre_driver as driver;
pub use vyre_driver::backend::DeviceCapabilities;
pub use vyre_driver::megakernel_execution::MegakernelExecutionTopology as Topology;
pub use vyre_graph as graph;
pub use vyre_runtime as runtime;
pub use vyre_runtime::{
    BatchRequest, BatchResult, ChainMode, EngineError, LaneResult, LevelTrace, LoadReport,
    LoadRequest, PassTrace, SearchRequest, SearchResult, TopologyChoice, VertexOrder,
};
