//! The C interface of usrsctp that rexmit uses, declared by hand from the library's public API
//! (usrsctp 0.9.5 as Debian packages it, `libusrsctp.so.2`): the structures passed to and from
//! its socket calls, the option and flag numbers, and the signatures of the functions
//! `library.rs` looks up at run time. Only what the agents need is here.
//!
//! Layouts are those of the Linux/x86-64 build (no `sconn_len`, natural alignment); the tests at
//! the bottom pin the sizes and offsets measured against the installed header.

use std::ffi::{c_int, c_uint, c_void};

/// The address family of application-driven ("connection") addresses: packets leave through
/// the output callback and arrive through `usrsctp_conninput`.
pub const AF_CONN: c_int = 123;
pub const AF_INET: c_int = 2;
pub const SOCK_STREAM: c_int = 1;
pub const IPPROTO_SCTP: c_int = 132;

/// `usrsctp_setsockopt` levels and socket-level options (Linux numbering, as the library was
/// built on Linux).
pub const SOL_SOCKET: c_int = 1;
pub const SO_SNDBUF: c_int = 7;
pub const SO_RCVBUF: c_int = 8;
pub const SO_LINGER: c_int = 13;

/// SCTP-level socket options (RFC 6458 §8 and FreeBSD's extensions).
pub mod opt {
    use std::ffi::c_int;
    pub const SCTP_RTOINFO: c_int = 0x01;
    pub const SCTP_ASSOCINFO: c_int = 0x02;
    pub const SCTP_INITMSG: c_int = 0x03;
    pub const SCTP_NODELAY: c_int = 0x04;
    pub const SCTP_PEER_ADDR_PARAMS: c_int = 0x0a;
    pub const SCTP_DELAYED_SACK: c_int = 0x0f;
    pub const SCTP_MAX_BURST: c_int = 0x19;
    pub const SCTP_EVENT: c_int = 0x1e;
    pub const SCTP_RECVRCVINFO: c_int = 0x1f;
    pub const SCTP_PEER_ADDR_THLDS: c_int = 0x23;
    pub const SCTP_ECN_SUPPORTED: c_int = 0x25;
    pub const SCTP_NRSACK_SUPPORTED: c_int = 0x30;
    pub const SCTP_STATUS: c_int = 0x100;
    pub const SCTP_GET_PEER_ADDR_INFO: c_int = 0x101;
    pub const SCTP_CMT_ON_OFF: c_int = 0x1200;
}

/// `spp_flags` of `sctp_paddrparams`.
pub const SPP_HB_ENABLE: u32 = 0x01;
pub const SPP_HB_DISABLE: u32 = 0x02;
pub const SPP_PMTUD_DISABLE: u32 = 0x10;

/// Notification types (`sctp_tlv.sn_type`) and `sac_state` values of an association change.
pub const SCTP_ASSOC_CHANGE: u16 = 0x0001;
pub const SCTP_PEER_ADDR_CHANGE: u16 = 0x0002;
pub const SCTP_COMM_UP: u16 = 0x0001;
pub const SCTP_COMM_LOST: u16 = 0x0002;
pub const SCTP_RESTART: u16 = 0x0003;
pub const SCTP_SHUTDOWN_COMP: u16 = 0x0004;
pub const SCTP_CANT_STR_ASSOC: u16 = 0x0005;

/// `snd_flags` of `sctp_sndinfo`.
pub const SCTP_UNORDERED: u16 = 0x0400;
/// `usrsctp_sendv` info type carrying a `sctp_sndinfo`.
pub const SCTP_SENDV_SNDINFO: c_uint = 1;
/// `usrsctp_recvv` info type of a `sctp_rcvinfo`.
pub const SCTP_RECVV_RCVINFO: c_uint = 1;
/// `msg_flags` of `usrsctp_recvv`.
pub const MSG_NOTIFICATION: c_int = 0x2000;
pub const MSG_EOR: c_int = 0x80;

/// Association id for options of the socket's future associations.
pub const SCTP_FUTURE_ASSOC: u32 = 0;
/// `sstat_state` of `SCTP_STATUS`.
pub const SCTP_ESTABLISHED: i32 = 0x0008;
/// `spinfo_state` of a path.
pub const SCTP_ACTIVE: i32 = 0x0001;
pub const SCTP_UNCONFIRMED: i32 = 0x0200;

