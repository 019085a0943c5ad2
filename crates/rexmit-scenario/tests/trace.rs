//! `[[metrics.trace]]`: a traced flow records each retransmission with its cause on a scripted
//! drop, its ACKs and blocks and its state; an untraced run's results do not change when a
//! trace is added; bad trace entries are refused naming the field.

use rexmit_scenario::results::TableData;
use rexmit_scenario::run::run;
use rexmit_scenario::{RunResults, Scenario};

/// A 10 Mb/s chain A-R-B whose first link drops what `scripted` says (forward), carrying
/// `app`, then `extra` TOML.
fn chain(scripted: &str, app: &str, extra: &str) -> String {
    format!(
        "stop_time = \"10s\"\n[topology]\nkind = \"chain\"\nnodes = [\"A\", \"R\", \"B\"]\n\
         links = [ {{ rate = \"10Mbps\", delay = \"5ms\", errors = [{{ kind = \"scripted\", app = \"f\", {scripted}, direction = \"forward\" }}] }}, \
         {{ rate = \"10Mbps\", delay = \"5ms\" }} ]\n\
         [[apps]]\nname = \"f\"\nfrom = \"A\"\nto = \"B\"\n{app}\n{extra}\n"
    )
}

const TCP: &str = "kind = \"tcp_bulk\"\nbytes = \"300KB\"\ntcp = { recovery = \"sack\" }";
const SCTP: &str =
    "kind = \"sctp_bulk\"\nmessages = 200\nmessage_size = 1000\nsctp = { nr_sack = true }";
const TRACE: &str = "[[metrics.trace]]\nflow = \"f\"";

fn run_text(text: &str) -> RunResults {
    run(&Scenario::from_toml(text).unwrap(), None, |_| true).unwrap()
}

fn table<'a>(r: &'a RunResults, name: &str) -> &'a TableData {
    r.tables
        .iter()
        .find(|t| t.table == name && t.flow == "f")
        .unwrap_or_else(|| panic!("no table {name}"))
}

fn column<'a>(t: &'a TableData, name: &str) -> &'a [u64] {
    &t.columns.iter().find(|(c, _)| c == name).unwrap().1
}

/// (start, cause) of every transmission of the trace.
fn sent(r: &RunResults) -> Vec<(u64, u64)> {
    let t = table(r, "trace_sent");
    column(t, "start")
        .iter()
        .copied()
        .zip(column(t, "cause").iter().copied())
        .collect()
}

