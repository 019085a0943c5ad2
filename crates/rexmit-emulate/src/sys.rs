//! The few system calls emulation needs, each wrapped once: entering a network namespace
//! (setns), opening a TUN device, polling with a nanosecond timeout, the timer slack, and the
//! capability check.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::time::Duration;

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// Effective capabilities include CAP_NET_ADMIN (12) and CAP_SYS_ADMIN (21).
pub fn has_admin_capabilities() -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    let Some(hex) = status.lines().find_map(|l| l.strip_prefix("CapEff:")) else {
        return false;
    };
    let caps = u64::from_str_radix(hex.trim(), 16).unwrap_or(0);
    caps & (1 << 12) != 0 && caps & (1 << 21) != 0
}

/// Move the calling thread into the network namespace `ns` (a file under /run/netns).
pub fn enter_netns(ns: &str) -> io::Result<()> {
    let f = File::open(format!("/run/netns/{ns}"))?;
    cvt(unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) }).map(|_| ())
}

/// Run `f` on a thread of its own inside namespace `ns` (threads, not the caller, change
/// namespace: the caller stays in the host's).
pub fn in_netns<T: Send>(ns: &str, f: impl FnOnce() -> io::Result<T> + Send) -> io::Result<T> {
    std::thread::scope(|sc| {
        sc.spawn(|| {
            enter_netns(ns)?;
            f()
        })
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("namespace thread panicked")))
    })
}

const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;
/// _IOW('T', 202, int)
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;

#[repr(C)]
struct IfReq {
    name: [u8; 16],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// Create TUN device `name` (no packet information header) in the calling thread's network
/// namespace; non-blocking. The device lives as long as the returned file.
pub fn open_tun(name: &str) -> io::Result<File> {
    if name.len() >= 16 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "TUN name longer than 15 bytes",
        ));
    }
    let fd = cvt(unsafe {
        libc::open(
            c"/dev/net/tun".as_ptr(),
            libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
        )
    })?;
    let file = unsafe { File::from_raw_fd(fd) };
    let mut req = IfReq {
        name: [0; 16],
        flags: IFF_TUN | IFF_NO_PI,
        _pad: [0; 22],
    };
    req.name[..name.len()].copy_from_slice(name.as_bytes());
    cvt(unsafe { libc::ioctl(fd, TUNSETIFF as _, &mut req as *mut IfReq) })?;
    Ok(file)
}

/// Wait until one of `fds` is readable or `timeout` passes; returns the readable ones.
pub fn poll_readable(fds: &[RawFd], timeout: Duration, out: &mut Vec<usize>) -> io::Result<()> {
    out.clear();
    let mut p: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    let r = unsafe {
        libc::ppoll(
            p.as_mut_ptr(),
            p.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
    if r < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::Interrupted {
            Ok(())
        } else {
            Err(e)
        };
    }
    out.extend(
        p.iter()
            .enumerate()
            .filter(|(_, p)| p.revents & libc::POLLIN != 0)
            .map(|(i, _)| i),
    );
    Ok(())
}

/// Set the calling thread's timer slack (how late the kernel may wake a sleep); returns the
/// previous value, to restore it.
pub fn set_timer_slack(ns: u64) -> u64 {
    unsafe {
        let old = libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0);
        libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0);
        old.max(0) as u64
    }
}

/// `setsockopt` of a plain value.
pub fn setsockopt<T>(fd: RawFd, level: libc::c_int, name: libc::c_int, v: &T) -> io::Result<()> {
    cvt(unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            v as *const T as *const libc::c_void,
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    })
    .map(|_| ())
}

/// `getsockopt` into a byte buffer; returns the length the kernel filled.
pub fn getsockopt_bytes(
    fd: RawFd,
    level: libc::c_int,
    name: libc::c_int,
    buf: &mut [u8],
) -> io::Result<usize> {
    let mut len = buf.len() as libc::socklen_t;
    cvt(unsafe {
        libc::getsockopt(
            fd,
            level,
            name,
            buf.as_mut_ptr() as *mut libc::c_void,
            &mut len,
        )
    })?;
    Ok(len as usize)
}
