//! Applications that run directly on the network (no transport protocol core), and the
//! distributions traffic sources draw from.

pub mod dist;
pub mod udp;
