//! IPv4 addresses inside the stack, for multihomed associations.
//!
//! usrsctp 0.9.5 gives an AF_CONN association exactly one path: `usrsctp_bindx` and
//! `usrsctp_connectx` refuse AF_CONN addresses (user_socket.c screens for AF_INET and AF_INET6
//! only, and the stack's own connectx helpers know no AF_CONN), and AF_CONN addresses are never
//! listed in INIT or INIT-ACK, so neither end can learn a second one. With IPv4 addresses the
//! stack is multihomed as FreeBSD is, but IPv4 normally leaves and enters through raw sockets
//! that only the stack's threads open. So, for a run that needs it: the run's node addresses
//! become the stack's interface addresses (`sctp_add_addr_to_vrf`), the stack's IPv4 output
//! routine is redirected here (`redirect.rs`), and a packet from the simulation enters through
//! `sctp_common_input_processing`, as the raw-socket receive thread would hand it over.
//!
//! These are internal functions of the library (exported, not part of its API): their
//! signatures are those of usrsctp 0.9.5's source. The packet is moved in and out of the stack's
//! mbufs with its own copy routines, so no mbuf layout is assumed.

use std::ffi::{c_char, c_int, c_void};
use std::net::Ipv4Addr;
use std::sync::OnceLock;

type Mbuf = c_void;

/// The internal functions IPv4 hosting needs.
pub struct InetLib {
    add_addr_to_vrf: unsafe extern "C" fn(
        u32,
        *mut c_void,
        u32,
        u32,
        *const c_char,
        *mut c_void,
        *const libc::sockaddr_in,
        u32,
        c_int,
    ) -> *mut c_void,
    input: unsafe extern "C" fn(
        *mut *mut Mbuf,
        c_int,
        c_int,
        c_int,
        *const libc::sockaddr_in,
        *const libc::sockaddr_in,
        *mut u8,
        *mut u8,
        u8,
        u8,
        u32,
        u16,
    ),
    get_mbuf: unsafe extern "C" fn(u32, c_int, c_int, c_int, c_int) -> *mut Mbuf,
    copyback: unsafe extern "C" fn(*mut Mbuf, c_int, c_int, *const c_char),
    pub(crate) bindx: unsafe extern "C" fn(
        *mut crate::ffi::Socket,
        *const libc::sockaddr_in,
        c_int,
        c_int,
    ) -> c_int,
    pub(crate) connectx: unsafe extern "C" fn(
        *mut crate::ffi::Socket,
        *const libc::sockaddr_in,
        c_int,
        *mut u32,
    ) -> c_int,
}

/// What the redirected output routine needs to read and free the stack's packet.
#[derive(Clone, Copy)]
pub(crate) struct MbufCopy {
    pub(crate) copydata: unsafe extern "C" fn(*const Mbuf, c_int, c_int, *mut c_char),
    pub(crate) calculate_len: unsafe extern "C" fn(*const Mbuf) -> u32,
    pub(crate) freem: unsafe extern "C" fn(*mut Mbuf),
}

pub(crate) static MBUF_COPY: OnceLock<MbufCopy> = OnceLock::new();

const M_NOWAIT: c_int = 1;
const MT_DATA: c_int = 1;
const WANT_HEADER: c_int = 1;
const SCTP_DEFAULT_VRFID: u32 = 0;
const SCTP_BINDX_ADD_ADDR: c_int = 0x8001;

/// The stack's IPv4 output (`sctp_userspace_ip_output`), redirected: the packet (IPv4 header
/// and SCTP) is copied out of its mbuf chain into the run's outbox, and the chain freed.
pub(crate) unsafe extern "C" fn sim_ip_output(
    result: *mut c_int,
    o_pak: *mut Mbuf,
    _ro: *mut c_void,
    _stcb: *mut c_void,
    _vrf_id: u32,
) {
    if !result.is_null() {
        // SAFETY: the stack passes its result variable.
        unsafe { *result = 0 };
    }
    let Some(m) = MBUF_COPY.get() else { return };
    if o_pak.is_null() {
        return;
    }
    // SAFETY: `o_pak` is the stack's packet chain, ours to free once copied.
    unsafe {
        let len = (m.calculate_len)(o_pak) as usize;
        let mut bytes = vec![0u8; len];
        (m.copydata)(o_pak, 0, len as c_int, bytes.as_mut_ptr() as *mut c_char);
        (m.freem)(o_pak);
        let tos = bytes.get(1).copied().unwrap_or(0);
        crate::outbox::queue_output(0, tos, bytes);
    }
}

