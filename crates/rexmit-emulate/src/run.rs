//! An emulation run: check the machine, sweep namespaces left by crashed runs, build the
//! scenario with the real hosts' apps left out, give each real host a namespace with a TUN
//! device carrying its address and a route to every other address of the network (and none
//! elsewhere), start the kernel-socket apps, run the network in real time, and report the usual
//! results plus the emulation record: lateness, namespaces, sysctls and socket options.

use crate::bridge::TunOutput;
use crate::clock::{RealTime, TunInput};
use crate::linux_tcp::{
    message_schedule, Bulk, BulkSpec, ReceiverReport, SenderReport, SocketOptions,
};
use crate::netns::{self, Namespace};
use rexmit_engine::Progress;
use rexmit_scenario::build::build_emulated;
use rexmit_scenario::results::Row;
use rexmit_scenario::run::{collect, flow_labels, limits};
use rexmit_scenario::schema::{AppCfg, AppTraffic, Transport};
use rexmit_scenario::{RunResults, Scenario, ScenarioError};
use rexmit_time::Duration;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fs::File;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Default bound on the 99th percentile of event lateness.
pub const DEFAULT_MAX_LATENESS: Duration = Duration::from_millis(1);

#[derive(Debug)]
pub enum EmulationError {
    /// This machine cannot emulate (no root, no /dev/net/tun, no `ip`): said plainly.
    Unavailable(String),
    Scenario(ScenarioError),
    /// Creating or configuring a namespace, a TUN device or a socket failed.
    Setup(String),
}

impl std::fmt::Display for EmulationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmulationError::Unavailable(s) => write!(f, "{s}"),
            EmulationError::Scenario(e) => write!(f, "{e}"),
            EmulationError::Setup(s) => write!(f, "emulation set-up failed: {s}"),
        }
    }
}
impl std::error::Error for EmulationError {}

impl From<ScenarioError> for EmulationError {
    fn from(e: ScenarioError) -> Self {
        EmulationError::Scenario(e)
    }
}

fn setup(what: impl std::fmt::Display) -> impl FnOnce(std::io::Error) -> EmulationError {
    move |e| EmulationError::Setup(format!("{what}: {e}"))
}

/// How a real app's `tcp = { ... }` table is carried out by Linux.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinuxSettings {
    pub socket: SocketOptions,
    /// Sysctls of both hosts' namespaces.
    pub sysctls: BTreeMap<String, String>,
    /// Options of the routes towards the peer (`initcwnd`, `rto_min`).
    pub route_options: Vec<String>,
}

