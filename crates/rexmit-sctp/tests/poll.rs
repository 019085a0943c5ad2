//! The fast "nothing to send" answer of `poll_transmit` against the full path in lossy
//! transfers: `Net` polls through `poll_transmit_checked`, so wherever the fast test answers,
//! a copy of the association takes the full path and must send nothing and end equal.

mod common;
use common::*;
use rexmit_sctp::{AssociationState, MaxBurstRule, SctpConfig};
use rexmit_time::{Duration, Time};
use rexmit_wire::Payload;

const MSG: u32 = 1_000;

/// `msgs` messages from A to B over two paths of 20 ms that lose 2% of packets (both
/// directions, seeded), B's application reading every 50 ms when `auto_consume` is off, then a
/// graceful shutdown. Returns the polls and those answered fast, both endpoints together.
fn lossy_transfer(cfg: SctpConfig, msgs: u64) -> (u64, u64) {
    let (a, b) = connect_pair(cfg.clone(), cfg, 1, 500, true);
    let mut net = Net::new(a, b);
    let mut rng = Rng::new(7);
    let mut fate =
        |_: &rexmit_sctp::Transmit, _: Time| (!rng.chance(20)).then_some(Duration::from_millis(20));
    let (mut sent, mut next_read) = (0, Time::ZERO);
    let mut app = |now: Time, eps: &mut [rexmit_sctp::Association; 2]| {
        let [a, b] = eps;
        while sent < msgs && a.send(now, 0, Payload::zeros(MSG), false).is_ok() {
            sent += 1;
        }
        if sent == msgs && a.state() == AssociationState::Established && a.send_buffer_bytes() == 0
        {
            a.shutdown(now);
        }
        if now >= next_read {
            b.consume(b.unread_bytes());
            next_read = now + Duration::from_millis(50);
        }
    };
    net.run(Time::from_secs(600), &mut fate, &mut app);
    let [a, b] = &net.eps;
    assert_eq!(b.stats().messages_delivered, msgs);
    assert_eq!(
        (a.state(), b.state()),
        (AssociationState::Closed, AssociationState::Closed)
    );
    (net.polls.iter().sum(), net.fast_polls.iter().sum())
}

#[test]
fn empty_polls_answered_fast_agree_with_the_full_path_in_lossy_transfers() {
    let base = SctpConfig::default();
    let mut cmt = base.clone();
    cmt.cmt.enabled = true;
    let mut rack = base.clone();
    rack.rack.enabled = true;
    rack.rack.tlp = true;
    let mut clamp = base.clone();
    clamp.nr_sack = true;
    clamp.max_burst_rule = MaxBurstRule::ClampCwnd;
    let mut thin = base.clone();
    thin.thin.early_retransmit_rfc5827 = true;
    thin.thin.linear_timeouts = true;
    let mut slow_reader = base.clone();
    slow_reader.auto_consume = false;
    slow_reader.recv_buffer = 8 * MSG;
    for (name, cfg) in [
        ("plain", base),
        ("cmt", cmt),
        ("rack-tlp", rack),
        ("nr-sack, clamp", clamp),
        ("thin", thin),
        ("slow reader", slow_reader),
    ] {
        let (polls, fast) = lossy_transfer(cfg, 3_000);
        eprintln!("{name}: {fast} of {polls} polls fast");
        // About one poll per packet received finds nothing to send.
        assert!(fast > polls / 4, "{name}: {fast} of {polls} polls fast");
    }
}
