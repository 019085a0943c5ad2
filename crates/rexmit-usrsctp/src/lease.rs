//! The right to use the process's one usrsctp stack, held by one thread at a time (`Lease`):
//! a run holds it for its whole life, and unit tests that touch the process-wide clock or
//! random source hold it too.

use crate::error::StackError;
use std::sync::{Condvar, Mutex};
use std::thread::ThreadId;

/// Who holds the process's stack, and the threads waiting for it.
static HOLDER: Mutex<Option<ThreadId>> = Mutex::new(None);
static RELEASED: Condvar = Condvar::new();

/// The right to use the stack, held by one thread at a time.
pub(crate) struct Lease(());

impl Lease {
    pub(crate) fn acquire() -> Result<Lease, StackError> {
        let me = std::thread::current().id();
        let mut h = HOLDER.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match *h {
                None => {
                    *h = Some(me);
                    return Ok(Lease(()));
                }
                Some(t) if t == me => return Err(StackError::Busy),
                Some(_) => h = RELEASED.wait(h).unwrap_or_else(|e| e.into_inner()),
            }
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        *HOLDER.lock().unwrap_or_else(|e| e.into_inner()) = None;
        RELEASED.notify_one();
    }
}

/// Serialise unit tests that touch the process-wide clock or random source.
#[cfg(test)]
pub(crate) fn test_lock() -> Lease {
    Lease::acquire().expect("the test thread holds no run")
}