/// Map an app's TCP settings onto kernel knobs; a setting with no Linux counterpart is an
/// error naming the field (nothing is silently dropped).
pub fn linux_settings(path: &str, a: &AppCfg) -> Result<LinuxSettings, ScenarioError> {
    let mut out = LinuxSettings::default();
    let Transport::Tcp(Some(t)) = a.transport() else {
        return Ok(out);
    };
    let bad = |field: &str, why: &str| {
        ScenarioError::new(
            format!("{path}.tcp.{field}"),
            format!("{why} (an app between real hosts runs Linux's TCP)"),
        )
    };
    let flag = |b: bool| if b { "1" } else { "0" }.to_string();
    if let Some(cc) = &t.cc {
        // The kernel's own modules of the same algorithms.
        if !["reno", "cubic", "bbr"].contains(&cc.as_str()) {
            return Err(bad(
                "cc",
                &format!("{cc:?} is not a Linux congestion control here: use reno, cubic or bbr"),
            ));
        }
        out.socket.congestion = Some(cc.clone());
    }
    out.socket.maxseg = t.mss.map(u32::from);
    out.socket.nodelay = t.nagle.map(|n| !n);
    out.socket.sndbuf = t.send_buffer.map(|b| b.0.min(i32::MAX as u64) as u32);
    out.socket.rcvbuf = t.recv_buffer.map(|b| b.0.min(i32::MAX as u64) as u32);
    let mut sys = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            out.sysctls.insert(format!("net.ipv4.{k}"), v);
        }
    };
    sys("tcp_sack", t.sack.map(flag));
    sys("tcp_dsack", t.dsack.map(flag));
    sys("tcp_timestamps", t.timestamps.map(flag));
    sys("tcp_window_scaling", t.window_scaling.map(flag));
    // tcp_recovery bit 0 is RACK loss detection, tcp_early_retrans = 3 turns TLP on and 0 off
    // (Documentation/networking/ip-sysctl.rst). Either written sets both, from the values the
    // app's profile gives the other, so that Linux runs the same pair as rexmit would (the
    // kernel's defaults, 1 and 3, are the linux profile's; the rfc profile has both off). Since
    // Linux 6.17 RACK is the kernel's only loss detection and bit 0 changes nothing.
    if t.rack.is_some() || t.tlp.is_some() {
        let c = t.to_config(&format!("{path}.tcp"))?;
        sys("tcp_recovery", Some(flag(c.rack)));
        sys(
            "tcp_early_retrans",
            Some(if c.tlp { "3" } else { "0" }.to_string()),
        );
    }
    sys("tcp_reordering", t.dup_thresh.map(|d| d.to_string()));
    sys(
        "tcp_max_reordering",
        t.max_reordering.map(|d| d.to_string()),
    );
    // Linux always adapts its reordering degree (tp->reordering): there is no switch to
    // turn it off.
    if t.adaptive_reordering == Some(false) {
        return Err(bad(
            "adaptive_reordering",
            "Linux always adapts its reordering degree: allowed true (or unset)",
        ));
    }
    if let Some(n) = t.initial_cwnd_segments {
        out.route_options.extend(["initcwnd".into(), n.to_string()]);
    }
    if let Some(r) = &t.rto {
        if let Some(m) = r.min {
            out.route_options.extend([
                "rto_min".into(),
                format!("{}ms", m.0.as_nanos().div_ceil(1_000_000)),
            ]);
        }
        if r.initial.is_some() || r.max.is_some() {
            return Err(bad(
                "rto",
                "only rto.min has a Linux counterpart (the route's rto_min)",
            ));
        }
    }
    // Every other key the table sets has no kernel knob here: refused by name, so that a key
    // added to the option table is refused until it is mapped above.
    const MAPPED: [&str; 22] = [
        "cc",
        "mss",
        "nagle",
        "send_buffer",
        "recv_buffer",
        "sack",
        "dsack",
        "timestamps",
        "window_scaling",
        "rack",
        "tlp",
        "undo",
        "undo_ssthresh_floor",
        "frto",
        "idle_restart",
        "cwnd_limited_growth",
        "cubic_idle_epoch",
        "dup_thresh",
        "adaptive_reordering",
        "max_reordering",
        "initial_cwnd_segments",
        "rto.min",
    ];
    // Linux always undoes a reduction it finds spurious (D-SACK, timestamps): undo = false has
    // no knob. F-RTO is net.ipv4.tcp_frto (2: the SACK-enhanced variant, rexmit's).
    if t.undo == Some(false) {
        return Err(bad(
            "undo",
            "Linux always undoes a spurious reduction: only true",
        ));
    }
    // Linux grows the window only while cwnd-limited (tcp_is_cwnd_limited), always.
    if t.cwnd_limited_growth == Some(false) {
        return Err(bad(
            "cwnd_limited_growth",
            "Linux grows cwnd only while cwnd-limited: only true",
        ));
    }
    // Linux's undo raises ssthresh to its prior_ssthresh (tcp_current_ssthresh), always.
    if t.undo_ssthresh_floor == Some(false) {
        return Err(bad(
            "undo_ssthresh_floor",
            "Linux restores at least 3/4 of the prior cwnd as ssthresh: only true",
        ));
    }
    // Linux's CUBIC always moves its epoch past idle time (CA_EVENT_TX_START).
    if t.cubic_idle_epoch == Some(false) {
        return Err(bad(
            "cubic_idle_epoch",
            "Linux's CUBIC always leaves idle time out of its epoch: only true",
        ));
    }
    if let Some(f) = t.frto {
        out.sysctls
            .insert("net.ipv4.tcp_frto".into(), if f { "2" } else { "0" }.into());
    }
    // Restart after idle: net.ipv4.tcp_slow_start_after_idle (Linux's rule, or none).
    match t.idle_restart.as_ref().map(|r| r.0) {
        Some(rexmit_tcp::IdleRestartRule::Linux) => {
            out.sysctls
                .insert("net.ipv4.tcp_slow_start_after_idle".into(), "1".into());
        }
        Some(rexmit_tcp::IdleRestartRule::Off) => {
            out.sysctls
                .insert("net.ipv4.tcp_slow_start_after_idle".into(), "0".into());
        }
        Some(rexmit_tcp::IdleRestartRule::Rfc5681) => {
            return Err(bad(
                "idle_restart",
                "Linux restarts by its own rule: \"linux\" or \"off\"",
            ));
        }
        None => {}
    }
    let mut set = Vec::new();
    t.set_keys("", &mut set);
    if let Some(field) = set.iter().find(|k| !MAPPED.contains(&k.as_str())) {
        return Err(bad(
            field,
            "has no Linux counterpart that the emulator sets",
        ));
    }
    Ok(out)
}

