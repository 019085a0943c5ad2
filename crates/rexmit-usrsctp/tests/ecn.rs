//! `sctp.ecn` reaches FreeBSD's SCTP (RFC 9260 Appendix A with RFC 3168): the stack marks its
//! DATA packets ECT(0) in the TOS byte it hands out, a CE mark made by the simulated queue
//! reaches it in `usrsctp_conninput`'s (or IPv4 input's) ECN bits, the receiver echoes it in
//! ECNE chunks and the sender answers with CWR — through both ways the binding hosts the stack
//! (AF_CONN and IPv4 addresses).

mod common;
use common::*;
use rexmit_net::{Aqm, AqmConfig, QueueDiscipline, QueueLimit, Simulation};
use rexmit_sctp::SctpConfig;
use rexmit_time::{Duration, Rate};
use rexmit_usrsctp::wire::Addressing;
use rexmit_usrsctp::StackRun;
use rexmit_wire::sctp::chunk_type;
use std::collections::BTreeMap;

/// S — R — D, the R→D link 5 Mb/s with DCTCP's step marking at K = 5 packets (RFC 8257 §3.1):
/// an ECN-capable packet joining a queue of more than 5 is marked CE, a Not-ECT one dropped.
fn marking_chain() -> Simulation {
    let step_mark = AqmConfig {
        aqm: Aqm::StepMark(QueueLimit::Packets(5)),
        ecn: true,
    };
    chain_with(1, Rate::from_mbps(5), Duration::from_millis(20), |fwd| {
        fwd.queue.discipline = QueueDiscipline::Aqm(step_mark)
    })
}

/// What a 5 s bulk transfer put on the wire, counted in pcaps at S and D, beside the flow's
/// metrics (the sender's and the receiver's).
struct Seen {
    /// DATA packets S sent, and of them ECT(0).
    data: usize,
    ect0: usize,
    /// ECNE chunks S received, CWR chunks S sent, DATA packets D received marked CE.
    ecne: usize,
    cwr: usize,
    ce_at_d: usize,
    sender: BTreeMap<String, f64>,
    receiver: BTreeMap<String, f64>,
}

fn transfer(ecn: bool, addressing: Addressing) -> Seen {
    let cfg = SctpConfig {
        ecn,
        ..SctpConfig::default()
    };
    let mut sim = marking_chain();
    let run = StackRun::open(1).unwrap();
    let app = bulk(cfg.max_data_payload(), None);
    add_association(
        &mut sim,
        &run,
        &cfg,
        &["ecn"],
        app,
        49152,
        "app",
        Some(addressing),
    );
    drop(run);
    let dir = scratch_dir(&format!("ecn-{ecn}-{addressing:?}"));
    let s = sim.net().node_by_name("S").unwrap();
    let d = sim.net().node_by_name("D").unwrap();
    let s_addr = sim.net().addrs(s)[0];
    let (pcap_s, pcap_d) = (dir.join("s.pcap"), dir.join("d.pcap"));
    sim.pcap_node(s, &pcap_s).unwrap();
    sim.pcap_node(d, &pcap_d).unwrap();
    run_until(&mut sim, 5);
    let mut m = metrics(&sim);
    drop(sim);
    let (at_s, at_d) = (sctp_packets(&pcap_s), sctp_packets(&pcap_d));
    std::fs::remove_dir_all(&dir).ok();
    let chunks = |c: &Captured, t: u8| c.sctp.chunks.iter().filter(|k| k.chunk_type() == t).count();
    let is_data = |c: &Captured| chunks(c, chunk_type::DATA) > 0;
    let from_s = |c: &&Captured| c.src == s_addr;
    let data: Vec<&Captured> = at_s.iter().filter(from_s).filter(|c| is_data(c)).collect();
    Seen {
        data: data.len(),
        ect0: data.iter().filter(|c| c.raw[1] & 0b11 == 0b10).count(),
        ecne: at_s
            .iter()
            .filter(|c| c.src != s_addr)
            .map(|c| chunks(c, chunk_type::ECNE))
            .sum(),
        cwr: at_s
            .iter()
            .filter(from_s)
            .map(|c| chunks(c, chunk_type::CWR))
            .sum(),
        ce_at_d: at_d
            .iter()
            .filter(from_s)
            .filter(|c| is_data(c) && c.raw[1] & 0b11 == 0b11)
            .count(),
        sender: m.remove("app").unwrap(),
        receiver: m.remove("app/sink").unwrap(),
    }
}

#[test]
fn ecn_marks_are_echoed_and_answered_instead_of_drops() {
    if !usrsctp_or_skip() {
        return;
    }
    for addressing in [Addressing::Conn, Addressing::Ip] {
        let on = transfer(true, addressing);
        let rtx = on.sender["retransmissions"];
        assert!(on.data > 1000, "{addressing:?}: a 5 s transfer at 5 Mb/s");
        // RFC 3168 §6.1.1 / RFC 9260 Appendix A: DATA packets go ECT(0) once both offered ECN.
        assert_eq!(
            on.ect0, on.data,
            "{addressing:?}: every DATA packet is ECT(0)"
        );
        // CE marked at the queue arrives at D's stack, which echoes it; S answers with CWR.
        assert!(on.ce_at_d > 0, "{addressing:?}: CE-marked DATA at D");
        assert!(on.ecne > 0, "{addressing:?}: ECNE chunks from the receiver");
        assert!(on.cwr > 0, "{addressing:?}: CWR chunks from the sender");
        // The queue marks what it would drop: nothing is lost, nothing is sent twice.
        assert_eq!(rtx, 0.0, "{addressing:?}: no retransmission with ECN");
        // The flow's ECN counters are those of the wire; the stack cut its window for them.
        assert_eq!(
            (
                on.receiver["ecn_ce_received"],
                on.sender["ecn_ece_received"],
                on.sender["ecn_cwr_sent"]
            ),
            (on.ce_at_d as f64, on.ecne as f64, on.cwr as f64),
            "{addressing:?}: counters match the pcaps"
        );
        let cuts = on.sender["ecn_reductions"];
        // FreeBSD cuts once per window of data (sctp_handle_ecn_echo's cwr_window_tsn).
        assert!(
            cuts > 0.0 && cuts < on.ecne as f64,
            "{addressing:?}: {cuts} reductions for {} echoes",
            on.ecne
        );

        let off = transfer(false, addressing);
        assert!(off.data > 1000);
        assert_eq!(
            (off.ect0, off.ecne, off.cwr, off.ce_at_d),
            (0, 0, 0, 0),
            "{addressing:?}: no ECN when off"
        );
        for k in ["ecn_ece_received", "ecn_reductions", "ecn_cwr_sent"] {
            assert!(
                !off.sender.contains_key(k),
                "{addressing:?}: no {k} when off"
            );
        }
        assert!(!off.receiver.contains_key("ecn_ce_received"));
        // Without ECN the step marker drops instead, and the stack retransmits.
        assert!(
            off.sender["retransmissions"] > 0.0,
            "{addressing:?}: drops repaired by retransmission"
        );
    }
}
