//! vyre's wave engine: it decides everything about a search that is not the
//! policy's topology table (chain length, band, every grid, where the search
//! stands) and drives any backend through BFS waves. It knows no GPU API and
//! names no backend.
//!
//! - [`plan`]: the decisions, one module each (topology, chain, grid,
//!   vertex order);
//! - [`engine`]: the search loop that makes them wave by wave;
//! - [`megakernel::planner`]: the seed's path to the grid planner.
#![forbid(unsafe_code)]

pub mod engine;
pub mod megakernel;
pub mod plan;

pub use engine::{
    BatchRequest, BatchResult, ChainMode, Engine, EngineError, LaneResult, LevelTrace, LoadReport,
    LoadRequest, PassTrace, SearchRequest, SearchResult, TopologyChoice,
};
pub use plan::order::{Numbering, OrderDecision, VertexOrder};
