//! What a script sets before its core exists, and how that becomes the core's configuration:
//! header options (`--tolerance_usecs`, `--profile=rfc|linux`, `--tcp.KEY=VALUE`,
//! `--sctp.KEY=VALUE`), Linux sysctls in backticks (`` `sysctl -q net.ipv4.tcp_sack=0` ``) and
//! socket options (`SO_SNDBUF`, `TCP_NODELAY`, ...). Every one maps onto a key of the scenario
//! schema's `tcp = { ... }` / `sctp = { ... }` tables (the cores' option tables, docs/options.md),
//! so ranges and relations are checked, and errors worded, exactly as for a scenario. An unknown
//! name is an error naming it; the documented skips are listed in `SKIPPED_SYSCTLS`.

use rexmit_scenario::transport::{SctpCfg, TcpCfg};
use rexmit_sctp::SctpConfig;
use rexmit_tcp::TcpConfig;
use rexmit_time::Duration;
use std::collections::BTreeMap;
use toml::Value;

/// packetdrill's default timing tolerance (its `--tolerance_usecs`): 4 ms.
pub const DEFAULT_TOLERANCE: Duration = Duration::from_millis(4);

/// Sysctls accepted with no effect, and why (docs/scripts.md).
pub const SKIPPED_SYSCTLS: &[(&str, &str)] = &[
    (
        "net.ipv4.tcp_min_rtt_wlen",
        "rexmit's min RTT is the connection's lifetime minimum (BBR keeps its own 10 s filter)",
    ),
    (
        "net.ipv4.tcp_no_metrics_save",
        "rexmit keeps no per-destination metrics cache",
    ),
    ("net.ipv4.tcp_autocorking", "rexmit never corks"),
    (
        "net.ipv4.tcp_tso_win_divisor",
        "no TSO: the matcher joins same-instant segments instead",
    ),
    (
        "net.core.default_qdisc",
        "the script host has no queueing discipline",
    ),
    (
        "net.ipv4.tcp_pacing_ss_ratio",
        "pacing follows the controller (BBR); others do not pace",
    ),
    (
        "net.ipv4.tcp_pacing_ca_ratio",
        "pacing follows the controller (BBR); others do not pace",
    ),
];

/// A configuration error: a malformed script, with the message naming the setting.
pub type SetResult<T> = Result<T, String>;

#[derive(Clone, Debug)]
pub struct Settings {
    pub tolerance: Duration,
    /// "linux" (default, as packetdrill's scripts assume) or "rfc".
    pub profile: String,
    /// Keys of `tcp = { ... }` (dotted for nested tables) with their value and who set them.
    tcp: BTreeMap<String, (Value, String)>,
    sctp: BTreeMap<String, (Value, String)>,
    /// Linux's tcp_retries2 (an internal option of the core, not a scenario key).
    retries2: Option<u32>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            tolerance: DEFAULT_TOLERANCE,
            profile: "linux".into(),
            tcp: BTreeMap::new(),
            sctp: BTreeMap::new(),
            retries2: None,
        }
    }
}

fn flag(name: &str, v: &str) -> SetResult<Value> {
    match v {
        "0" => Ok(Value::Boolean(false)),
        "1" => Ok(Value::Boolean(true)),
        _ => Err(format!("{name}={v}: expected 0 or 1")),
    }
}

fn int(name: &str, v: &str) -> SetResult<i64> {
    v.parse::<i64>()
        .ok()
        .filter(|x| *x >= 0)
        .ok_or_else(|| format!("{name}={v}: expected a non-negative integer"))
}

