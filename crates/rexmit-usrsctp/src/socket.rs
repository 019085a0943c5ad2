//! A usrsctp socket: the few calls an agent makes, with errors as `StackError`. Every socket is
//! non-blocking (a blocking call would wait for a thread the stack does not have). Calls must
//! be made inside `StackRun::call`, which sets the clock and collects what the stack sends.

use crate::error::StackError;
use crate::ffi::{
    self, SctpPaddrinfo, SctpRcvinfo, SctpSndinfo, SctpStatus, SockaddrConn, SockaddrStorage,
    Socket,
};
use crate::library::Lib;
use std::ffi::{c_int, c_uint, c_void};
use std::net::Ipv4Addr;

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

fn fail(what: impl Into<String>) -> StackError {
    StackError::Call {
        what: what.into(),
        errno: errno(),
    }
}

fn inet(lib: &Lib) -> Result<&crate::inet::InetLib, StackError> {
    lib.inet.as_ref().map_err(|e| StackError::Call {
        what: format!("IPv4 inside usrsctp (needed for several paths) is unavailable: {e}"),
        errno: libc::EAFNOSUPPORT,
    })
}

/// What one `recv` returned.
#[derive(Clone, Copy, Debug)]
pub struct Received {
    pub len: usize,
    /// The end of a message (MSG_EOR).
    pub end_of_message: bool,
    /// A notification, not user data.
    pub notification: bool,
    /// The message's stream, PPID and first TSN (user data only).
    pub info: SctpRcvinfo,
}

/// An open usrsctp socket (closed by the run, see `StackRun::adopt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sock(pub *mut Socket);

impl Sock {
    /// A one-to-one (SOCK_STREAM) socket of `family` (AF_CONN or AF_INET), non-blocking.
    pub fn open(lib: &Lib, family: c_int) -> Result<Sock, StackError> {
        // SAFETY: no callbacks: the socket is polled.
        let so = unsafe {
            (lib.socket)(
                family,
                ffi::SOCK_STREAM,
                ffi::IPPROTO_SCTP,
                None,
                None,
                0,
                std::ptr::null_mut(),
            )
        };
        if so.is_null() {
            return Err(fail("usrsctp_socket"));
        }
        let s = Sock(so);
        s.non_blocking(lib)?;
        Ok(s)
    }

    pub(crate) fn non_blocking(&self, lib: &Lib) -> Result<(), StackError> {
        // SAFETY: a live socket.
        if unsafe { (lib.set_non_blocking)(self.0, 1) } != 0 {
            return Err(fail("usrsctp_set_non_blocking"));
        }
        Ok(())
    }

    /// Set an option from a plain C structure.
    pub fn set<T: Copy>(
        &self,
        lib: &Lib,
        level: c_int,
        opt: c_int,
        value: &T,
        what: &str,
    ) -> Result<(), StackError> {
        // SAFETY: `value` is a C structure of the size passed.
        let r = unsafe {
            (lib.setsockopt)(
                self.0,
                level,
                opt,
                value as *const T as *const c_void,
                std::mem::size_of::<T>() as u32,
            )
        };
        if r != 0 {
            return Err(fail(format!("setting {what}")));
        }
        Ok(())
    }

    /// Read an option into `value` (which carries the request's inputs, e.g. an address).
    pub fn get<T: Copy>(&self, lib: &Lib, level: c_int, opt: c_int, value: &mut T) -> bool {
        let mut len = std::mem::size_of::<T>() as u32;
        // SAFETY: `value` is a C structure of `len` bytes.
        unsafe {
            (lib.getsockopt)(self.0, level, opt, value as *mut T as *mut c_void, &mut len) == 0
        }
    }

    /// Bind `port` on every AF_CONN address the stack knows (usrsctp 0.9.5's bindx takes no
    /// AF_CONN addresses; ports are unique per endpoint in a run, so this is unambiguous).
    pub fn bind_any(&self, lib: &Lib, port: u16) -> Result<(), StackError> {
        let mut sa = SockaddrConn::new(0, port);
        // SAFETY: one sockaddr_conn of its size.
        if unsafe { (lib.bind)(self.0, &mut sa, std::mem::size_of::<SockaddrConn>() as u32) } != 0 {
            return Err(fail("usrsctp_bind"));
        }
        Ok(())
    }

    /// Bind `port` on each IPv4 address of `addrs` (the stack's interface addresses).
    pub fn bind_ip(&self, lib: &Lib, addrs: &[Ipv4Addr], port: u16) -> Result<(), StackError> {
        self.with_ipv4(lib, addrs, port, "usrsctp_bindx", |inet, sas, n| {
            // SAFETY: an array of `n` IPv4 socket addresses.
            unsafe { (inet.bindx)(self.0, sas, n, crate::inet::InetLib::BINDX_ADD) }
        })
    }

    /// Start an association to the peer's IPv4 addresses (the first is the primary).
    pub fn connect_ip(&self, lib: &Lib, addrs: &[Ipv4Addr], port: u16) -> Result<(), StackError> {
        self.with_ipv4(lib, addrs, port, "usrsctp_connectx", |inet, sas, n| {
            let mut id = 0u32;
            // SAFETY: an array of `n` IPv4 socket addresses.
            let r = unsafe { (inet.connectx)(self.0, sas, n, &mut id) };
            if r != 0 && errno() == ffi::EINPROGRESS {
                0
            } else {
                r
            }
        })
    }

