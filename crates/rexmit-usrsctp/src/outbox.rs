//! Packets the stack sends: usrsctp hands each one to `conn_output` (AF_CONN) or, for IPv4
//! paths, to the simulation's IPv4 output routine (`inet`), which only queue it here; the run
//! (`stack`) sorts the queue into its endpoints' mailboxes after each call into the stack.

use std::cell::RefCell;
use std::ffi::{c_int, c_void};

/// A packet the stack sent: the AF_CONN address it went to, the IPv4 TOS byte the stack chose
/// (its low two bits the ECN field: ECT(0) on DATA when the association negotiated ECN,
/// sctp_output.c `sctp_get_ect`) and the bytes.
#[derive(Clone, Debug)]
pub struct Outgoing {
    pub addr: usize,
    pub tos: u8,
    pub bytes: Vec<u8>,
}

thread_local! {
    /// Packets `conn_output` received during the current stack call.
    static OUTBOX: RefCell<Vec<Outgoing>> = const { RefCell::new(Vec::new()) };
}

/// Queue a packet the stack sent (to AF_CONN address `addr`; 0 for an IPv4 packet, whose
/// header carries `tos` too).
pub(crate) fn queue_output(addr: usize, tos: u8, bytes: Vec<u8>) {
    OUTBOX.with(|o| o.borrow_mut().push(Outgoing { addr, tos, bytes }));
}

pub(crate) unsafe extern "C" fn conn_output(
    addr: *mut c_void,
    buffer: *mut c_void,
    length: usize,
    tos: u8,
    _set_df: u8,
) -> c_int {
    if buffer.is_null() {
        return 0;
    }
    // SAFETY: the stack passes `length` valid bytes, freed after we return.
    let bytes = unsafe { std::slice::from_raw_parts(buffer as *const u8, length) }.to_vec();
    queue_output(addr as usize, tos, bytes);
    0
}

/// Everything queued since the last call (the run's mailboxes take it).
pub(crate) fn take() -> Vec<Outgoing> {
    OUTBOX.with(|o| std::mem::take(&mut *o.borrow_mut()))
}

/// Drop what is queued (a run starting or ending).
pub(crate) fn clear() {
    OUTBOX.with(|o| o.borrow_mut().clear());
}
