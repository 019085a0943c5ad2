//! docs/options.md, the list of every TCP and SCTP option, of the links' options and of the
//! queues' AQM parameters, is generated from the option tables (`rexmit_tcp::tcp_option_table`,
//! `rexmit_sctp::sctp_option_table`, `rexmit_net::link_option_table`,
//! `rexmit_net::codel_option_table` ...): this test fails
//! when the file is not what the tables give. `REXMIT_BLESS=1 cargo test -p rexmit-scenario
//! --test options_doc` rewrites it.

use rexmit_options::{Row, Table};
use std::path::Path;

fn rows(t: &dyn Table) -> Vec<Row> {
    let mut out = Vec::new();
    t.visit("", &mut |r| out.push(r));
    out
}

/// One line of markdown-table cell text.
fn cell(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

fn unit(u: &str) -> &str {
    match u {
        "time" => "duration",
        "time_or_off" => "duration (\"0s\": off)",
        "bytes_or_auto" => "bytes (unset: the RFC's rule)",
        "size" => "bytes (integer)",
        "segments_per_rtt" => "segments per RTT",
        "controller" | "policy" => "name",
        "params" => "table of numbers",
        "per_second" => "1/s",
        other => other,
    }
}

fn value(r: &Row) -> String {
    match r.unit {
        // SCTP's controller is unset by default (RFC 9260 §7.2's own rules).
        "controller" if r.value == "none" => "unset".to_string(),
        "choice" | "controller" | "policy" => format!("\"{}\"", r.value),
        _ => r.value.clone(),
    }
}

/// The allowed values; a controller's are the registered names (built-ins, before plugins),
/// with what the table adds to "a registered controller".
fn allowed(r: &Row) -> String {
    if r.unit == "controller" {
        let names = rexmit_tcp::cc::registry::names().join(" | ");
        match r.allowed.as_str() {
            "a registered controller" => names,
            more => format!("{names} ({more})"),
        }
    } else if r.unit == "policy" {
        rexmit_tcp::loss::POLICIES.names().join(" | ")
    } else {
        r.allowed.clone()
    }
}

/// A table of `defaults` (and `linux`, when given), public or internal rows.
fn table(out: &mut String, defaults: &[Row], linux: Option<&[Row]>, public: bool) {
    let lx = linux.is_some();
    out.push_str(if lx {
        "| key | unit | default (rfc) | linux | allowed | meaning |\n|---|---|---|---|---|---|\n"
    } else {
        "| key | unit | default | allowed | meaning |\n|---|---|---|---|---|\n"
    });
    for (i, r) in defaults.iter().enumerate() {
        if r.public != public {
            continue;
        }
        let linux_cell = match linux {
            Some(l) if value(&l[i]) != value(r) => format!(" {} |", value(&l[i])),
            Some(_) => " |".to_string(),
            None => String::new(),
        };
        out.push_str(&format!(
            "| `{}` | {} | {} |{} {} | {} |\n",
            r.key,
            unit(r.unit),
            cell(&value(r)),
            linux_cell,
            cell(&allowed(r)),
            cell(r.doc)
        ));
    }
}

fn render() -> String {
    let tcp = rows(&rexmit_tcp::TcpConfig::default());
    let tcp_linux = rows(&rexmit_tcp::TcpConfig::linux_values());
    let sctp = rows(&rexmit_sctp::SctpConfig::default());
    let mut s = String::from(
        "# Options of the TCP and SCTP cores and of the queues\n\n\
         Generated from the cores' option tables (`tcp_option_table` in \
         crates/rexmit-tcp/src/config.rs, `sctp_option_table` and its nested tables in \
         crates/rexmit-sctp/src/config.rs, `rto_option_table` in \
         crates/rexmit-transport/src/rtt.rs, and the queues' tables named in their sections) by `REXMIT_BLESS=1 cargo test -p rexmit-scenario \
         --test options_doc`: do not edit by hand. A key inside a nested table is written \
         `rto = { min = \"200ms\" }` or `rto.min = \"200ms\"` under the app's table. Byte counts \
         take an integer or a string with a unit (\"64KiB\"); durations a string (\"200ms\").\n\n\
         ## `tcp = { ... }` (tcp_bulk, tcp_messages, http)\n\n\
         `profile = \"rfc\" | \"linux\"` (default \"rfc\"): the defaults the other keys \
         override; \"linux\" is the linux column below (Linux 6.x as rexmit models it, \
         docs/validation_linux.md). With another `cc` than \"cubic\" the linux profile's \
         `hystart` is off unless written. `cc` names a built-in or a registered plugin \
         (docs/congestion_control.md); `cc_params` gives its parameters, each controller \
         declaring its own (generalised AIMD: `a` in (0, 1000] segments per RTT, default 1; `b` \
         in (0, 1), default 0.5). `aimd_a` and `aimd_b`, their old names, are still accepted \
         with `cc = \"aimd\"`.\n\n",
    );
    table(&mut s, &tcp, Some(&tcp_linux), true);
    s.push_str("\nFixed by the core (not set by scenarios):\n\n");
    table(&mut s, &tcp, Some(&tcp_linux), false);
    s.push_str(
        "\n## `sctp = { ... }` (sctp_bulk, sctp_messages)\n\n\
         `thin.all = true` turns on seed 004's four modifications (`rto_min_200ms`, \
         `timer_restart_correction`, `linear_timeouts`, `fast_rtx_first_indication`); the \
         single keys override it.\n\n",
    );
    table(&mut s, &sctp, None, true);
    s.push_str("\nFixed by the core (not set by scenarios):\n\n");
    table(&mut s, &sctp, None, false);
    links(&mut s);
    queues(&mut s);
    s
}

/// The link table's own options (beside `rate`, `delay`, `queue`, `errors` and `reorder`).
fn links(s: &mut String) {
    s.push_str(
        "\n## A link table (`[[links]]`, a dumbbell's `bottleneck`, `left` and `right`, ...)\n\n\
         Besides `rate`, `delay`, `queue`, `errors` and `reorder`; from `link_option_table` in \
         crates/rexmit-net/src/channel.rs. Both directions of the link take the same values.\n\n",
    );
    table(s, &rows(&rexmit_net::LinkOptions::default()), None, true);
}

/// The queue section: the `queue` table's own keys, then one table per AQM.
fn queues(s: &mut String) {
    s.push_str(
        "\n## `queue = { ... }` of a link\n\n\
         `packets` or `bytes`: the limit. `aqm`: \"drop_tail\", \"red\" (with `red = { min_th, \
         max_th, max_p, weight, gentle, mean_packet_size }`), \"ared\", \"codel\", \"fq_codel\" or \
         \"pie\", each with its table below (optional: the RFC defaults). `ecn = true`: mark \
         ECN-capable packets CE instead of dropping them where the AQM allows (RED and Adaptive \
         RED: not above max_th's forced drops; PIE: not above `mark_ecnth`; FQ-CoDel: not its \
         overload drops); default on for FQ-CoDel (RFC 8290 §5.2.6), off for the others. \
         `ecn_threshold = K` (packets) or `ecn_threshold_bytes`: DCTCP's step marking on a \
         drop-tail queue (RFC 8257 §3.1): an ECN-capable packet is marked when the queue, with \
         it, holds more than K; a Not-ECT packet is dropped in its place (RFC 3168 §5). A queue written with any of \
         these keys also reports `ecn_marked` and `queue_delay_p99_s` in links.parquet; one \
         written with `packets`, `bytes` and `red` only runs and reports as it always did.\n",
    );
    let aqms: [(&str, &str, &dyn Table); 4] = [
        (
            "`codel = { ... }` (aqm = \"codel\"; the same table is `fq_codel.codel`)",
            "`codel_option_table` in crates/rexmit-net/src/queue/codel.rs",
            &rexmit_net::CodelConfig::default(),
        ),
        (
            "`fq_codel = { ... }` (aqm = \"fq_codel\")",
            "`fq_codel_option_table` in crates/rexmit-net/src/queue/fq_codel.rs",
            &rexmit_net::FqCodelConfig::default(),
        ),
        (
            "`pie = { ... }` (aqm = \"pie\")",
            "`pie_option_table` in crates/rexmit-net/src/queue/pie.rs",
            &rexmit_net::PieConfig::default(),
        ),
        (
            "`ared = { ... }` (aqm = \"ared\", Adaptive RED)",
            "`ared_option_table` in crates/rexmit-net/src/queue/ared.rs",
            &rexmit_net::AredConfig::default(),
        ),
    ];
    for (title, source, t) in aqms {
        s.push_str(&format!("\n### {title}\n\nFrom {source}.\n\n"));
        table(s, &rows(t), None, true);
    }
}

#[test]
fn docs_options_md_is_generated_from_the_option_tables() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/options.md");
    let want = render();
    if std::env::var_os("REXMIT_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/options.md is not what the option tables give: run \
         `REXMIT_BLESS=1 cargo test -p rexmit-scenario --test options_doc`"
    );
}