/// `--tcp.KEY=VALUE`: a TOML value, or a bare word taken as a string.
fn toml_value(v: &str) -> Value {
    toml::from_str::<toml::Table>(&format!("v = {v}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| Value::String(v.to_string()))
}

/// Split a shell word list, honouring double quotes (`sysctl -w a="1 2 3"`).
fn shell_words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in cmd.chars() {
        match c {
            '"' | '\'' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

impl Settings {
    fn set_tcp(&mut self, key: &str, v: Value, origin: &str) {
        self.tcp.insert(key.to_string(), (v, origin.to_string()));
    }

    /// A header option line `--name=value`.
    pub fn option(&mut self, name: &str, value: &str) -> SetResult<()> {
        let origin = format!("--{name}={value}");
        match name {
            "tolerance_usecs" => {
                let us = int(name, value)?;
                if us > 1_000_000_000 {
                    return Err(format!(
                        "--tolerance_usecs={value}: at most 1000000000 (1000 s)"
                    ));
                }
                self.tolerance = Duration::from_micros(us as u64);
            }
            "profile" => match value {
                "rfc" | "linux" => self.profile = value.to_string(),
                _ => return Err(format!("--profile={value}: expected rfc or linux")),
            },
            "ip_version" if value == "ipv4" => {}
            _ => {
                if let Some(k) = name.strip_prefix("tcp.") {
                    self.set_tcp(k, toml_value(value), &origin);
                } else if let Some(k) = name.strip_prefix("sctp.") {
                    self.sctp.insert(k.to_string(), (toml_value(value), origin));
                } else {
                    return Err(format!(
                        "unknown option --{name} (tolerance_usecs, profile, ip_version=ipv4, tcp.KEY, sctp.KEY)"
                    ));
                }
            }
        }
        Ok(())
    }

    /// A shell command in backticks: only `sysctl [-q] [-w] name=value ...` is understood.
    pub fn command(&mut self, cmd: &str) -> SetResult<()> {
        for part in cmd.split([';', '\n']).flat_map(|p| p.split("&&")) {
            let words = shell_words(part);
            let Some(first) = words.first() else { continue };
            if first != "sysctl" {
                return Err(format!(
                    "unsupported shell command '{}': only sysctl is understood (docs/scripts.md)",
                    part.trim()
                ));
            }
            for w in &words[1..] {
                if w.starts_with('-') {
                    if !matches!(w.as_str(), "-q" | "-w" | "-e" | "-qw" | "-wq") {
                        return Err(format!("sysctl option {w} is not supported (-q, -w, -e)"));
                    }
                    continue;
                }
                let Some((name, value)) = w.split_once('=') else {
                    return Err(format!("sysctl {w}: expected name=value"));
                };
                self.sysctl(name.trim(), value.trim())?;
            }
        }
        Ok(())
    }

    /// One sysctl, mapped onto the core's options (docs/scripts.md's table).
    pub fn sysctl(&mut self, name: &str, v: &str) -> SetResult<()> {
        let origin = format!("sysctl {name}={v}");
        let o = origin.as_str();
        let n = name.replace('/', ".");
        match n.as_str() {
            "net.ipv4.tcp_sack" => self.set_tcp("sack", flag(&n, v)?, o),
            "net.ipv4.tcp_dsack" => self.set_tcp("dsack", flag(&n, v)?, o),
            "net.ipv4.tcp_window_scaling" => self.set_tcp("window_scaling", flag(&n, v)?, o),
            "net.ipv4.tcp_timestamps" => {
                // Linux: 1 with a random offset, 2 without; rexmit's clock has no offset.
                let on = int(&n, v)? > 0;
                self.set_tcp("timestamps", Value::Boolean(on), o);
            }
            "net.ipv4.tcp_recovery" => {
                let bits = int(&n, v)?;
                if bits & !1 != 0 {
                    return Err(format!(
                        "{origin}: only bit 0x1 (RACK loss detection) is modelled"
                    ));
                }
                self.set_tcp("rack", Value::Boolean(bits & 1 == 1), o);
            }
            "net.ipv4.tcp_early_retrans" => {
                // 3 (Linux's default) and 4: the tail loss probe (RFC 8985 §7); 1 and 2 turned
                // on RFC 5827 early retransmit before Linux 4.x; 0: neither.
                let (tlp, er) = match int(&n, v)? {
                    3 | 4 => (true, false),
                    1 | 2 => (false, true),
                    0 => (false, false),
                    x => return Err(format!("{n}={x}: expected 0..=4")),
                };
                self.set_tcp("tlp", Value::Boolean(tlp), o);
                self.set_tcp("early_retransmit", Value::Boolean(er), o);
            }
            "net.ipv4.tcp_frto" => match int(&n, v)? {
                // RFC 5682 §3's SACK-enhanced F-RTO is rexmit's `frto`.
                0 => self.set_tcp("frto", Value::Boolean(false), o),
                2 => self.set_tcp("frto", Value::Boolean(true), o),
                x => {
                    return Err(format!(
                        "{n}={x}: expected 0 or 2 (the SACK-enhanced F-RTO; Linux's 1, \
                         RFC 5682 §2's basic algorithm, is not modelled)"
                    ))
                }
            },
            "net.ipv4.tcp_ecn" => {
                // Linux: 1 requests ECN, 2 (its default) accepts it only (RFC 3168 §6.1.1).
                let mode = match int(&n, v)? {
                    0 => "off",
                    1 => "on",
                    2 => "accept",
                    x => {
                        return Err(format!(
                            "{n}={x}: expected 0 (off), 1 (request and accept) or 2 (accept only)"
                        ))
                    }
                };
                self.set_tcp("ecn", Value::String(mode.into()), o);
            }
            "net.ipv4.tcp_reordering" => self.set_tcp("dup_thresh", Value::Integer(int(&n, v)?), o),
            "net.ipv4.tcp_max_reordering" => {
                self.set_tcp("max_reordering", Value::Integer(int(&n, v)?), o)
            }
            "net.ipv4.tcp_congestion_control" => {
                self.set_tcp("cc", Value::String(v.to_string()), o)
            }
            "net.ipv4.tcp_thin_linear_timeouts" => {
                self.set_tcp("thin_linear_timeouts", flag(&n, v)?, o)
            }
            "net.ipv4.tcp_thin_dupack" => self.set_tcp("thin_dupack", flag(&n, v)?, o),
            "net.ipv4.tcp_moderate_rcvbuf" => {
                let w = if flag(&n, v)? == Value::Boolean(true) {
                    "linux"
                } else {
                    "buffer"
                };
                self.set_tcp("receive_window", Value::String(w.into()), o);
            }
            "net.ipv4.tcp_rmem" | "net.ipv4.tcp_wmem" => {
                // The third value is the most the buffer grows to; rexmit offers it at once.
                let max = v
                    .split_whitespace()
                    .nth(2)
                    .ok_or_else(|| format!("{origin}: expected three sizes \"min default max\""))?;
                let key = if n.ends_with("rmem") {
                    "recv_buffer"
                } else {
                    "send_buffer"
                };
                self.set_tcp(key, Value::Integer(int(&n, max)?), o);
            }
            "net.ipv4.tcp_retries2" => {
                self.retries2 = Some(int(&n, v)?.min(u32::MAX as i64) as u32);
            }
            "net.ipv4.tcp_slow_start_after_idle" => {
                // Linux's tcp_cwnd_restart is rexmit's idle_restart = "linux".
                let rule = if flag(&n, v)? == Value::Boolean(true) {
                    "linux"
                } else {
                    "off"
                };
                self.set_tcp("idle_restart", Value::String(rule.into()), o);
            }
            "net.ipv4.tcp_fastopen" => {
                if v != "0" {
                    return Err(format!(
                        "{origin}: not modelled by rexmit (only 0 is accepted; docs/scripts.md)"
                    ));
                }
            }
            "net.sctp.rto_initial" | "net.sctp.rto_min" | "net.sctp.rto_max" => {
                let key = format!("rto.{}", &n["net.sctp.rto_".len()..]);
                let ms = int(&n, v)?;
                self.sctp
                    .insert(key, (Value::String(format!("{ms}ms")), origin));
            }
            "net.sctp.sack_timeout" => {
                let ms = int(&n, v)?;
                self.sctp.insert(
                    "sack_delay".into(),
                    (Value::String(format!("{ms}ms")), origin),
                );
            }
            "net.sctp.hb_interval" => {
                let ms = int(&n, v)?;
                self.sctp.insert(
                    "hb_interval".into(),
                    (Value::String(format!("{ms}ms")), origin),
                );
            }
            "net.sctp.max_burst" => {
                self.sctp
                    .insert("max_burst".into(), (Value::Integer(int(&n, v)?), origin));
            }
            "net.sctp.association_max_retrans"
            | "net.sctp.path_max_retrans"
            | "net.sctp.max_init_retransmits" => {
                let key = match n.as_str() {
                    "net.sctp.association_max_retrans" => "assoc_max_retrans",
                    "net.sctp.path_max_retrans" => "path_max_retrans",
                    _ => "max_init_retransmits",
                };
                self.sctp
                    .insert(key.into(), (Value::Integer(int(&n, v)?), origin));
            }
            _ if SKIPPED_SYSCTLS.iter().any(|(s, _)| *s == n) => {}
            _ => {
                return Err(format!(
                    "unknown sysctl {name} (docs/scripts.md lists the ones rexmit maps)"
                ))
            }
        }
        Ok(())
    }

    /// A socket option set before the core exists (`setsockopt`). `level` and `name` are the
    /// symbolic names; `int` the value of `[N]` or `N`, `text` of `"cubic"`.
    pub fn sockopt(&mut self, name: &str, int: Option<i64>, text: Option<&str>) -> SetResult<()> {
        let origin = format!("setsockopt {name}");
        let o = origin.as_str();
        let need = || int.ok_or_else(|| format!("{name}: expected an integer value such as [1]"));
        match name {
            "SO_SNDBUF" => self.set_tcp("send_buffer", Value::Integer(need()?), o),
            "SO_RCVBUF" => self.set_tcp("recv_buffer", Value::Integer(need()?), o),
            "TCP_NODELAY" => self.set_tcp("nagle", Value::Boolean(need()? == 0), o),
            "TCP_MAXSEG" => self.set_tcp("mss", Value::Integer(need()?), o),
            "TCP_CONGESTION" => {
                let cc =
                    text.ok_or_else(|| format!("{name}: expected a name such as \"cubic\""))?;
                self.set_tcp("cc", Value::String(cc.to_string()), o);
            }
            "SO_REUSEADDR" | "SO_REUSEPORT" | "SCTP_NODELAY" => {}
            _ => {
                return Err(format!(
                    "unsupported socket option {name} (docs/scripts.md lists the ones rexmit maps)"
                ))
            }
        }
        Ok(())
    }

    /// The value a socket option has in `cfg` (`getsockopt`, and `setsockopt` of the value a
    /// running core already has). `smss` is the segment size in use.
    pub fn tcp_sockopt_value(name: &str, cfg: &TcpConfig, smss: u64) -> Option<SockVal> {
        Some(match name {
            "SO_SNDBUF" => SockVal::Int(cfg.send_buffer as i64),
            "SO_RCVBUF" => SockVal::Int(cfg.recv_buffer as i64),
            "TCP_NODELAY" => SockVal::Int(!cfg.nagle as i64),
            "TCP_MAXSEG" => SockVal::Int(smss as i64),
            "TCP_CONGESTION" => SockVal::Text(cfg.cc.as_str().to_string()),
            "SO_REUSEADDR" | "SO_REUSEPORT" => SockVal::Int(1),
            _ => return None,
        })
    }

    /// The TCP core's configuration: the profile, then every key the script set.
    pub fn tcp_config(&self) -> SetResult<TcpConfig> {
        let mut t = toml::Table::new();
        t.insert("profile".into(), Value::String(self.profile.clone()));
        let mut tcp = self.tcp.clone();
        // Without SACK there is no RACK, TLP or F-RTO (the core requires SACK recovery for
        // them): a script that turns SACK off, or picks another recovery than RFC 6675's,
        // turns the profile's off with it (and PRR with another recovery), unless it set them
        // itself. A sysctl that turns TLP or F-RTO on does not count: Linux has them on by
        // default and skips them without SACK (tcp_schedule_loss_probe, tcp_enter_loss).
        let sack_off = tcp
            .get("sack")
            .is_some_and(|(v, _)| *v == Value::Boolean(false));
        let not_sack = tcp
            .get("recovery")
            .is_some_and(|(v, _)| *v != Value::String("sack".into()));
        let soft = |k: &str, tcp: &BTreeMap<String, (Value, String)>| match tcp.get(k) {
            None => true,
            Some((v, origin)) => {
                *v == Value::Boolean(true)
                    && matches!(k, "tlp" | "frto")
                    && origin.starts_with("sysctl")
            }
        };
        for k in ["rack", "tlp", "frto", "prr"] {
            let why = if not_sack {
                "recovery not sack"
            } else if sack_off && k != "prr" {
                "sack off"
            } else {
                continue;
            };
            if soft(k, &tcp) {
                tcp.insert(k.into(), (Value::Boolean(false), why.into()));
            }
        }
        for (k, (v, _)) in &tcp {
            insert_dotted(&mut t, k, v.clone());
        }
        let cfg: TcpCfg = Value::Table(t)
            .try_into()
            .map_err(|e| format!("tcp options: {}{}", one_line(&e.to_string()), origins(&tcp)))?;
        let mut c = cfg
            .to_config("tcp")
            .map_err(|e| format!("{e}{}", origins(&tcp)))?;
        if let Some(r) = self.retries2 {
            c.max_retransmissions = r.max(3);
        }
        Ok(c)
    }

    /// The SCTP core's configuration (RFC 9260 defaults and the script's `sctp.` keys).
    pub fn sctp_config(&self) -> SetResult<SctpConfig> {
        let mut t = toml::Table::new();
        for (k, (v, _)) in &self.sctp {
            insert_dotted(&mut t, k, v.clone());
        }
        let cfg: SctpCfg = Value::Table(t).try_into().map_err(|e| {
            format!(
                "sctp options: {}{}",
                one_line(&e.to_string()),
                origins(&self.sctp)
            )
        })?;
        cfg.to_config("sctp")
            .map_err(|e| format!("{e}{}", origins(&self.sctp)))
    }
}

/// A socket option's value as `getsockopt` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SockVal {
    Int(i64),
    Text(String),
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn origins(keys: &BTreeMap<String, (Value, String)>) -> String {
    if keys.is_empty() {
        return String::new();
    }
    let list: Vec<String> = keys
        .iter()
        .map(|(k, (v, o))| format!("{k} = {v} ({o})"))
        .collect();
    format!(" [set by the script: {}]", list.join(", "))
}

fn insert_dotted(t: &mut toml::Table, key: &str, v: Value) {
    match key.split_once('.') {
        Some((head, rest)) => {
            let sub = t
                .entry(head.to_string())
                .or_insert_with(|| Value::Table(toml::Table::new()));
            if let Value::Table(s) = sub {
                insert_dotted(s, rest, v);
            }
        }
        None => {
            t.insert(key.to_string(), v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rexmit_tcp::{CcAlgorithm, RecoveryAlgorithm};

    #[test]
    fn linux_by_default_sysctls_and_options_on_top() {
        let s = Settings::default();
        assert_eq!(s.tcp_config().unwrap(), TcpConfig::linux_values());
        let mut s = Settings::default();
        s.command("sysctl -q net.ipv4.tcp_sack=0; sysctl -q net.ipv4.tcp_congestion_control=reno")
            .unwrap();
        s.option("tcp.recovery", "newreno").unwrap();
        s.option("tcp.rto.min", "\"1s\"").unwrap();
        s.sockopt("TCP_NODELAY", Some(1), None).unwrap();
        let c = s.tcp_config().unwrap();
        assert!(!c.sack && !c.rack && !c.prr && !c.nagle && !c.hystart);
        assert_eq!(
            (c.cc, c.recovery),
            (CcAlgorithm::Reno.into(), RecoveryAlgorithm::NewReno)
        );
        assert_eq!(c.rto.min, Duration::from_secs(1));
        let mut s = Settings::default();
        s.option("profile", "rfc").unwrap();
        assert_eq!(s.tcp_config().unwrap(), TcpConfig::default());
    }

    #[test]
    fn unknown_and_bad_settings_are_named() {
        let mut s = Settings::default();
        assert!(s
            .sysctl("net.ipv4.tcp_nope", "1")
            .unwrap_err()
            .contains("net.ipv4.tcp_nope"));
        assert!(s
            .command("../common/defaults.sh")
            .unwrap_err()
            .contains("only sysctl"));
        assert!(s
            .sysctl("net.ipv4.tcp_sack", "2")
            .unwrap_err()
            .contains("expected 0 or 1"));
        assert!(s
            .sysctl("net.ipv4.tcp_frto", "1")
            .unwrap_err()
            .contains("expected 0 or 2"));
        assert!(s
            .sysctl("net.ipv4.tcp_fastopen", "1")
            .unwrap_err()
            .contains("not modelled"));
        assert!(s
            .sysctl("net.ipv4.tcp_ecn", "3")
            .unwrap_err()
            .contains("2 (accept only)"));
        s.sysctl("net.ipv4.tcp_min_rtt_wlen", "10").unwrap();
        assert!(s.option("bogus", "1").unwrap_err().contains("--bogus"));
        s.sockopt("TCP_MAXSEG", Some(20), None).unwrap();
        let e = s.tcp_config().unwrap_err();
        assert!(
            e.contains("tcp.mss") && e.contains("setsockopt TCP_MAXSEG"),
            "{e}"
        );
        let mut s = Settings::default();
        s.option("tcp.cc", "no_such_cc").unwrap();
        assert!(s.tcp_config().unwrap_err().contains("no_such_cc"));
    }

    #[test]
    fn sctp_sysctls() {
        let mut s = Settings::default();
        s.command("sysctl -w net.sctp.rto_min=200 net.sctp.max_burst=2")
            .unwrap();
        let c = s.sctp_config().unwrap();
        assert_eq!((c.rto.min, c.max_burst), (Duration::from_millis(200), 2));
    }
}
