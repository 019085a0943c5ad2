//! RACK-TLP (RFC 8985) cases, driven by hand-made ACKs. SYN RTT 100 ms (min_RTT = SRTT =
//! 100 ms), ten packets sent together at t = 100 ms, SACK recovery with RACK loss detection.

mod common;
use common::*;
use rexmit_tcp::{RecoveryAlgorithm, TcpConfig};

fn rack_sender(packets: u64) -> Injector {
    let c = TcpConfig {
        initial_cwnd_segments: 10,
        rack: true,
        tlp: true,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, (packets * MSS) as usize);
    assert_eq!(s.sent(), (1..=packets.min(10)).collect::<Vec<_>>());
    s
}

#[test]
fn rack_reordering_window_timer_marks_loss_after_quarter_min_rtt() {
    let mut s = rack_sender(10);
    // Packet 2 SACKed at 200 ms. Packet 1 was sent before it (same time, lower sequence), but
    // only RACK.rtt (100 ms) has passed: it is lost only after reo_wnd = min_RTT/4 = 25 ms more
    // (RFC 8985 §6.2 step 4–5).
    assert_eq!(s.ack(200, 1, &[(2, 2)]), vec![]);
    assert_eq!(s.c.poll_timeout(), Some(ms(225)));
    assert_eq!(s.timeout(224), vec![]);
    // The reordering timer fires: 1 is lost, recovery starts, 1 is retransmitted (cause RACK).
    assert_eq!(s.timeout(225), vec![1]);
    assert!(s.c.in_recovery());
    assert_eq!(s.c.stats().retransmits_rack, 1);
}

#[test]
fn rack_reordering_within_the_window_is_not_a_loss() {
    let mut s = rack_sender(10);
    assert_eq!(s.ack(200, 1, &[(2, 2)]), vec![]);
    // Packet 1 arrives 10 ms late: no retransmission, and reordering is now known.
    assert_eq!(s.ack(210, 3, &[]), vec![]);
    assert_eq!(s.timeout(225), vec![]);
    assert!(!s.c.in_recovery());
    assert_eq!(s.c.stats().retransmits(), 0);
}

#[test]
fn rack_reo_wnd_is_zero_once_dupthresh_segments_are_sacked() {
    // RFC 8985 §6.2 step 4: no reordering seen and DupThresh segments SACKed → reo_wnd = 0,
    // so packet 1 (sent with packet 4, RACK.rtt ago) is lost at once.
    let mut s = rack_sender(10);
    assert_eq!(s.ack(200, 1, &[(2, 4)]), vec![1]);
    assert!(s.c.in_recovery());
}

#[test]
fn rack_detects_a_lost_retransmission() {
    let mut s = rack_sender(20);
    assert_eq!(s.ack(200, 1, &[(2, 4)]), vec![1]);
    // cwnd 5; in flight: 1 (resent) and 5..=10. As SACKs arrive new data goes out.
    assert_eq!(s.ack(201, 1, &[(2, 5)]), vec![]);
    assert_eq!(s.ack(202, 1, &[(2, 6)]), vec![]);
    assert_eq!(s.ack(203, 1, &[(2, 7)]), vec![11]);
    assert_eq!(s.ack(204, 1, &[(2, 8)]), vec![12]);
    assert_eq!(s.ack(205, 1, &[(2, 9)]), vec![13]);
    assert_eq!(s.ack(206, 1, &[(2, 10)]), vec![14]);
    // Packet 11 (sent at 203) is SACKed at 303: the retransmission of 1, sent at 200, is
    // older than RACK.xmit_ts and 200 + RACK.rtt (100) + reo_wnd (0 in recovery) has passed:
    // lost again, retransmitted again — which RFC 6675 alone could only repair by RTO. With
    // 12..=14 in flight and cwnd 5, new packet 15 follows.
    assert_eq!(s.ack(303, 1, &[(11, 11), (2, 10)]), vec![1, 15]);
    assert_eq!(s.c.stats().retransmits_rack, 2);
    assert_eq!(s.c.stats().timeouts, 0);
}

