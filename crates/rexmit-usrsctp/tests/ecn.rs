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
use rexmit_wire::Chunk;

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

/// What S sent and received in a 5 s bulk transfer: (DATA packets, of them ECT(0), ECNE chunks
/// received, CWR chunks sent, the sender's retransmissions).
fn transfer(ecn: bool, addressing: Addressing) -> (usize, usize, usize, usize, f64) {
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
    let s_addr = sim.net().addrs(s)[0];
    let pcap = dir.join("s.pcap");
    sim.pcap_node(s, &pcap).unwrap();
    run_until(&mut sim, 5);
    let m = metrics(&sim);
    drop(sim);
    let p = sctp_packets(&pcap);
    std::fs::remove_dir_all(&dir).ok();
    let has = |c: &Captured, t: u8| c.sctp.chunks.iter().any(|k| k.chunk_type() == t);
    let data: Vec<&Captured> = p
        .iter()
        .filter(|c| c.src == s_addr && c.sctp.chunks.iter().any(|k| matches!(k, Chunk::Data(_))))
        .collect();
    let ect0 = data.iter().filter(|c| c.raw[1] & 0b11 == 0b10).count();
    let ecne = p
        .iter()
        .filter(|c| c.src != s_addr && has(c, chunk_type::ECNE))
        .count();
    let cwr = p
        .iter()
        .filter(|c| c.src == s_addr && has(c, chunk_type::CWR))
        .count();
    (data.len(), ect0, ecne, cwr, m["app"]["retransmissions"])
}

#[test]
fn ecn_marks_are_echoed_and_answered_instead_of_drops() {
    if !usrsctp_or_skip() {
        return;
    }
    for addressing in [Addressing::Conn, Addressing::Ip] {
        let (data, ect0, ecne, cwr, rtx) = transfer(true, addressing);
        assert!(data > 1000, "{addressing:?}: a 5 s transfer at 5 Mb/s");
        // RFC 3168 §6.1.1 / RFC 9260 Appendix A: DATA packets go ECT(0) once both offered ECN.
        assert_eq!(ect0, data, "{addressing:?}: every DATA packet is ECT(0)");
        // CE marked at the queue arrives at D's stack, which echoes it; S answers with CWR.
        assert!(ecne > 0, "{addressing:?}: ECNE chunks from the receiver");
        assert!(cwr > 0, "{addressing:?}: CWR chunks from the sender");
        // The queue marks what it would drop: nothing is lost, nothing is sent twice.
        assert_eq!(rtx, 0.0, "{addressing:?}: no retransmission with ECN");

        let (data, ect0, ecne, cwr, rtx) = transfer(false, addressing);
        assert!(data > 1000);
        assert_eq!(
            (ect0, ecne, cwr),
            (0, 0, 0),
            "{addressing:?}: no ECN when off"
        );
        // Without ECN the step marker drops instead, and the stack retransmits.
        assert!(
            rtx > 0.0,
            "{addressing:?}: drops repaired by retransmission"
        );
    }
}