#[test]
fn sack_fast_retransmit_of_a_scripted_drop_is_traced_with_its_cause() {
    // The 11th segment (relative seq 1 + 10 * 1460) is dropped once, mid-window: three SACKs
    // later RFC 6675 retransmits it (cause 1, fast retransmit), and nothing else is resent.
    let seq = 1 + 10 * 1460;
    let r = run_text(&chain(&format!("tcp_seqs = [{seq}]"), TCP, TRACE));
    let s = sent(&r);
    let rtx: Vec<_> = s.iter().filter(|(_, c)| *c != 0).collect();
    assert_eq!(rtx, [&(seq, 1)]);
    assert_eq!(s.iter().filter(|(st, _)| *st == seq).count(), 2);
    assert_eq!(s[0].0, 1, "the first data byte is 1");
    // The SACK blocks report the data above the hole, starting right after it.
    let b = table(&r, "trace_blocks");
    assert!(column(b, "start").contains(&(seq + 1460)));
    assert!(column(b, "kind").iter().all(|k| *k == 1), "SACK, no D-SACK");
    // The cumulative ACK reaches the end (300 000 bytes + FIN) and never moves backwards.
    let cum = column(table(&r, "trace_acks"), "cum");
    assert!(cum.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(*cum.last().unwrap(), 300_000 + 2);
    // The state shows one recovery episode.
    let rec = column(table(&r, "trace_state"), "recovery");
    assert_eq!(rec.windows(2).filter(|w| w == &[0, 1]).count(), 1);
}

#[test]
fn timeout_retransmission_of_the_first_segment_is_traced_as_rto() {
    // The first segment lost twice: two timeouts, each resend caused by the RTO (cause 2).
    let r = run_text(&chain("tcp_seqs = [{ value = 1, times = 2 }]", TCP, TRACE));
    let s = sent(&r);
    let rtx: Vec<_> = s.into_iter().filter(|(_, c)| *c != 0).collect();
    assert_eq!(rtx, [(1, 2), (1, 2)]);
    let timeouts = column(table(&r, "trace_state"), "timeouts");
    assert_eq!(*timeouts.last().unwrap(), 2);
}

#[test]
fn sctp_fast_retransmit_and_gap_blocks_are_traced() {
    let r = run_text(&chain("sctp_tsns = [10]", SCTP, TRACE));
    let rtx: Vec<_> = sent(&r).into_iter().filter(|(_, c)| *c != 0).collect();
    assert_eq!(rtx, [(10, 1)]);
    let b = table(&r, "trace_blocks");
    // NR-SACK: the TSNs above the hole come back as nr-gap blocks (kind 4) from TSN 11 on.
    let nr: Vec<u64> = column(b, "kind")
        .iter()
        .zip(column(b, "start"))
        .filter(|(k, _)| **k == 4)
        .map(|(_, s)| *s)
        .collect();
    assert!(nr.contains(&11), "nr-gap starts {nr:?}");
    assert_eq!(*column(table(&r, "trace_acks"), "cum").last().unwrap(), 201);
}

/// Serialized results without the wall time and the trace tables.
fn comparable(r: &RunResults) -> String {
    let mut r = r.clone();
    r.summary.wall_time_s = 0.0;
    r.tables.retain(|t| !t.table.starts_with("trace_"));
    serde_json::to_string(&r).unwrap()
}

#[test]
fn tracing_does_not_change_the_results() {
    for (drop, app) in [("tcp_seqs = [14601]", TCP), ("sctp_tsns = [10]", SCTP)] {
        let plain = run_text(&chain(drop, app, ""));
        let traced = run_text(&chain(drop, app, TRACE));
        assert!(plain.tables.iter().all(|t| !t.table.starts_with("trace_")));
        assert_eq!(comparable(&plain), comparable(&traced));
        assert_eq!(plain.summary.events, traced.summary.events);
    }
}

#[test]
fn a_window_limits_the_trace() {
    let r = run_text(&chain(
        "tcp_seqs = [14601]",
        TCP,
        "[[metrics.trace]]\nflow = \"f\"\nfrom = \"100ms\"\nto = \"200ms\"",
    ));
    let t = column(table(&r, "trace_sent"), "t_ns");
    assert!(!t.is_empty());
    assert!(t.iter().all(|t| (100_000_000..200_000_000).contains(t)));
}

#[test]
fn bad_trace_entries_name_the_field() {
    for (extra, path, words) in [
        (
            "flow = \"nope\"",
            "metrics.trace[0].flow",
            "no app named \"nope\"",
        ),
        (
            "flow = \"f\"\nto = \"11s\"",
            "metrics.trace[0].to",
            "after stop_time",
        ),
        (
            "flow = \"f\"\nfrom = \"2s\"\nto = \"1s\"",
            "metrics.trace[0].to",
            "must be after from",
        ),
        (
            "flow = \"f\"\nlink = \"A->R\"",
            "metrics.trace[0]",
            "unknown field",
        ),
    ] {
        let text = chain(
            "tcp_seqs = [1]",
            TCP,
            &format!("[[metrics.trace]]\n{extra}"),
        );
        let e = Scenario::from_toml(&text).unwrap_err();
        assert!(e.path.starts_with(path), "{extra}: {e}");
        assert!(e.to_string().contains(words), "{extra}: {e}");
    }
    let text = chain("tcp_seqs = [1]", TCP, &format!("{TRACE}\n{TRACE}"));
    let e = Scenario::from_toml(&text).unwrap_err();
    assert!(e.to_string().contains("already traced"), "{e}");
    let udp = "kind = \"udp_cbr\"\nrate = \"1Mbps\"\npacket_size = 500";
    let e = Scenario::from_toml(&chain("packets = [1]", udp, TRACE)).unwrap_err();
    assert!(e.to_string().contains("only tcp_bulk"), "{e}");
}

#[test]
fn tail_loss_probe_of_a_lost_last_segment_is_traced_as_tlp() {
    // RACK-TLP (RFC 8985 §7.3): the last segment (300 000 = 205 × 1460 + 700 bytes, so it starts
    // at 1 + 205 × 1460) is lost and no ACK will tell; the probe timer resends it (cause 4).
    let last = 1 + 205 * 1460;
    let app = TCP.replace(
        "recovery = \"sack\"",
        "recovery = \"sack\", rack = true, tlp = true",
    );
    let r = run_text(&chain(&format!("tcp_seqs = [{last}]"), &app, TRACE));
    let rtx: Vec<_> = sent(&r).into_iter().filter(|(_, c)| *c != 0).collect();
    assert_eq!(rtx, [(last, 4)]);
}