fn sockaddr(ip: Ipv4Addr, port_be: u16) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port_be,
        sin_addr: libc::in_addr {
            s_addr: u32::from(ip).to_be(),
        },
        sin_zero: [0; 8],
    }
}

/// IPv4 socket addresses of `addrs` with `port`, for bindx and connectx.
pub(crate) fn sockaddrs(addrs: &[Ipv4Addr], port: u16) -> Vec<libc::sockaddr_in> {
    addrs.iter().map(|&a| sockaddr(a, port.to_be())).collect()
}

/// A symbol's address as a function pointer type.
fn cast<T: Copy>(p: *mut c_void) -> T {
    assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: `T` is the declared signature of the usrsctp 0.9.5 function at `p`.
    unsafe { std::mem::transmute_copy::<*mut c_void, T>(&p) }
}

impl InetLib {
    pub(crate) fn load(
        sym: &dyn Fn(&'static str) -> Option<*mut c_void>,
    ) -> Result<(InetLib, MbufCopy), &'static str> {
        /// The symbol `$name` as the function type of the field it fills.
        macro_rules! get {
            ($name:literal) => {
                cast(sym($name).ok_or($name)?)
            };
        }
        Ok((
            InetLib {
                add_addr_to_vrf: get!("sctp_add_addr_to_vrf"),
                input: get!("sctp_common_input_processing"),
                get_mbuf: get!("sctp_get_mbuf_for_msg"),
                copyback: get!("m_copyback"),
                bindx: get!("usrsctp_bindx"),
                connectx: get!("usrsctp_connectx"),
            },
            MbufCopy {
                copydata: get!("m_copydata"),
                calculate_len: get!("sctp_calculate_len"),
                freem: get!("m_freem"),
            },
        ))
    }

    /// Make `ip` one of the stack's interface addresses.
    pub(crate) fn add_address(&self, ip: Ipv4Addr) {
        let sin = sockaddr(ip, 0);
        // SAFETY: as usrsctp_register_address does for AF_CONN: default VRF, no interface
        // object, the interface index "none", added at once (not dynamically).
        unsafe {
            (self.add_addr_to_vrf)(
                SCTP_DEFAULT_VRFID,
                std::ptr::null_mut(),
                0xffff_ffff,
                0,
                c"rexmit".as_ptr(),
                std::ptr::null_mut(),
                &sin,
                0,
                0,
            )
        };
    }

    /// Hand the stack an IPv4 packet from the simulation (header without options from rexmit's
    /// encoder, checksums already verified by the simulated network: the stack does not check
    /// the CRC32c again).
    pub(crate) fn input(&self, packet: &mut [u8]) {
        let ihl = usize::from(packet.first().copied().unwrap_or(0) & 0x0f) * 4;
        if ihl < 20 || packet.len() < ihl + 16 {
            return;
        }
        let ip =
            |at: usize| Ipv4Addr::new(packet[at], packet[at + 1], packet[at + 2], packet[at + 3]);
        let port = |at: usize| u16::from_ne_bytes([packet[at], packet[at + 1]]);
        let src = sockaddr(ip(12), port(ihl));
        let dst = sockaddr(ip(16), port(ihl + 2));
        let len = packet.len() as c_int;
        // The IPv4 header's ECN field, as FreeBSD's ip input passes it on (sctp_input.c reads
        // `ip_tos`): a CE mark is echoed in an ECNE chunk.
        let ecn_bits = packet[1] & 0b11;
        // SAFETY: a fresh packet-header mbuf, filled by the stack's own copy routine (which
        // extends the chain as needed); the common header and first chunk header are passed
        // from `packet`, identical bytes, read-only when no checksum is computed. The stack
        // frees the chain unless it hands it back.
        unsafe {
            let mut m = (self.get_mbuf)(1, WANT_HEADER, M_NOWAIT, 0, MT_DATA);
            if m.is_null() {
                return;
            }
            (self.copyback)(m, 0, len, packet.as_ptr() as *const c_char);
            let sh = packet.as_mut_ptr().add(ihl);
            let ch = sh.add(12);
            (self.input)(
                &mut m,
                ihl as c_int,
                (ihl + 12) as c_int,
                len,
                &src,
                &dst,
                sh,
                ch,
                0,
                ecn_bits,
                SCTP_DEFAULT_VRFID,
                0,
            );
            if !m.is_null() {
                if let Some(c) = MBUF_COPY.get() {
                    (c.freem)(m);
                }
            }
        }
    }

    pub(crate) const BINDX_ADD: c_int = SCTP_BINDX_ADD_ADDR;
}
