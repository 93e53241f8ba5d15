//! vyre's wave engine: it sizes launch grids, caches plans, and drives any
//! backend through BFS waves. It knows no GPU API.
#![forbid(unsafe_code)]

pub mod engine;
pub mod megakernel;
pub mod wave_planner;

pub use engine::{
    ChainMode, Engine, EngineError, LevelTrace, SearchRequest, SearchResult, TopologyChoice,
};
