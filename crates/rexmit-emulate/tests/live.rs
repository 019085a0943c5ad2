//! Live emulation runs: real Linux TCP in namespaces on a simulated path. They need root and
//! /dev/net/tun; without them they skip and say why, unless REXMIT_REQUIRE_EMULATION=1 (set by
//! `make test`), which turns a missing capability into a failure.

use rexmit_emulate::{emulate, unavailable_reason};
use rexmit_scenario::{RunResults, Scenario};

/// Real-time runs one at a time (they share two cores with everything else).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn can_emulate(test: &str) -> bool {
    match unavailable_reason() {
        None => true,
        Some(why) if std::env::var("REXMIT_REQUIRE_EMULATION").as_deref() == Ok("1") => {
            panic!("{test}: REXMIT_REQUIRE_EMULATION=1 but {why}")
        }
        Some(why) => {
            eprintln!("{test}: skipped: {why}");
            false
        }
    }
}

fn scenario(stop: &str, bottleneck_errors: &str, extra: &str) -> Scenario {
    Scenario::from_toml(&format!(
        r#"
stop_time = "{stop}"
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mbps", delay = "20ms", queue = {{ packets = 100 }}, errors = [{bottleneck_errors}] }}
left = [{{ name = "S", rate = "100Mbps", delay = "1ms" }}]
right = [{{ name = "R", rate = "100Mbps", delay = "1ms" }}]
[[apps]]
name = "bulk"
kind = "tcp_bulk"
from = "S"
to = "R"
tcp = {{ cc = "cubic" }}
[emulation]
real_hosts = ["S", "R"]
{extra}
"#
    ))
    .expect("valid scenario")
}

fn metric(r: &RunResults, flow: &str, name: &str) -> f64 {
    let f = r.flows.iter().find(|f| f.name == flow).expect("flow row");
    f.metrics
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| *v)
        .unwrap_or_else(|| panic!("no metric {name}"))
}

fn our_namespaces() -> Vec<String> {
    let prefix = format!("rexmit-{}-", std::process::id());
    std::fs::read_dir("/run/netns").map_or(Vec::new(), |d| {
        d.flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&prefix))
            .collect()
    })
}

/// A clean 10 Mb/s path: Linux fills it (goodput within 15% of the line rate after the first
/// second), the emulator reports its lateness, and the namespaces are gone afterwards.
#[test]
fn linux_fills_a_10_mbps_path_and_the_namespaces_are_removed() {
    if !can_emulate("linux_fills_a_10_mbps_path") {
        return;
    }
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = scenario("4s", "", "");
    let rexmit_scenario::schema::AppTraffic::TcpBulk(bulk) = &mut s.apps[0].traffic else {
        panic!("the live scenario's app is tcp_bulk");
    };
    bulk.warmup = Some(rexmit_scenario::units::DurationStr(
        rexmit_time::Duration::from_secs(1),
    ));
    let r = emulate(&s, None, |_| true).expect("emulation runs");
    let goodput = metric(&r, "bulk", "goodput_bps");
    // 10 Mb/s of IP packets of 1500 B carry 1448 B of payload each (timestamps on).
    let payload_rate = 10e6 * 1448.0 / 1500.0;
    assert!(
        goodput > 0.85 * payload_rate && goodput <= payload_rate * 1.01,
        "goodput {goodput}"
    );
    let e = r.emulation.as_ref().expect("emulation record");
    assert!(e["lateness"]["events"].as_u64().unwrap() > 1000);
    assert!(e["hosts"][0]["from_kernel"]["packets"].as_u64().unwrap() > 1000);
    assert_eq!(
        e["hosts"][0]["from_kernel"]["undecodable"].as_u64(),
        Some(0)
    );
    assert_eq!(e["apps"][0]["socket_options"]["congestion"], "cubic");
    assert!(
        our_namespaces().is_empty(),
        "left behind: {:?}",
        our_namespaces()
    );
}

/// A scripted drop of one data segment is repaired by the kernel: one retransmission and no
/// timeout; and a lateness bound no run can meet marks the results partial, with the reason.
#[test]
fn a_scripted_drop_is_retransmitted_by_linux_and_an_impossible_lateness_bound_marks_the_run_partial(
) {
    if !can_emulate("a_scripted_drop_is_retransmitted_by_linux") {
        return;
    }
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let s = scenario(
        "2s",
        r#"{ kind = "scripted", app = "bulk", packets = [40], direction = "forward" }"#,
        r#"max_lateness = "1ns""#,
    );
    let r = emulate(&s, None, |_| true).expect("emulation runs");
    assert_eq!(metric(&r, "bulk", "retransmissions"), 1.0);
    assert_eq!(metric(&r, "bulk", "timeouts"), 0.0);
    let drops: f64 = r
        .links
        .iter()
        .map(|l| {
            l.metrics
                .iter()
                .find(|(k, _)| k == "drop_error")
                .map_or(0.0, |(_, v)| *v)
        })
        .sum();
    assert_eq!(drops, 1.0);
    let partial = r.summary.partial.as_deref().expect("marked partial");
    assert!(partial.contains("emulation.max_lateness"), "{partial}");
}

/// A namespace named as ours but of a process that no longer exists (a crashed run) is
/// removed by the next run's sweep.
#[test]
fn a_stale_namespace_of_a_dead_process_is_swept() {
    if !can_emulate("a_stale_namespace_of_a_dead_process_is_swept") {
        return;
    }
    // The other tests' runs sweep stale namespaces when they start: one of them running
    // beside this test could remove ours before our sweep sees it.
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // A pid above the kernel's largest pid_max (2^22) cannot be alive; ours in it keeps two
    // runs of this test apart.
    let stale = format!("rexmit-{}-0", 10_000_000 + std::process::id());
    let stale = stale.as_str();
    let ok = std::process::Command::new("ip")
        .args(["netns", "add", stale])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "could not create the stale namespace");
    let removed = rexmit_emulate::netns::sweep_stale();
    assert!(removed.contains(&stale.to_string()), "{removed:?}");
    assert!(!std::path::Path::new(&format!("/run/netns/{stale}")).exists());
}
