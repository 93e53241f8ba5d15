//! vyre cpu backend.