/// Every public option of the cores is a key of the scenario's tables, and the other way round.
#[test]
fn every_public_option_is_a_scenario_key() {
    use rexmit_scenario::transport::{SctpCfg, TcpCfg};
    let keys = |t: &dyn Table| -> Vec<String> {
        rows(t)
            .into_iter()
            .filter(|r| r.public)
            .map(|r| r.key)
            .collect()
    };
    let mut tcp = Vec::new();
    TcpCfg::from_core(&rexmit_tcp::TcpConfig::default()).set_keys("", &mut tcp);
    // The reverse map leaves out the parameters of a controller (reno) and of a loss-detection
    // policy (rfc) that have none.
    let tcp_all: Vec<String> = keys(&rexmit_tcp::TcpConfig::default());
    assert!(tcp.iter().all(|k| tcp_all.contains(k)));
    assert_eq!(tcp_all.len() - tcp.len(), 2);
    let mut sctp = Vec::new();
    // Options the reverse map leaves out when unset or off are set here.
    SctpCfg::from_core(&rexmit_sctp::SctpConfig {
        cc: Some("aimd".into()),
        cc_params: rexmit_tcp::cc::registry::ParamMap::of(&[("a", 2.0)]),
        initial_cwnd: Some(10_000),
        initial_ssthresh: Some(10_000),
        cwnd_bytes: rexmit_sctp::CwndBytes::Chunk,
        rack: rexmit_sctp::RackConfig {
            rtt_probe: Some(rexmit_time::Duration::from_secs(1)),
            ..Default::default()
        },
        ..Default::default()
    })
    .set_keys("", &mut sctp);
    assert_eq!(sctp, keys(&rexmit_sctp::SctpConfig::default()));
    use rexmit_scenario::queue::{AredCfg, CodelCfg, FqCodelCfg, PieCfg};
    let mut aqm = Vec::new();
    CodelCfg::from_core(&Default::default()).set_keys("", &mut aqm);
    assert_eq!(aqm, keys(&rexmit_net::CodelConfig::default()));
    aqm.clear();
    FqCodelCfg::from_core(&Default::default()).set_keys("", &mut aqm);
    assert_eq!(aqm, keys(&rexmit_net::FqCodelConfig::default()));
    aqm.clear();
    PieCfg::from_core(&Default::default()).set_keys("", &mut aqm);
    assert_eq!(aqm, keys(&rexmit_net::PieConfig::default()));
    aqm.clear();
    AredCfg::from_core(&Default::default()).set_keys("", &mut aqm);
    assert_eq!(aqm, keys(&rexmit_net::AredConfig::default()));
}
