//! Reno congestion control (RFC 5681 §3.1): AIMD with a = 1 segment per RTT and b = 1/2.

use super::aimd::Law;
use super::{Aimd, Window};

pub fn reno(w: Window) -> Aimd {
    Aimd::new(w, Law::Constant { a: 1.0, b: 0.5 })
}