/// errno values the non-blocking calls return (Linux).
pub const EWOULDBLOCK: c_int = 11;
pub const EINPROGRESS: c_int = 115;

/// An opaque usrsctp socket.
#[repr(C)]
pub struct Socket {
    _private: [u8; 0],
}

/// An AF_CONN address: `sconn_addr` is an opaque pointer the application chooses; the port is
/// in network byte order.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SockaddrConn {
    pub sconn_family: u16,
    pub sconn_port: u16,
    pub sconn_addr: *mut c_void,
}

impl SockaddrConn {
    pub fn new(addr: usize, port: u16) -> Self {
        SockaddrConn {
            sconn_family: AF_CONN as u16,
            sconn_port: port.to_be(),
            sconn_addr: addr as *mut c_void,
        }
    }
}

/// `struct sockaddr_storage`: 128 bytes, 8-byte aligned.
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct SockaddrStorage {
    pub bytes: [u8; 128],
}

impl SockaddrStorage {
    pub fn zeroed() -> Self {
        SockaddrStorage { bytes: [0; 128] }
    }
    pub fn from_conn(a: &SockaddrConn) -> Self {
        let mut s = Self::zeroed();
        // SAFETY: SockaddrConn is 16 plain bytes and fits in the storage.
        unsafe { std::ptr::write(s.bytes.as_mut_ptr() as *mut SockaddrConn, *a) };
        s
    }
    pub fn from_ipv4(ip: std::net::Ipv4Addr, port: u16) -> Self {
        let mut s = Self::zeroed();
        s.bytes[..2].copy_from_slice(&(AF_INET as u16).to_ne_bytes());
        s.bytes[2..4].copy_from_slice(&port.to_be_bytes());
        s.bytes[4..8].copy_from_slice(&ip.octets());
        s
    }

