//! vyre cuda backend.
