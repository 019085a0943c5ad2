//! Network namespaces of real hosts: created here, configured only from inside (addresses,
//! routes and sysctls of a namespace never reach the host's), and removed when dropped. A
//! namespace is named `rexmit-<pid>-<n>`; `sweep_stale` removes those whose process is gone
//! (a run that crashed or was killed), and never one of a live process.

use crate::sys;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

pub const PREFIX: &str = "rexmit-";

/// A namespace this process created; removed on drop.
#[derive(Debug)]
pub struct Namespace {
    pub name: String,
}

fn ip(args: &[&str]) -> io::Result<()> {
    let out = Command::new(crate::which("ip").unwrap_or_else(|| "ip".into()))
        .args(args)
        .output()?;
    if out.status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

impl Namespace {
    /// Create the next namespace of this process, with its loopback up and IPv6 off (a TUN
    /// device would otherwise send router solicitations into the simulated network).
    pub fn create() -> io::Result<Namespace> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = format!("{PREFIX}{}-{n}", std::process::id());
        ip(&["netns", "add", &name])?;
        let ns = Namespace { name };
        ns.ip(&["link", "set", "lo", "up"])?;
        ns.sysctl("net.ipv6.conf.all.disable_ipv6", "1")?;
        ns.sysctl("net.ipv6.conf.default.disable_ipv6", "1")?;
        Ok(ns)
    }

    /// `ip -n <ns> ...`: runs inside the namespace.
    pub fn ip(&self, args: &[&str]) -> io::Result<()> {
        let mut all = vec!["-n", self.name.as_str()];
        all.extend_from_slice(args);
        ip(&all)
    }

    /// Write a sysctl of this namespace (`net.ipv4.tcp_sack` ...) from a thread inside it, after
    /// checking that the thread really left the host's namespace.
    pub fn sysctl(&self, key: &str, value: &str) -> io::Result<()> {
        if !key.starts_with("net.") || key.contains("..") || key.contains('/') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{key}: only net.* sysctls of the namespace are set"),
            ));
        }
        let path = format!("/proc/sys/{}", key.replace('.', "/"));
        sys::in_netns(&self.name, || {
            ensure_outside_host_netns()?;
            std::fs::write(&path, value)?;
            let back = std::fs::read_to_string(&path)?;
            if back.split_whitespace().collect::<Vec<_>>()
                != value.split_whitespace().collect::<Vec<_>>()
            {
                return Err(io::Error::other(format!(
                    "{key}: wrote {value:?}, reads back {:?}",
                    back.trim()
                )));
            }
            Ok(())
        })
    }

    /// Read a sysctl of this namespace.
    pub fn read_sysctl(&self, key: &str) -> io::Result<String> {
        let path = format!("/proc/sys/{}", key.replace('.', "/"));
        sys::in_netns(&self.name, || {
            ensure_outside_host_netns()?;
            Ok(std::fs::read_to_string(&path)?
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "))
        })
    }

    /// Open TUN device `dev` inside the namespace.
    pub fn open_tun(&self, dev: &str) -> io::Result<std::fs::File> {
        sys::in_netns(&self.name, || {
            ensure_outside_host_netns()?;
            sys::open_tun(dev)
        })
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        let _ = ip(&["netns", "del", &self.name]);
    }
}

/// The calling thread's network namespace differs from the process's (the host's).
fn ensure_outside_host_netns() -> io::Result<()> {
    let here = std::fs::metadata("/proc/thread-self/ns/net")?.ino();
    let host = std::fs::metadata("/proc/self/ns/net")?.ino();
    if here == host {
        return Err(io::Error::other(
            "refusing to configure the host's own network namespace",
        ));
    }
    Ok(())
}

/// Remove namespaces `rexmit-<pid>-<n>` whose process no longer exists; returns their names.
pub fn sweep_stale() -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/run/netns") else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = stale_pid(&name) else {
            continue;
        };
        if !std::path::Path::new(&format!("/proc/{pid}")).exists()
            && ip(&["netns", "del", &name]).is_ok()
        {
            removed.push(name);
        }
    }
    removed
}

/// The pid in a name of ours, `rexmit-<pid>-<n>`.
fn stale_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    let (pid, n) = rest.split_once('-')?;
    n.parse::<u32>().ok()?;
    pid.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_of_the_form_rexmit_pid_n_are_swept() {
        assert_eq!(stale_pid("rexmit-1234-0"), Some(1234));
        assert_eq!(stale_pid("rexmit-1234"), None);
        assert_eq!(stale_pid("rexmit-abc-0"), None);
        assert_eq!(stale_pid("other-1234-0"), None);
        assert_eq!(stale_pid("rexmit-1234-x"), None);
    }
}