#[test]
fn tlp_retransmits_last_segment_after_pto_on_tail_loss() {
    let mut s = rack_sender(10);
    // 1..=9 acknowledged, 10 lost. One segment in flight: PTO = 2·SRTT + WCDelAckT = 400 ms.
    assert_eq!(s.ack(200, 10, &[]), vec![]);
    assert_eq!(s.c.poll_timeout(), Some(ms(600)));
    assert_eq!(s.timeout(600), vec![10]);
    let st = s.c.stats();
    assert_eq!((st.tlp_probes, st.retransmits_tlp, st.timeouts), (1, 1, 0));
    // The probe repairs the tail before the RTO (re-armed at 600 + 1 s).
    assert_eq!(s.c.poll_timeout(), Some(ms(1_600)));
    assert_eq!(s.ack(700, 11, &[]), vec![]);
    assert_eq!(s.c.poll_timeout(), None);
    assert_eq!(s.c.stats().timeouts, 0);
    // No D-SACK came: once data beyond the probe is acknowledged, the probe is known to have
    // repaired a loss and the window is reduced (RFC 8985 §7.4).
    let cwnd = s.c.cwnd();
    new_packet_11_acknowledged(&mut s);
    assert_eq!(s.c.stats().tlp_repairs, 1);
    assert!(s.c.cwnd() < cwnd, "{} -> {}", cwnd, s.c.cwnd());
}

/// The application writes one more packet at 800 ms; it is acknowledged at 900 ms.
fn new_packet_11_acknowledged(s: &mut Injector) {
    s.c.send(ms(800), 1_000);
    s.now = ms(800);
    assert_eq!(s.sent(), vec![11]);
    assert_eq!(s.ack(900, 12, &[]), vec![]);
}

#[test]
fn tlp_reported_by_dsack_as_spurious_does_not_reduce_the_window() {
    let mut s = rack_sender(10);
    assert_eq!(s.ack(200, 10, &[]), vec![]);
    assert_eq!(s.timeout(600), vec![10]);
    // Packet 10 was only late: its ACK, then the probe's duplicate reported by D-SACK.
    assert_eq!(s.ack(610, 11, &[]), vec![]);
    assert_eq!(s.ack(700, 11, &[(10, 10)]), vec![]);
    let cwnd = s.c.cwnd();
    new_packet_11_acknowledged(&mut s);
    assert_eq!(s.c.stats().tlp_repairs, 0);
    assert!(s.c.cwnd() >= cwnd);
}

#[test]
fn tlp_probe_sack_lets_rack_recover_the_rest_of_the_tail() {
    let mut s = rack_sender(10);
    // 1..=5 acknowledged; 6..=10 all lost. PTO = 2·SRTT = 200 ms (five segments in flight).
    assert_eq!(s.ack(200, 6, &[]), vec![]);
    assert_eq!(s.c.poll_timeout(), Some(ms(400)));
    assert_eq!(s.timeout(400), vec![10]);
    // The probe's SACK at 500 ms: 6..=9 were sent before it, more than RACK.rtt + reo_wnd ago:
    // lost. cwnd = ssthresh = FlightSize/2 = 2500 B: two retransmissions fit.
    assert_eq!(s.ack(500, 6, &[(10, 10)]), vec![6, 7]);
    assert!(s.c.in_recovery());
    assert_eq!(s.ack(600, 8, &[(10, 10)]), vec![8, 9]);
    assert_eq!(s.ack(700, 11, &[]), vec![]);
    assert!(!s.c.in_recovery());
    let st = s.c.stats();
    assert_eq!((st.tlp_probes, st.retransmits_rack, st.timeouts), (1, 4, 0));
}

/// cwnd 5 with 10 packets to send, RACK-TLP; the whole first flight (1..=5) is lost.
fn first_flight_of_five_lost() -> Injector {
    let c = TcpConfig {
        initial_cwnd_segments: 5,
        rack: true,
        tlp: true,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, 10 * MSS as usize);
    assert_eq!(s.sent(), vec![1, 2, 3, 4, 5]);
    s
}

