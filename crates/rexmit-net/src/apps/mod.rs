//! Applications that run directly on the network (no transport protocol core).

pub mod udp;
