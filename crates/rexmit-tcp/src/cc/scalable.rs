//! Scalable TCP (T. Kelly, 2003) response law: a(w) = 0.01·w segments per RTT (0.01 per ACK),
//! b = 0.125; Reno's law below the legacy window of 16 segments.

const A_PER_ACK: f64 = 0.01;
const B: f64 = 0.125;
const LEGACY_WINDOW: f64 = 16.0;

pub fn a_of_w(w: f64) -> f64 {
    if w < LEGACY_WINDOW {
        1.0
    } else {
        A_PER_ACK * w
    }
}

pub fn b_of_w(w: f64) -> f64 {
    if w < LEGACY_WINDOW {
        0.5
    } else {
        B
    }
}