    /// The AF_CONN address stored here, if it is one.
    pub fn conn_addr(&self) -> Option<usize> {
        // SAFETY: 16 bytes of plain data read from a 128-byte, 8-aligned buffer.
        let a = unsafe { std::ptr::read(self.bytes.as_ptr() as *const SockaddrConn) };
        (a.sconn_family == AF_CONN as u16).then_some(a.sconn_addr as usize)
    }
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct Linger {
    pub l_onoff: c_int,
    pub l_linger: c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct SctpInitmsg {
    pub sinit_num_ostreams: u16,
    pub sinit_max_instreams: u16,
    pub sinit_max_attempts: u16,
    pub sinit_max_init_timeo: u16,
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct SctpRtoinfo {
    pub srto_assoc_id: u32,
    pub srto_initial: u32,
    pub srto_max: u32,
    pub srto_min: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct SctpAssocparams {
    pub sasoc_assoc_id: u32,
    pub sasoc_peer_rwnd: u32,
    pub sasoc_local_rwnd: u32,
    pub sasoc_cookie_life: u32,
    pub sasoc_asocmaxrxt: u16,
    pub sasoc_number_peer_destinations: u16,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct SctpPaddrparams {
    pub spp_address: SockaddrStorage,
    pub spp_assoc_id: u32,
    pub spp_hbinterval: u32,
    pub spp_pathmtu: u32,
    pub spp_flags: u32,
    pub spp_ipv6_flowlabel: u32,
    pub spp_pathmaxrxt: u16,
    pub spp_dscp: u8,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct SctpPaddrthlds {
    pub spt_address: SockaddrStorage,
    pub spt_assoc_id: u32,
    pub spt_pathmaxrxt: u16,
    pub spt_pathpfthld: u16,
    pub spt_pathcpthld: u16,
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct SctpAssocValue {
    pub assoc_id: u32,
    pub assoc_value: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct SctpSackInfo {
    pub sack_assoc_id: u32,
    pub sack_delay: u32,
    pub sack_freq: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct SctpEvent {
    pub se_assoc_id: u32,
    pub se_type: u16,
    pub se_on: u8,
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct SctpSndinfo {
    pub snd_sid: u16,
    pub snd_flags: u16,
    pub snd_ppid: u32,
    pub snd_context: u32,
    pub snd_assoc_id: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct SctpRcvinfo {
    pub rcv_sid: u16,
    pub rcv_ssn: u16,
    pub rcv_flags: u16,
    pub rcv_ppid: u32,
    pub rcv_tsn: u32,
    pub rcv_cumtsn: u32,
    pub rcv_context: u32,
    pub rcv_assoc_id: u32,
}

/// One path as `SCTP_GET_PEER_ADDR_INFO` reports it (srtt and rto in milliseconds).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct SctpPaddrinfo {
    pub spinfo_address: SockaddrStorage,
    pub spinfo_assoc_id: u32,
    pub spinfo_state: i32,
    pub spinfo_cwnd: u32,
    pub spinfo_srtt: u32,
    pub spinfo_rto: u32,
    pub spinfo_mtu: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct SctpStatus {
    pub sstat_assoc_id: u32,
    pub sstat_state: i32,
    pub sstat_rwnd: u32,
    pub sstat_unackdata: u16,
    pub sstat_penddata: u16,
    pub sstat_instrms: u16,
    pub sstat_outstrms: u16,
    pub sstat_fragmentation_point: u32,
    pub sstat_primary: SctpPaddrinfo,
}

/// The header every notification starts with.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct SctpTlv {
    pub sn_type: u16,
    pub sn_flags: u16,
    pub sn_length: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct SctpAssocChange {
    pub sac_type: u16,
    pub sac_flags: u16,
    pub sac_length: u32,
    pub sac_state: u16,
    pub sac_error: u16,
    pub sac_outbound_streams: u16,
    pub sac_inbound_streams: u16,
    pub sac_assoc_id: u32,
}

/// `struct sctpstat`, the stack-wide counters (RFC 3873's MIB and more), as 166 words; the
/// indices below name the ones rexmit reads.
pub const SCTPSTAT_WORDS: usize = 166;
pub mod stat {
    pub const SENDDATA: usize = 42;
    pub const SENDRETRANSDATA: usize = 43;
    pub const SENDFASTRETRANS: usize = 44;
    pub const TIMODATA: usize = 68;
    pub const TIMOWINDOWPROBE: usize = 69;
    pub const TIMOINIT: usize = 70;
    pub const BADSUM: usize = 98;
    pub const ECNEREDUCEDCWND: usize = 114;
}

/// `conn_output`: the stack hands a packet for AF_CONN address `addr` to the application.
pub type ConnOutput = unsafe extern "C" fn(
    addr: *mut c_void,
    buffer: *mut c_void,
    length: usize,
    tos: u8,
    set_df: u8,
) -> c_int;

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    // Sizes and offsets measured with the C compiler against Debian's usrsctp.h (0.9.5.0-2).
    #[test]
    fn layouts_match_the_c_header() {
        assert_eq!(size_of::<SockaddrConn>(), 16);
        assert_eq!(offset_of!(SockaddrConn, sconn_addr), 8);
        assert_eq!(size_of::<SctpStatus>(), 176);
        assert_eq!(offset_of!(SctpStatus, sstat_primary), 24);
        assert_eq!(size_of::<SctpPaddrinfo>(), 152);
        assert_eq!(offset_of!(SctpPaddrinfo, spinfo_cwnd), 136);
        assert_eq!(size_of::<SctpPaddrparams>(), 152);
        assert_eq!(offset_of!(SctpPaddrparams, spp_hbinterval), 132);
        assert_eq!(offset_of!(SctpPaddrparams, spp_pathmaxrxt), 148);
        assert_eq!(size_of::<SctpSndinfo>(), 16);
        assert_eq!(size_of::<SctpRcvinfo>(), 28);
        assert_eq!(offset_of!(SctpRcvinfo, rcv_ppid), 8);
        assert_eq!(size_of::<SctpInitmsg>(), 8);
        assert_eq!(size_of::<SctpRtoinfo>(), 16);
        assert_eq!(size_of::<SctpAssocparams>(), 20);
        assert_eq!(size_of::<SctpSackInfo>(), 12);
        assert_eq!(size_of::<SctpEvent>(), 8);
        assert_eq!(size_of::<SctpAssocChange>(), 20);
        assert_eq!(offset_of!(SctpAssocChange, sac_assoc_id), 16);
        // sctps_senddata at byte 168, sctps_timodata at 272, sctps_badsum at 392,
        // sctps_ecnereducedcwnd at 456, 664 in all.
        assert_eq!(
            (
                stat::SENDDATA * 4,
                stat::TIMODATA * 4,
                stat::BADSUM * 4,
                stat::ECNEREDUCEDCWND * 4
            ),
            (168, 272, 392, 456)
        );
        assert_eq!(SCTPSTAT_WORDS * 4, 664);
    }
}
