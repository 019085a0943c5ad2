//! Putting a `UsrsctpConfig` into the stack: the sysctls of the run, and the socket options of
//! each endpoint, set for its future association before it binds, connects or listens (a
//! listening socket passes them on to the association it accepts).

use crate::config::UsrsctpConfig;
use crate::ffi::{self, opt, SockaddrStorage};
use crate::library::Lib;
use crate::socket::Sock;
use crate::stack::{StackError, StackRun};
use std::ffi::c_int;

/// FreeBSD's "no threshold" for potentially-failed paths (`SCTPCTL_PATH_PF_THRESHOLD_MAX`).
const PF_OFF: u16 = 0xffff;

fn ms(d: rexmit_time::Duration) -> u32 {
    // Whole milliseconds below 2^32: checked by `UsrsctpConfig::validate`.
    (d.as_nanos() / 1_000_000) as u32
}

impl UsrsctpConfig {
    /// Set this configuration's stack-wide sysctls for the run (refused if another app of the
    /// run set a different value).
    pub fn apply_stack(&self, run: &StackRun) -> Result<(), StackError> {
        for (option, sysctl, value) in self.stack.sysctls() {
            run.set_stack_wide(option, sysctl, value)?;
        }
        Ok(())
    }

    /// Set the socket options of one endpoint (before bind/connect/listen).
    pub fn apply_socket(&self, lib: &Lib, s: Sock) -> Result<(), StackError> {
        let future = ffi::SCTP_FUTURE_ASSOC;
        let sctp = ffi::IPPROTO_SCTP;
        s.set(
            lib,
            ffi::SOL_SOCKET,
            ffi::SO_SNDBUF,
            &(self.send_buffer as c_int),
            "SO_SNDBUF (send_buffer)",
        )?;
        s.set(
            lib,
            ffi::SOL_SOCKET,
            ffi::SO_RCVBUF,
            &(self.recv_buffer as c_int),
            "SO_RCVBUF (recv_buffer)",
        )?;
        let init = ffi::SctpInitmsg {
            sinit_num_ostreams: self.outbound_streams,
            sinit_max_instreams: self.max_inbound_streams,
            sinit_max_attempts: self.max_init_retransmits,
            sinit_max_init_timeo: 0,
        };
        s.set(lib, sctp, opt::SCTP_INITMSG, &init, "SCTP_INITMSG")?;
        let rto = ffi::SctpRtoinfo {
            srto_assoc_id: future,
            srto_initial: ms(self.rto_initial),
            srto_max: ms(self.rto_max),
            srto_min: ms(self.rto_min),
        };
        s.set(lib, sctp, opt::SCTP_RTOINFO, &rto, "SCTP_RTOINFO (rto)")?;
        let assoc = ffi::SctpAssocparams {
            sasoc_assoc_id: future,
            sasoc_cookie_life: ms(self.valid_cookie_life),
            sasoc_asocmaxrxt: self.assoc_max_retrans,
            ..Default::default()
        };
        s.set(
            lib,
            sctp,
            opt::SCTP_ASSOCINFO,
            &assoc,
            "SCTP_ASSOCINFO (assoc_max_retrans)",
        )?;
        let sack = ffi::SctpSackInfo {
            sack_assoc_id: future,
            sack_delay: ms(self.sack_delay),
            sack_freq: self.sack_freq,
        };
        s.set(
            lib,
            sctp,
            opt::SCTP_DELAYED_SACK,
            &sack,
            "SCTP_DELAYED_SACK (sack_delay, sack_freq)",
        )?;
        let value = |v: u32| ffi::SctpAssocValue {
            assoc_id: future,
            assoc_value: v,
        };
        s.set(
            lib,
            sctp,
            opt::SCTP_MAX_BURST,
            &value(self.max_burst),
            "SCTP_MAX_BURST (max_burst)",
        )?;
        s.set(
            lib,
            sctp,
            opt::SCTP_NRSACK_SUPPORTED,
            &value(self.nr_sack as u32),
            "SCTP_NRSACK_SUPPORTED (nr_sack)",
        )?;
        s.set(
            lib,
            sctp,
            opt::SCTP_ECN_SUPPORTED,
            &value(self.ecn as u32),
            "SCTP_ECN_SUPPORTED (ecn)",
        )?;
        if self.stack.cmt {
            s.set(
                lib,
                sctp,
                opt::SCTP_CMT_ON_OFF,
                &value(1),
                "SCTP_CMT_ON_OFF (cmt.enabled)",
            )?;
        }
        let params = ffi::SctpPaddrparams {
            spp_address: SockaddrStorage::zeroed(),
            spp_assoc_id: future,
            spp_hbinterval: self.hb_interval.map_or(0, ms),
            // The stack adds its headers to this: 20 + 12 bytes over IPv4 (its MTU is then
            // pmtu); 12 over AF_CONN, whose packets get their 20-byte IPv4 header on the wire.
            spp_pathmtu: self.pmtu - 32,
            spp_flags: ffi::SPP_PMTUD_DISABLE
                | if self.hb_interval.is_some() {
                    ffi::SPP_HB_ENABLE
                } else {
                    ffi::SPP_HB_DISABLE
                },
            spp_ipv6_flowlabel: 0,
            spp_pathmaxrxt: self.path_max_retrans,
            spp_dscp: 0,
        };
        s.set(
            lib,
            sctp,
            opt::SCTP_PEER_ADDR_PARAMS,
            &params,
            "SCTP_PEER_ADDR_PARAMS (pmtu, hb_interval, path_max_retrans)",
        )?;
        let thlds = ffi::SctpPaddrthlds {
            spt_address: SockaddrStorage::zeroed(),
            spt_assoc_id: future,
            spt_pathmaxrxt: self.path_max_retrans,
            // Both mark a path potentially failed once its error count exceeds the threshold
            // (FreeBSD's sctp_threshold_management, rexmit's `Path::on_error`; RFC 7829 §4
            // PFMR): the same number.
            spt_pathpfthld: self.pf_threshold.unwrap_or(PF_OFF),
            spt_pathcpthld: 0xffff,
        };
        s.set(
            lib,
            sctp,
            opt::SCTP_PEER_ADDR_THLDS,
            &thlds,
            "SCTP_PEER_ADDR_THLDS (cmt.pf, path_max_retrans)",
        )?;
        // rexmit's SCTP sends at once; FreeBSD's Nagle-like bundling delay is off.
        s.set(lib, sctp, opt::SCTP_NODELAY, &(1 as c_int), "SCTP_NODELAY")?;
        s.set(
            lib,
            sctp,
            opt::SCTP_RECVRCVINFO,
            &(1 as c_int),
            "SCTP_RECVRCVINFO",
        )?;
        for kind in [ffi::SCTP_ASSOC_CHANGE, ffi::SCTP_PEER_ADDR_CHANGE] {
            let ev = ffi::SctpEvent {
                se_assoc_id: future,
                se_type: kind,
                se_on: 1,
            };
            s.set(lib, sctp, opt::SCTP_EVENT, &ev, "SCTP_EVENT")?;
        }
        Ok(())
    }
}
