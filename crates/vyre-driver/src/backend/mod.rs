//! The contract between the wave engine and a backend.
//!
//! A backend owns one device. The engine asks it for its
//! [`DeviceCapabilities`], computes a [`DeviceLayout`] from them, has the
//! backend upload a graph into exactly that layout, and then runs searches
//! through [`WaveCommand`]s. Every decision (topology, grid, chain length,
//! fused band) is in the command; the backend executes it and reports what it
//! measured in a [`WaveReport`].

mod capabilities;
mod contract;
mod error;
mod layout;
mod wave;

pub use capabilities::{BackendKind, DeviceCapabilities};
pub use contract::Backend;
pub use error::{BackendError, BackendErrorKind};
pub use layout::{
    CONTROL_BYTES, DeviceLayout, EdgeSegments, LEVEL_RECORD_BYTES, LayoutBytes, WORK_PIECE_EDGES,
};
pub use wave::{
    EDGES_PER_LANE, FrontierForm, LaunchShape, LevelRecord, WARP_LANES, WaveCommand, WaveReport,
    edge_balanced_slots, frontier_form_of, slots_for,
};
