//! The contract between the wave engine and a backend.
//!
//! A backend owns one device. The engine asks it for its
//! [`DeviceCapabilities`], computes a [`DeviceLayout`] from them, has the
//! backend upload a graph into exactly that layout, and then runs searches
//! through [`WaveCommand`]s that [`WaveCommand::check`] accepted. Every
//! decision (topology, every grid, chain length, fused band, where the
//! frontier lives) is in the command; the backend executes it and reports
//! what it measured in a [`WaveReport`].

mod band;
mod batch;
mod capabilities;
mod check;
mod contract;
mod error;
mod layout;
mod poll;
mod position;
mod prepare;
mod wave;

pub use band::ChainBand;
pub use batch::{BATCH_LANES, BatchLayout, BatchReport, BatchSources, LaneCounts, lane_mask};
pub use capabilities::{DEVICE_WAIT_LIMIT, DeviceCapabilities, FusedCluster};
pub use check::CheckedCommand;
pub use contract::Backend;
pub use error::{BackendError, BackendErrorKind};
pub use layout::{
    CONTROL_BYTES, DeviceLayout, EdgeSegments, LEVEL_RECORD_BYTES, LayoutBytes, WORK_PIECE_EDGES,
    WORK_RESERVE_WORDS,
};
pub use poll::{POLL_SLEEP, POLL_SPIN, POLL_YIELD, poll_until};
pub use position::{SearchPosition, SearchSources, SourceError};
pub use prepare::PrepareRequest;
pub use wave::{
    EDGES_PER_LANE, FrontierBand, FrontierForm, LaunchShape, LevelRecord, LevelSizing,
    MAX_GRID_SLOTS, WARP_LANES, WaveCommand, WaveReport, edge_balanced_slots, frontier_form_of,
    is_edge_balanced, slots_for,
};