#[test]
fn tlp_sends_new_data_when_available() {
    let mut s = first_flight_of_five_lost();
    // PTO = 2·SRTT after the last transmission: the probe is new data (RFC 8985 §7.3), sent
    // beyond cwnd because the receive window allows it.
    assert_eq!(s.c.poll_timeout(), Some(ms(300)));
    assert_eq!(s.timeout(300), vec![6]);
    assert_eq!(s.c.stats().retransmits(), 0);
    // Its SACK makes RACK mark 1..=5 lost: recovery with cwnd = FlightSize/2 = 3 segments.
    assert_eq!(s.ack(400, 1, &[(6, 6)]), vec![1, 2, 3]);
    assert_eq!(s.c.stats().tlp_probes, 1);
}

/// As `rack_sender`, with RACK loss detection and TLP switched separately.
fn sender_with(rack: bool, tlp: bool, packets: u64) -> Injector {
    let c = TcpConfig {
        initial_cwnd_segments: 10,
        rack,
        tlp,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, (packets * MSS) as usize);
    assert_eq!(s.sent(), (1..=packets.min(10)).collect::<Vec<_>>());
    s
}

/// 1..=9 acknowledged at 200 ms, 10 lost; the connection's next timer is due at `timer_ms`.
fn last_of_ten_lost(rack: bool, tlp: bool, timer_ms: u64) -> Injector {
    let mut s = sender_with(rack, tlp, 10);
    assert_eq!(s.ack(200, 10, &[]), vec![]);
    assert_eq!(s.c.poll_timeout(), Some(ms(timer_ms)));
    s
}

#[test]
fn rack_without_tlp_leaves_a_tail_loss_to_the_rto() {
    // Linux tcp_early_retrans = 0: RACK still marks losses, but no probe is scheduled, so the
    // lost last segment waits for the retransmission timer (RFC 6298: 1 s after the ACK that
    // restarted it).
    let mut s = last_of_ten_lost(true, false, 1_200);
    assert_eq!(s.timeout(1_200), vec![10]);
    let st = s.c.stats();
    assert_eq!(
        (st.tlp_probes, st.retransmits_timeout, st.timeouts),
        (0, 1, 1)
    );
}

#[test]
fn tlp_without_rack_repairs_a_single_tail_loss() {
    // TLP alone (RFC 8985 §7) with RFC 6675 loss detection: the probe at PTO = 2·SRTT +
    // WCDelAckT = 400 ms after the last ACK resends the last segment, whose ACK repairs it
    // without an RTO; the repair is a congestion response (§7.4.2).
    let mut s = last_of_ten_lost(false, true, 600);
    assert_eq!(s.timeout(600), vec![10]);
    assert_eq!(s.ack(700, 11, &[]), vec![]);
    let cwnd = s.c.cwnd();
    new_packet_11_acknowledged(&mut s);
    let st = s.c.stats();
    assert_eq!((st.tlp_probes, st.tlp_repairs, st.timeouts), (1, 1, 0));
    assert!(s.c.cwnd() < cwnd);
}

#[test]
fn tlp_without_rack_reads_the_probe_sack_by_rfc_6675() {
    // 1..=5 acknowledged, 6..=10 lost. The probe (10 again, PTO 200 ms with five segments in
    // flight) is SACKed, but one SACKed segment above 6 makes no IsLost (RFC 6675 §4 needs
    // DupThresh of them): no recovery, pipe still counts 6..=9 in flight, and the RTO repairs.
    // (With RACK the probe's SACK marks 6..=9 lost at once: `tlp_probe_sack_lets_rack_...`.)
    let mut s = sender_with(false, true, 10);
    assert_eq!(s.ack(200, 6, &[]), vec![]);
    assert_eq!(s.timeout(400), vec![10]);
    assert_eq!(s.ack(500, 6, &[(10, 10)]), vec![]);
    assert!(!s.c.in_recovery());
    assert_eq!(s.c.pipe(), 4 * MSS);
    assert_eq!(
        s.c.poll_timeout(),
        Some(ms(1_400)),
        "the RTO re-armed by the probe"
    );
    assert_eq!(s.timeout(1_400), vec![6]);
    assert_eq!(s.c.stats().timeouts, 1);
}

