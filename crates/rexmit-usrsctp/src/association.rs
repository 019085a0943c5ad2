//! Building one usrsctp association of a run: its two agents (the sending application's
//! initiator and the receiving application's listener), their sockets and paths.

use crate::agent::{Receiving, Role, Sending, UsrsctpAgent};
use crate::config::UsrsctpConfig;
use crate::socket::Sock;
use crate::stack::{StackError, StackRun};
use crate::wire::{Path, WireMap};
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
}

/// The two agents of an association and the ground truth they share (its message table).
pub struct Placed {
    pub sender: UsrsctpAgent,
    pub receiver: UsrsctpAgent,
    pub truth: Truth,
}

/// Place one association in `run`: the stack-wide settings of its configuration (refused if
/// another app of the run set different ones), an AF_CONN address per path, and the two
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
    let tokens: Vec<usize> = paths.iter().map(|_| run.add_address()).collect();
    let (ep_s, port_s) = run.add_endpoint()?;
    let (ep_r, port_r) = run.add_endpoint()?;
    let lib = run.lib();
    let open = |local_port: u16| -> Result<Sock, StackError> {
        let s = run.call(Time::ZERO, ep_s, Sock::open)?;
        run.adopt(s);
        cfg.apply_socket(lib, s)?;
        s.bind_any(lib, local_port)?;
        Ok(s)
    };
    let snd_sock = open(port_s)?;
    run.set_socket(ep_s, snd_sock);
    let listener = open(port_r)?;
    listener.listen(lib)?;
    let map = |local_port, remote_port, flip: bool| WireMap {
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
    };
    let receiving = Receiving {
        listener,
        tsn_base: None,
        arrived: ArrivedRanges::default(),
        dup_tsns: 0,
        bytes_delivered: 0,
        delivered_before_measure: None,
    };
    Ok(Placed {
        sender: UsrsctpAgent::new(
            run.clone(),
            ep_s,
            map(port_s, port_r, false),
            Some(snd_sock),
            Role::Sender(Box::new(sending)),
            truth.clone(),
            measure_from,
        ),
        receiver: UsrsctpAgent::new(
            run.clone(),
            ep_r,
            map(port_r, port_s, true),
            None,
            Role::Receiver(Box::new(receiving)),
            truth.clone(),
            measure_from,
        ),
        truth,
    })
}
