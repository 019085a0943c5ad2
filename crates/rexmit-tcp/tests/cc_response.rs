//! The congestion controller's decrease at a fast retransmit, seen through a connection: the
//! seed 003 window (14 packets, FlightSize 14) and DupThresh duplicate ACKs, per controller.

mod common;
use common::*;
use rexmit_tcp::cc::registry::ParamMap;
use rexmit_tcp::{CcAlgorithm, RecoveryAlgorithm, TcpConfig};

fn ssthresh_after_fast_retransmit(cc: CcAlgorithm) -> (u64, String) {
    let c = TcpConfig {
        initial_cwnd_segments: 14,
        initial_ssthresh: 14 * MSS,
        cc_params: if cc == CcAlgorithm::Aimd {
            ParamMap::of(&[("b", 0.125)])
        } else {
            ParamMap::default()
        },
        cc: cc.into(),
        ..cfg(RecoveryAlgorithm::NewReno)
    };
    let mut s = Injector::established(c, false, 40 * MSS as usize);
    assert_eq!(s.sent().len(), 14);
    for t in 200..203 {
        s.ack(t, 1, &[]);
    }
    assert_eq!(s.c.stats().fast_retransmits, 1);
    (s.c.ssthresh(), s.c.cc_name().to_string())
}

#[test]
fn each_controller_applies_its_own_decrease() {
    let cases = [
        // RFC 5681 §3.1: FlightSize / 2.
        (CcAlgorithm::Reno, 7_000, "reno"),
        // Seed 003 generalised AIMD with b = 0.125: (1 − b) · FlightSize.
        (CcAlgorithm::Aimd, 12_250, "aimd"),
        // RFC 9438 §4.6: β_cubic = 0.7.
        (CcAlgorithm::Cubic, 9_800, "cubic"),
        // RFC 3649: below Low_Window (38) HighSpeed is Reno.
        (CcAlgorithm::HighSpeed, 7_000, "highspeed"),
        // Scalable below its legacy window (16) is Reno too.
        (CcAlgorithm::Scalable, 7_000, "scalable"),
        // Westwood+ without a bandwidth sample yet (less than one RTT of ACKs) halves.
        (CcAlgorithm::Westwood, 7_000, "westwood+"),
    ];
    for (cc, ssthresh, name) in cases {
        assert_eq!(
            ssthresh_after_fast_retransmit(cc),
            (ssthresh, name.to_string())
        );
    }
}

#[test]
fn westwood_sets_ssthresh_from_bandwidth_estimate_times_min_rtt() {
    // A 8 Mb/s, 2 × 50 ms path, a 150 kB receive window (so the queue stays short), 4000
    // packets, one loss after some 25 RTTs at the link rate (≈ 0.94 MB/s of payload): ssthresh
    // = BWE · RTTmin approaches the bandwidth-delay product ≈ 94 kB (the 0.9/0.1 filter has
    // then converged to within ~10 %), not half of the 150-packet window.
    let c = TcpConfig {
        cc: CcAlgorithm::Westwood.into(),
        initial_cwnd_segments: 10,
        recv_buffer: 150_000,
        send_buffer: 4_000_000,
        window_scaling: true,
        ..cfg(RecoveryAlgorithm::NewReno)
    };
    let mut n = Net::new(c.clone(), c);
    n.a.send(rexmit_time::Time::ZERO, 4000 * MSS as usize);
    n.a.close(rexmit_time::Time::ZERO);
    n.drop = drop_first(&[3500], n.iss_a);
    n.run_until(ms(60_000));
    assert!(n.finished());
    let st = n.a.stats();
    assert_eq!(st.fast_retransmits, 1);
    assert!(
        (75_000..=100_000).contains(&st.ssthresh),
        "ssthresh {}",
        st.ssthresh
    );
}
