//! Why a usrsctp run could not do what was asked (`StackError`).

use crate::library::LoadError;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StackError {
    Load(LoadError),
    /// This thread already holds a run (the stack is one per process).
    Busy,
    /// A stack call failed.
    Call {
        what: String,
        errno: i32,
    },
    /// Two apps of one run ask for different values of a setting usrsctp has only once per
    /// process.
    Conflict {
        option: &'static str,
        detail: String,
    },
    /// The previous run's state could not be released.
    Stuck,
}

impl fmt::Display for StackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StackError::Load(e) => e.fmt(f),
            StackError::Busy => write!(
                f,
                "usrsctp is one stack per process and this thread already runs a simulation \
                 with it: finish (drop) that simulation first"
            ),
            StackError::Call { what, errno } => write!(
                f,
                "usrsctp: {what} failed: {}",
                std::io::Error::from_raw_os_error(*errno)
            ),
            StackError::Conflict { option, detail } => write!(
                f,
                "sctp.{option}: usrsctp has one value per process (a stack-wide sysctl), so \
                 every usrsctp app of a run must use the same: {detail}"
            ),
            StackError::Stuck => write!(
                f,
                "usrsctp could not release the previous run's associations (usrsctp_finish \
                 kept failing)"
            ),
        }
    }
}
impl std::error::Error for StackError {}

impl From<LoadError> for StackError {
    fn from(e: LoadError) -> Self {
        StackError::Load(e)
    }
}
