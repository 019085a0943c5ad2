//! Emulation: hosts of a scenario marked real run the Linux kernel's TCP, each in a network
//! namespace of its own behind a TUN device; the rest of the network (links, queues, error
//! models, reordering, simulated hosts) is rexmit's, run in real time against the wall clock.
//!
//! Owns: the namespaces and TUN devices (created, configured and removed here, and nothing
//! else on the machine: see `netns`), the real-time pacer of the run loop with its lateness
//! accounting (`clock`), the bridge between TUN bytes and simulated packets (`bridge`), the
//! kernel-socket bulk sender and receiver (`linux_tcp`), and the run that ties them to a
//! scenario (`run`). Does not own: protocol behaviour (no protocol crate knows emulation
//! exists), the network model, or the scenario schema.

pub mod bridge;
pub mod clock;
pub mod linux_tcp;
pub mod netns;
pub mod run;
mod sys;

pub use run::{emulate, EmulationError};

/// Why emulation cannot run on this machine, said plainly; `None` when it can (root, or at
/// least CAP_NET_ADMIN and CAP_SYS_ADMIN, and a usable /dev/net/tun).
pub fn unavailable_reason() -> Option<String> {
    if !std::path::Path::new("/dev/net/tun").exists() {
        return Some(
            "emulation needs /dev/net/tun (the TUN driver), which this machine does not have"
                .into(),
        );
    }
    if !sys::has_admin_capabilities() {
        return Some("emulation needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) to create network namespaces and TUN devices".into());
    }
    if let Err(e) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/net/tun")
    {
        return Some(format!("emulation cannot open /dev/net/tun: {e}"));
    }
    if which("ip").is_none() {
        return Some("emulation needs the `ip` command (Debian package iproute2)".into());
    }
    None
}

fn which(cmd: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/sbin:/usr/bin:/sbin:/bin".into());
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/sbin".into()])
        .map(|d| d.join(cmd))
        .find(|p| p.is_file())
}