#[test]
fn a_probe_of_new_data_rearms_the_rto_not_the_probe_timer() {
    // RFC 8985 §7.3: "After attempting to send a loss probe, regardless of whether a loss
    // probe was sent, the sender MUST re-arm the RTO timer, not the PTO timer". The probe at
    // 300 ms is new data (packet 6); the next timer is the RTO, 1 s later, not another probe
    // 2·SRTT later with one already outstanding.
    let mut s = first_flight_of_five_lost();
    assert_eq!(s.timeout(300), vec![6]);
    assert_eq!(s.c.poll_timeout(), Some(ms(1_300)));
    assert_eq!(s.timeout(1_300), vec![1]);
    assert_eq!((s.c.stats().tlp_probes, s.c.stats().timeouts), (1, 1));
}

#[test]
fn sack_only_duplicate_acks_do_not_push_the_probe_back() {
    // RFC 8985 §7.2 restarts the PTO on new data and on ACKs that cumulatively acknowledge
    // new data, not on an ACK that only SACKs. 1..=5 acknowledged at 200 ms: PTO at 400 ms.
    // (TLP without RACK, so that no reordering timer comes first.)
    let mut s = sender_with(false, true, 10);
    assert_eq!(s.ack(200, 6, &[]), vec![]);
    assert_eq!(s.c.poll_timeout(), Some(ms(400)));
    assert_eq!(s.ack(300, 6, &[(9, 9)]), vec![]);
    assert_eq!(s.c.poll_timeout(), Some(ms(400)));
    assert_eq!(s.timeout(400), vec![10]);
}

#[test]
fn no_probe_is_armed_while_sacked_data_is_outstanding() {
    // RFC 8985 §7.2: no PTO start "unless ... segments have been SACKed". 1 and 2
    // acknowledged, 4 SACKed: the ACK moved snd_una, but with SACKed data outstanding only
    // the RTO runs (restarted by this ACK: 200 ms + 1 s).
    let mut s = sender_with(false, true, 10);
    assert_eq!(s.ack(200, 3, &[(4, 4)]), vec![]);
    assert_eq!(s.c.poll_timeout(), Some(ms(1_200)));
    assert_eq!(s.timeout(1_200), vec![3]);
    assert_eq!(s.c.stats().tlp_probes, 0);
}

#[test]
fn on_rto_rack_marks_lost_only_what_was_sent_before_rack_rtt_plus_reo_wnd() {
    // RFC 8985 §6.3 RACK_mark_losses_on_RTO: the segment at SND.UNA and those with
    // "Segment.xmit_ts <= Now() - RACK.rtt - RACK.reo_wnd" are lost; a segment sent since may
    // still arrive. 1 and 2 acknowledged at 200 ms (RACK.rtt 100 ms, reo_wnd 25 ms); 3..=5
    // (sent at 100 ms) are lost; packet 6, written and sent at 1 150 ms, is not lost at the RTO
    // at 1 200 ms. (RACK without TLP, so that the RTO comes first.)
    let mut s = sender_with(true, false, 5);
    assert_eq!(s.ack(200, 3, &[]), vec![]);
    s.c.send(ms(1_150), 1_000);
    s.now = ms(1_150);
    assert_eq!(s.sent(), vec![6]);
    assert_eq!(s.timeout(1_200), vec![3]);
    // In flight: the resent 3 and packet 6, still presumed in the network.
    assert_eq!(s.c.pipe(), 2 * MSS);
    // Packet 6 stays in flight until RACK judges it: the ACK of the resent 3 (sent at 1 200
    // ms, after 6) finds 6 unacknowledged RACK.rtt after it was sent, so it is lost now, and
    // with cwnd 2 and nothing in flight 4 and 5 go.
    assert_eq!(s.ack(1_300, 4, &[]), vec![4, 5]);
    assert_eq!(s.c.pipe(), 2 * MSS);
}