    /// Call `f` with `addrs` and `port` as an array of IPv4 socket addresses.
    fn with_ipv4(
        &self,
        lib: &Lib,
        addrs: &[Ipv4Addr],
        port: u16,
        what: &str,
        f: impl FnOnce(&crate::inet::InetLib, *const libc::sockaddr_in, c_int) -> c_int,
    ) -> Result<(), StackError> {
        let inet = inet(lib)?;
        let sas = crate::inet::sockaddrs(addrs, port);
        if f(inet, sas.as_ptr(), sas.len() as c_int) != 0 {
            return Err(fail(what));
        }
        Ok(())
    }

    pub fn listen(&self, lib: &Lib) -> Result<(), StackError> {
        // SAFETY: a bound socket.
        if unsafe { (lib.listen)(self.0, 1) } != 0 {
            return Err(fail("usrsctp_listen"));
        }
        Ok(())
    }

    /// The association a listening socket has accepted, if one is ready.
    pub fn accept(&self, lib: &Lib) -> Option<Sock> {
        // SAFETY: a listening, non-blocking socket; no address wanted.
        let so = unsafe { (lib.accept)(self.0, std::ptr::null_mut(), std::ptr::null_mut()) };
        (!so.is_null()).then_some(Sock(so))
    }

    /// Start an association to the peer at AF_CONN address `addr`.
    pub fn connect(&self, lib: &Lib, addr: usize, port: u16) -> Result<(), StackError> {
        let sa = SockaddrConn::new(addr, port);
        // SAFETY: one sockaddr_conn of its size.
        let r = unsafe { (lib.connect)(self.0, &sa, std::mem::size_of::<SockaddrConn>() as u32) };
        if r != 0 && errno() != ffi::EINPROGRESS {
            return Err(fail("usrsctp_connect"));
        }
        Ok(())
    }

    /// Send one message; `Err(errno)` when refused (EWOULDBLOCK: no room yet).
    pub fn send(&self, lib: &Lib, data: &[u8], info: &SctpSndinfo) -> Result<usize, i32> {
        let mut info = *info;
        // SAFETY: `data` and `info` are valid for the call; no destination (connected).
        let r = unsafe {
            (lib.sendv)(
                self.0,
                data.as_ptr() as *const c_void,
                data.len(),
                std::ptr::null_mut(),
                0,
                &mut info as *mut SctpSndinfo as *mut c_void,
                std::mem::size_of::<SctpSndinfo>() as u32,
                ffi::SCTP_SENDV_SNDINFO,
                0,
            )
        };
        if r < 0 {
            Err(errno())
        } else {
            Ok(r as usize)
        }
    }

    /// Read what is ready (user data or a notification) into `buf`.
    pub fn recv(&self, lib: &Lib, buf: &mut [u8]) -> Option<Received> {
        let mut info = SctpRcvinfo::default();
        let mut infolen = std::mem::size_of::<SctpRcvinfo>() as u32;
        let mut infotype: c_uint = 0;
        let mut flags: c_int = 0;
        let mut from = SockaddrStorage::zeroed();
        let mut fromlen = std::mem::size_of::<SockaddrStorage>() as u32;
        // SAFETY: every pointer is valid for the sizes given.
        let n = unsafe {
            (lib.recvv)(
                self.0,
                buf.as_mut_ptr() as *mut c_void,
                buf.len(),
                &mut from as *mut SockaddrStorage as *mut c_void,
                &mut fromlen,
                &mut info,
                &mut infolen,
                &mut infotype,
                &mut flags,
            )
        };
        if n < 0 {
            return None;
        }
        Some(Received {
            len: n as usize,
            end_of_message: flags & ffi::MSG_EOR != 0,
            notification: flags & ffi::MSG_NOTIFICATION != 0,
            info: if infotype == ffi::SCTP_RECVV_RCVINFO {
                info
            } else {
                SctpRcvinfo::default()
            },
        })
    }

    /// SCTP_STATUS of the socket's association.
    pub fn status(&self, lib: &Lib) -> Option<SctpStatus> {
        // SAFETY: SctpStatus is plain data; all-zero asks for the socket's association.
        let mut st: SctpStatus = unsafe { std::mem::zeroed() };
        self.get(lib, ffi::IPPROTO_SCTP, ffi::opt::SCTP_STATUS, &mut st)
            .then_some(st)
    }

    /// SCTP_GET_PEER_ADDR_INFO of the path to `addr`.
    pub fn path_info(&self, lib: &Lib, addr: SockaddrStorage) -> Option<SctpPaddrinfo> {
        // SAFETY: plain data.
        let mut pi: SctpPaddrinfo = unsafe { std::mem::zeroed() };
        pi.spinfo_address = addr;
        self.get(
            lib,
            ffi::IPPROTO_SCTP,
            ffi::opt::SCTP_GET_PEER_ADDR_INFO,
            &mut pi,
        )
        .then_some(pi)
    }
}