/// Sysctls every real host's namespace gets, whatever the scenario says.
const BASE_SYSCTLS: [(&str, &str); 2] = [
    // No metrics cached from earlier connections (ssthresh, RTT) leak into a new one.
    ("net.ipv4.tcp_no_metrics_save", "1"),
    // ECN is not modelled by rexmit's queues.
    ("net.ipv4.tcp_ecn", "0"),
];

/// Sysctls read back into the results, so they say what the kernel ran with.
const RECORDED_SYSCTLS: [&str; 15] = [
    "net.ipv4.tcp_sack",
    "net.ipv4.tcp_dsack",
    "net.ipv4.tcp_timestamps",
    "net.ipv4.tcp_window_scaling",
    "net.ipv4.tcp_recovery",
    "net.ipv4.tcp_early_retrans",
    "net.ipv4.tcp_frto",
    "net.ipv4.tcp_slow_start_after_idle",
    "net.ipv4.tcp_reordering",
    "net.ipv4.tcp_max_reordering",
    "net.ipv4.tcp_congestion_control",
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_no_metrics_save",
    "net.ipv4.tcp_ecn",
];

struct RealHost {
    name: String,
    node: rexmit_net::NodeId,
    addr: Ipv4Addr,
    ns: Namespace,
    tun: File,
    sysctls: BTreeMap<String, String>,
    routes: Vec<String>,
}

fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// Run `s` with the hosts of `emulation.real_hosts` real. pcaps and the rest of the outputs are
/// as for a simulation run; `RunResults::emulation` holds the emulation record.
pub fn emulate(
    s: &Scenario,
    out_dir: Option<&Path>,
    mut progress: impl FnMut(Progress) -> bool,
) -> Result<RunResults, EmulationError> {
    let emu = s.emulation.as_ref().ok_or_else(|| {
        ScenarioError::new(
            "emulation",
            "is required by emulate: name the real hosts in [emulation] real_hosts",
        )
    })?;
    if emu.real_hosts.is_empty() {
        return Err(
            ScenarioError::new("emulation.real_hosts", "is empty: name at least one host").into(),
        );
    }
    let max_lateness = emu.max_lateness.map_or(DEFAULT_MAX_LATENESS, |d| d.0);
    if max_lateness.is_zero() {
        return Err(ScenarioError::new("emulation.max_lateness", "must be > 0").into());
    }
    // The scenario's mistakes first: they need no privileges.
    let s = &s.with_resolved_starts();
    let mut built = build_emulated(s, out_dir)?;
    let real_apps: Vec<usize> = (0..s.apps.len())
        .filter(|&i| built.apps[i].is_none())
        .collect();
    let mut app_settings = Vec::new();
    let mut schedules = Vec::new();
    for &i in &real_apps {
        app_settings.push(linux_settings(&format!("apps[{i}]"), &s.apps[i])?);
        schedules.push(message_schedule(&format!("apps[{i}]"), &s.apps[i])?);
    }
    let tcp_info_interval = emu.tcp_info_interval.map(|d| d.0);
    if tcp_info_interval.is_some_and(|d| d.is_zero()) {
        return Err(ScenarioError::new("emulation.tcp_info_interval", "must be > 0").into());
    }
    // Hosts: one address each, not routers.
    let net = built.sim.net();
    let mut placed = Vec::new();
    for (i, name) in emu.real_hosts.iter().enumerate() {
        let path = format!("emulation.real_hosts[{i}]");
        if emu.real_hosts[..i].contains(name) {
            return Err(ScenarioError::new(path, format!("{name:?} is listed twice")).into());
        }
        let node = net
            .node_by_name(name)
            .ok_or_else(|| ScenarioError::new(&path, format!("no node named {name:?}")))?;
        if net.node(node).forwarding {
            return Err(ScenarioError::new(
                &path,
                format!("{name:?} is a router: only hosts can be real"),
            )
            .into());
        }
        let addrs = net.addrs(node);
        if addrs.len() != 1 {
            return Err(ScenarioError::new(
                &path,
                format!(
                    "{name:?} has {} addresses: a real host has exactly one link",
                    addrs.len()
                ),
            )
            .into());
        }
        placed.push((name.clone(), node, addrs[0]));
    }
    let all_addrs: Vec<Ipv4Addr> = (0..net.nodes.len())
        .flat_map(|n| net.addrs(rexmit_net::NodeId(n as u32)))
        .collect();
    // Sysctls per host: the base set plus those of its apps (a conflict is an error).
    let mut host_sysctls: Vec<BTreeMap<String, String>> = placed
        .iter()
        .map(|_| {
            BASE_SYSCTLS
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect();
    let mut host_route_opts: Vec<Vec<String>> = vec![Vec::new(); placed.len()];
    for (k, &i) in real_apps.iter().enumerate() {
        let a = &s.apps[i];
        for end in [&a.from, &a.to] {
            let h = placed
                .iter()
                .position(|p| &p.0 == end)
                .expect("real app ends are real hosts");
            for (key, v) in &app_settings[k].sysctls {
                if let Some(old) = host_sysctls[h]
                    .insert(key.clone(), v.clone())
                    .filter(|old| old != v)
                {
                    return Err(ScenarioError::new(
                        format!("apps[{i}].tcp"),
                        format!(
                            "host {end:?} gets {key} = {v} from this app and {old} from another"
                        ),
                    )
                    .into());
                }
            }
            if end == &a.from && !app_settings[k].route_options.is_empty() {
                host_route_opts[h] = app_settings[k].route_options.clone();
            }
        }
    }

    if let Some(why) = crate::unavailable_reason() {
        return Err(EmulationError::Unavailable(why));
    }
    let swept = netns::sweep_stale();
    let load_before = loadavg();

    let mut hosts: Vec<RealHost> = Vec::new();
    for (h, (name, node, addr)) in placed.into_iter().enumerate() {
        let ns = Namespace::create().map_err(setup(format!("namespace for {name:?}")))?;
        for (k, v) in &host_sysctls[h] {
            ns.sysctl(k, v)
                .map_err(setup(format!("{name:?}: sysctl {k}")))?;
        }
        let tun = ns
            .open_tun("tun0")
            .map_err(setup(format!("{name:?}: TUN device")))?;
        ns.ip(&["addr", "add", &format!("{addr}/32"), "dev", "tun0"])
            .map_err(setup(format!("{name:?}: address")))?;
        ns.ip(&["link", "set", "tun0", "up"])
            .map_err(setup(format!("{name:?}: link up")))?;
        let mut routes = Vec::new();
        for other in all_addrs.iter().filter(|&&o| o != addr) {
            let mut args: Vec<String> = [
                "route",
                "add",
                &format!("{other}/32"),
                "dev",
                "tun0",
                "src",
                &addr.to_string(),
            ]
            .map(String::from)
            .to_vec();
            args.extend(host_route_opts[h].iter().cloned());
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            ns.ip(&refs)
                .map_err(setup(format!("{name:?}: route to {other}")))?;
            routes.push(args[2..].join(" "));
        }
        let mut sysctls = BTreeMap::new();
        for k in RECORDED_SYSCTLS {
            if let Ok(v) = ns.read_sysctl(k) {
                sysctls.insert(k.to_string(), v);
            }
        }
        let out = tun
            .try_clone()
            .map_err(setup(format!("{name:?}: TUN device")))?;
        built
            .sim
            .add_catch_all_agent(
                &format!("{name}/tun"),
                node,
                rexmit_time::Time::ZERO,
                Box::new(TunOutput::new(out)),
            )
            .map_err(|e| EmulationError::Setup(e.to_string()))?;
        hosts.push(RealHost {
            name,
            node,
            addr,
            ns,
            tun,
            sysctls,
            routes,
        });
    }

    // Sim time zero a little ahead, so that the threads are ready.
    let origin = Instant::now() + std::time::Duration::from_millis(100);
    let cancel = Arc::new(AtomicBool::new(false));
    let to_std = |d: Duration| std::time::Duration::from_nanos(d.as_nanos());
    let mut bulks = Vec::new();
    for (k, &i) in real_apps.iter().enumerate() {
        let a = &s.apps[i];
        let host = |n: &str| hosts.iter().find(|h| h.name == n).expect("real host");
        let (src, dst) = (host(&a.from), host(&a.to));
        let port = rexmit_scenario::build::app_port(i, a);
        let spec = BulkSpec {
            sender_ns: src.ns.name.clone(),
            receiver_ns: dst.ns.name.clone(),
            src: SocketAddrV4::new(src.addr, port),
            dst: SocketAddrV4::new(dst.addr, port),
            start: to_std(a.start.0),
            stop: to_std(s.stop_time.0),
            measure_from: to_std(a.warmup().map_or(a.start.0, |w| w.0)),
            // `build_emulated` lets only tcp_bulk and tcp_messages apps run between real hosts.
            bytes: match &a.traffic {
                AppTraffic::TcpBulk(c) => c.bytes.map(|b| b.0),
                _ => None,
            },
            messages: schedules[k].clone(),
            tcp_info_interval: tcp_info_interval.map(to_std),
            options: app_settings[k].socket.clone(),
            cancel: cancel.clone(),
        };
        bulks.push(Bulk::start(spec, origin).map_err(setup(format!("apps[{i}]")))?);
    }

    let inputs = hosts
        .iter()
        .map(|h| TunInput {
            fd: h.tun.as_raw_fd(),
            node: h.node,
            addr: h.addr,
            stats: Default::default(),
        })
        .collect();
    let mut pacer = RealTime::new(origin, inputs);
    while Instant::now() < origin {
        std::thread::sleep(origin - Instant::now());
    }
    let started = Instant::now();
    let outcome = built.sim.run_paced(&limits(s), &mut pacer, &mut progress);
    let wall = started.elapsed().as_secs_f64();
    if outcome.is_err() {
        cancel.store(true, Ordering::Relaxed);
    }
    let reports: Vec<(SenderReport, ReceiverReport)> = bulks.into_iter().map(Bulk::join).collect();
    let load_after = loadavg();
    let lateness = pacer.lateness.summary();
    let inputs: Vec<Value> = pacer.inputs().iter().map(|i| json!(i.stats)).collect();
    drop(pacer);

    let mut partial = outcome.as_ref().err().map(|e| e.to_string());
    if lateness.p99_s > max_lateness.as_secs_f64() {
        let why = format!(
            "emulation lateness p99 {:.3} ms exceeds emulation.max_lateness {:.3} ms (mean {:.3} ms, max {:.3} ms; load average {load_after})",
            lateness.p99_s * 1e3,
            max_lateness.as_secs_f64() * 1e3,
            lateness.mean_s * 1e3,
            lateness.max_s * 1e3
        );
        partial = Some(partial.map_or(why.clone(), |p| format!("{p}; {why}")));
    }
    let tun_out: Vec<Value> = {
        let m = built.sim.agent_metrics();
        hosts
            .iter()
            .map(|h| {
                m.iter()
                    .find(|(n, _, _)| *n == format!("{}/tun", h.name))
                    .map_or(Value::Null, |(_, _, m)| {
                        json!(m.iter().cloned().collect::<BTreeMap<_, _>>())
                    })
            })
            .collect()
    };
    let mut results = collect(s, built, wall, partial);
    // Flows in app order: the real apps' rows between the simulated ones.
    let mut sim_rows = std::mem::take(&mut results.flows).into_iter();
    let mut apps_record = Vec::new();
    for (i, a) in s.apps.iter().enumerate() {
        match real_apps.iter().position(|&r| r == i) {
            Some(k) => {
                let (snd, rcv) = &reports[k];
                results.flows.push(linux_row(s, a, snd, rcv));
                apps_record.push(json!({"name": a.name, "socket_options": app_settings[k].socket, "sender": snd, "receiver": rcv}));
            }
            None => results.flows.extend(sim_rows.next()),
        }
    }
    let hosts_record: Vec<Value> = hosts
        .iter()
        .zip(inputs.iter().zip(&tun_out))
        .map(|(h, (input, output))| json!({"name": h.name, "namespace": h.ns.name, "address": h.addr.to_string(), "device": "tun0", "routes": h.routes, "sysctls": h.sysctls, "from_kernel": input, "to_kernel": output}))
        .collect();
    results.emulation = Some(json!({
        "kernel": kernel_release(),
        "lateness": lateness,
        "max_lateness_s": max_lateness.as_secs_f64(),
        "load_average_before": load_before,
        "load_average_after": load_after,
        "cpus": std::thread::available_parallelism().map_or(0, |n| n.get()),
        "stale_namespaces_removed": swept,
        "hosts": hosts_record,
        "apps": apps_record,
    }));
    drop(hosts);
    Ok(results)
}

/// The flow row of an app between real hosts, in the metric names of simulated TCP flows.
fn linux_row(s: &Scenario, a: &AppCfg, snd: &SenderReport, rcv: &ReceiverReport) -> Row {
    let secs = s
        .stop_time
        .0
        .saturating_sub(a.warmup().map_or(a.start.0, |w| w.0))
        .as_secs_f64();
    let nan = f64::NAN;
    let i = snd.tcp_info.clone().unwrap_or_default();
    let mut labels = flow_labels(a);
    labels.push(("stack".into(), "linux".into()));
    let m = vec![
        ("bytes_written", snd.bytes_written as f64),
        ("bytes_acked", i.bytes_acked as f64),
        ("data_segments_sent", i.data_segs_out as f64),
        ("retransmissions", i.total_retrans as f64),
        ("bytes_retransmitted", i.bytes_retrans as f64),
        ("timeouts", i.total_rto.map_or(nan, f64::from)),
        ("dsacks_received", i.dsack_dups as f64),
        ("reordering", i.reordering as f64),
        ("reordering_seen", i.reord_seen as f64),
        (
            "failure",
            (snd.error.is_some() || rcv.error.is_some()) as u8 as f64,
        ),
        (
            "completion_time_s",
            snd.completed_s.map_or(nan, |c| c - a.start.0.as_secs_f64()),
        ),
        (
            "srtt_s",
            if snd.tcp_info.is_some() {
                i.rtt_us as f64 / 1e6
            } else {
                nan
            },
        ),
        ("cwnd_final", (i.snd_cwnd as u64 * i.snd_mss as u64) as f64),
        ("ssthresh_final_segments", i.snd_ssthresh as f64),
        ("rto_final_s", i.rto_us as f64 / 1e6),
        ("min_rtt_s", i.min_rtt_us as f64 / 1e6),
        ("bytes_delivered", rcv.bytes_read as f64),
        (
            "goodput_bps",
            if secs > 0.0 {
                rcv.bytes_measured as f64 * 8.0 / secs
            } else {
                0.0
            },
        ),
    ];
    Row {
        name: a.name.clone(),
        labels,
        metrics: m.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(tcp: &str) -> AppCfg {
        let s = Scenario::from_toml(&format!(
            "stop_time = \"1s\"\n[[nodes]]\nname = \"A\"\n[[nodes]]\nname = \"B\"\n[[links]]\nbetween = [\"A\", \"B\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n[[apps]]\nname = \"x\"\nkind = \"tcp_bulk\"\nfrom = \"A\"\nto = \"B\"\ntcp = {{ {tcp} }}\n"
        ))
        .expect("scenario");
        s.apps[0].clone()
    }

    /// Each TCP field with a Linux counterpart becomes a socket option, a namespace sysctl or a
    /// route option; the profile is rexmit's and changes nothing for Linux.
    #[test]
    fn tcp_fields_map_to_socket_options_sysctls_and_route_options() {
        let l = linux_settings("apps[0]", &app(r#"profile = "linux", cc = "bbr", timestamps = false, rack = false, dup_thresh = 5, mss = 1200, initial_cwnd_segments = 4, rto = { min = "50ms" }, recv_buffer = "1MiB""#)).unwrap();
        assert_eq!(l.socket.congestion.as_deref(), Some("bbr"));
        assert_eq!(
            (l.socket.maxseg, l.socket.rcvbuf),
            (Some(1200), Some(1 << 20))
        );
        assert_eq!(
            l.sysctls.get("net.ipv4.tcp_timestamps").map(String::as_str),
            Some("0")
        );
        assert_eq!(
            l.sysctls.get("net.ipv4.tcp_recovery").map(String::as_str),
            Some("0")
        );
        assert_eq!(
            l.sysctls.get("net.ipv4.tcp_reordering").map(String::as_str),
            Some("5")
        );
        assert_eq!(l.route_options, ["initcwnd", "4", "rto_min", "50ms"]);
    }

    /// RACK and TLP are set as a pair: one written takes the other from the profile.
    #[test]
    fn rack_and_tlp_set_tcp_recovery_and_tcp_early_retrans_together() {
        let pair = |tcp: &str| {
            let l = linux_settings("apps[0]", &app(tcp)).unwrap();
            let get = |k: &str| l.sysctls.get(k).cloned();
            (
                get("net.ipv4.tcp_recovery"),
                get("net.ipv4.tcp_early_retrans"),
            )
        };
        let s = |a: &str, b: &str| (Some(a.to_string()), Some(b.to_string()));
        assert_eq!(pair(r#"profile = "linux", tlp = false"#), s("1", "0"));
        assert_eq!(pair(r#"profile = "linux", rack = false"#), s("0", "3"));
        assert_eq!(pair(r#"rack = true"#), s("1", "0"), "rfc profile: no TLP");
        assert_eq!(pair(r#"rack = true, tlp = true"#), s("1", "3"));
        assert_eq!(
            pair(r#"profile = "linux""#),
            (None, None),
            "kernel defaults"
        );
    }

    #[test]
    fn a_field_without_a_linux_counterpart_is_refused_by_name() {
        let e = linux_settings("apps[0]", &app(r#"cc = "westwood""#)).unwrap_err();
        assert_eq!(e.path, "apps[0].tcp.cc");
        let e = linux_settings("apps[0]", &app(r#"prr = false"#)).unwrap_err();
        assert_eq!(e.path, "apps[0].tcp.prr");
        let e = linux_settings("apps[0]", &app(r#"rto = { initial = "3s" }"#)).unwrap_err();
        assert_eq!(e.path, "apps[0].tcp.rto");
        let e = linux_settings("apps[0]", &app(r#"undo = false"#)).unwrap_err();
        assert_eq!(e.path, "apps[0].tcp.undo");
        let l = linux_settings("apps[0]", &app(r#"undo = true, frto = true"#)).unwrap();
        assert_eq!(
            l.sysctls.get("net.ipv4.tcp_frto").map(String::as_str),
            Some("2")
        );
        let l = linux_settings("apps[0]", &app(r#"idle_restart = "linux""#)).unwrap();
        assert_eq!(
            l.sysctls
                .get("net.ipv4.tcp_slow_start_after_idle")
                .map(String::as_str),
            Some("1")
        );
        let e = linux_settings("apps[0]", &app(r#"idle_restart = "rfc5681""#)).unwrap_err();
        assert_eq!(e.path, "apps[0].tcp.idle_restart");
        let e = linux_settings("apps[0]", &app(r#"cwnd_limited_growth = false"#)).unwrap_err();
        assert_eq!(e.path, "apps[0].tcp.cwnd_limited_growth");
        let e = linux_settings("apps[0]", &app(r#"adaptive_reordering = false"#)).unwrap_err();
        assert_eq!(e.path, "apps[0].tcp.adaptive_reordering");
        let e = linux_settings("apps[0]", &app(r#"cc = "cubic", cubic_idle_epoch = false"#))
            .unwrap_err();
        assert_eq!(e.path, "apps[0].tcp.cubic_idle_epoch");
        assert!(linux_settings("apps[0]", &app(r#"cubic_idle_epoch = true"#)).is_ok());
        let e = linux_settings("apps[0]", &app(r#"undo_ssthresh_floor = false"#)).unwrap_err();
        assert_eq!(e.path, "apps[0].tcp.undo_ssthresh_floor");
    }

    #[test]
    fn the_reordering_ceiling_is_linux_tcp_max_reordering() {
        let l = linux_settings(
            "apps[0]",
            &app("adaptive_reordering = true, max_reordering = 50"),
        )
        .unwrap();
        assert_eq!(
            l.sysctls
                .get("net.ipv4.tcp_max_reordering")
                .map(String::as_str),
            Some("50")
        );
    }
}
