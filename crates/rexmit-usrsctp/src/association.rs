//! Building one usrsctp association of a run: its two agents (the sending application's
//! initiator and the receiving application's listener), their sockets and paths.

use crate::agent::{Receiving, Role, SenderEcn, Sending, UsrsctpAgent};
use crate::config::UsrsctpConfig;
use crate::socket::Sock;
use crate::stack::{StackError, StackRun};
use crate::wire::{Addressing, Path, WireMap};
use rexmit_endpoints::latency::MessageLog;
use rexmit_endpoints::sctp::{SctpApp, SharedTruth, Truth};
use rexmit_endpoints::truth::ArrivedRanges;
use rexmit_time::{Duration, Time};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::net::Ipv4Addr;
use std::rc::Rc;

/// One association to place: what the scenario builder knows about an `sctp_bulk` or
/// `sctp_messages` app with `stack = "usrsctp"`.
pub struct AssociationSpec {
    pub cfg: UsrsctpConfig,
    pub app: SctpApp,
    /// The app's port (both ends, on the wire).
    pub port: u16,
    /// (sender's address, receiver's address) of each path, in the scenario's order
    /// (`wire::paths_by_index` pairs them as rexmit's SCTP does).
    pub paths: Vec<(Ipv4Addr, Ipv4Addr)>,
    /// The path data goes to first (the receiver's address `to_addr`).
    pub primary: usize,
    /// Statistics count from here (the warm-up).
    pub measure_from: Time,
    /// How the stack names the addresses; `None`: IPv4 (the stack computes as on an IPv4
    /// host: its MTU includes the IPv4 header), or AF_CONN for a single path when IPv4 hosting
    /// is unavailable in the loaded library.
    pub addressing: Option<Addressing>,
}

/// The two agents of an association and the ground truth they share (its message table).
pub struct Placed {
    pub sender: UsrsctpAgent,
    pub receiver: UsrsctpAgent,
    pub truth: Truth,
}

/// Place one association in `run`: the stack-wide settings of its configuration (refused if
/// another app of the run set different ones), its addresses inside the stack, and the two
/// sockets, configured and bound; the receiver listens at once, the sender connects when its
/// agent starts.
pub fn place(run: &Rc<StackRun>, spec: AssociationSpec) -> Result<Placed, StackError> {
    let AssociationSpec {
        cfg,
        app,
        port,
        paths,
        primary,
        measure_from,
        addressing,
    } = spec;
    if paths.is_empty() || primary >= paths.len() {
        return Err(StackError::Call {
            what: format!(
                "placing an association with {} paths and primary {primary}",
                paths.len()
            ),
            errno: libc::EINVAL,
        });
    }
    cfg.apply_stack(run)?;
    // One path: an AF_CONN token (public API only); several: IPv4 inside the stack (inet.rs).
    let lib = run.lib();
    let addressing = match addressing {
        Some(a) => a,
        None if lib.inet.is_ok() || paths.len() > 1 => Addressing::Ip,
        None => Addressing::Conn,
    };
    if addressing == Addressing::Conn && paths.len() > 1 {
        return Err(StackError::Call {
            what: "placing a multihomed association with AF_CONN addresses (one path only)".into(),
            errno: libc::EINVAL,
        });
    }
    let (tokens, ep_s, port_s, ep_r, port_r) = match addressing {
        Addressing::Conn => {
            let tokens: Vec<usize> = paths.iter().map(|_| run.add_address()).collect();
            let (ep_s, port_s) = run.add_endpoint()?;
            let (ep_r, port_r) = run.add_endpoint()?;
            (tokens, ep_s, port_s, ep_r, port_r)
        }
        Addressing::Ip => {
            let side = |pick: fn(&(Ipv4Addr, Ipv4Addr)) -> Ipv4Addr| {
                let mut v: Vec<Ipv4Addr> = Vec::new();
                for p in &paths {
                    if !v.contains(&pick(p)) {
                        v.push(pick(p));
                    }
                }
                v
            };
            let ep_s = run.add_ip_endpoint(&side(|p| p.0), port)?;
            let ep_r = run.add_ip_endpoint(&side(|p| p.1), port)?;
            (vec![0; paths.len()], ep_s, port, ep_r, port)
        }
    };
    let open = |local_port: u16, addrs: Vec<Ipv4Addr>| -> Result<Sock, StackError> {
        let family = match addressing {
            Addressing::Conn => crate::ffi::AF_CONN,
            Addressing::Ip => crate::ffi::AF_INET,
        };
        let s = run.call(Time::ZERO, ep_s, |lib| Sock::open(lib, family))?;
        run.adopt(s);
        cfg.apply_socket(lib, s)?;
        match addressing {
            Addressing::Conn => s.bind_any(lib, local_port)?,
            Addressing::Ip => s.bind_ip(lib, &addrs, local_port)?,
        }
        Ok(s)
    };
    let map = |local_port, remote_port, flip: bool| WireMap {
        addressing,
        paths: paths
            .iter()
            .zip(&tokens)
            .map(|(&(s, r), &token)| {
                let (local, remote) = if flip { (r, s) } else { (s, r) };
                Path {
                    token,
                    local,
                    remote,
                }
            })
            .collect(),
        primary,
        local_port,
        remote_port,
        wire_port: port,
    };
    let (snd_map, rcv_map) = (map(port_s, port_r, false), map(port_r, port_s, true));
    let snd_sock = open(port_s, snd_map.locals())?;
    run.set_socket(ep_s, snd_sock);
    let listener = open(port_r, rcv_map.locals())?;
    listener.listen(lib)?;
    let truth: Truth = Rc::new(RefCell::new(SharedTruth {
        log: MessageLog::new(measure_from),
        ..SharedTruth::default()
    }));
    let sending = Sending {
        app,
        next_stream: 0,
        backlog: VecDeque::new(),
        refused: 0,
        chunk_tx: None,
        blocked_since: None,
        blocked: Duration::ZERO,
        data_chunks_sent: 0,
        retransmissions: 0,
        ecn: cfg.ecn.then(SenderEcn::default),
    };
    let receiving = Receiving {
        listener,
        tsn_base: None,
        arrived: ArrivedRanges::default(),
        dup_tsns: 0,
        ce_received: cfg.ecn.then_some(0),
        bytes_delivered: 0,
        delivered_before_measure: None,
    };
    Ok(Placed {
        sender: UsrsctpAgent::new(
            run.clone(),
            ep_s,
            snd_map,
            Some(snd_sock),
            Role::Sender(Box::new(sending)),
            truth.clone(),
            measure_from,
        ),
        receiver: UsrsctpAgent::new(
            run.clone(),
            ep_r,
            rcv_map,
            None,
            Role::Receiver(Box::new(receiving)),
            truth.clone(),
            measure_from,
        ),
        truth,
    })
}
