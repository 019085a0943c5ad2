//! Loading usrsctp at run time: `dlopen` of `libusrsctp.so.2` (or `$REXMIT_USRSCTP_LIB`), one
//! function pointer per call rexmit makes, and the redirection of the library's clock and
//! random source to the simulation (`redirect.rs`).
//!
//! Nothing links against the library, so a build without it works for everything else; a run
//! that asks for usrsctp without it gets `LoadError`, which says how to install it. The library
//! is loaded once per process and never unloaded.

use crate::ffi::{ConnOutput, SctpRcvinfo, SockaddrConn, Socket, SCTPSTAT_WORDS};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::fmt;
use std::sync::OnceLock;

/// The soname of Debian's usrsctp 0.9.5 (package `libusrsctp2`).
pub const SONAME: &str = "libusrsctp.so.2";
/// Environment variable naming another copy of the library (a path or a soname).
pub const LIB_ENV: &str = "REXMIT_USRSCTP_LIB";

/// Why usrsctp cannot be used in this process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// The shared library is not installed (or `$REXMIT_USRSCTP_LIB` names nothing loadable).
    NotInstalled { name: String, detail: String },
    /// The library lacks a function rexmit calls (another version than 0.9.5?).
    MissingSymbol { name: String, symbol: &'static str },
    /// Its clock could not be redirected to simulated time (see `redirect.rs`).
    Clock(String),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotInstalled { name, detail } => write!(
                f,
                "usrsctp is not installed ({name}: {detail}): run `make usrsctp-deps` or \
                 `apt-get install libusrsctp2`"
            ),
            LoadError::MissingSymbol { name, symbol } => write!(
                f,
                "{name} has no function {symbol}: rexmit needs usrsctp 0.9.5 \
                 (`apt-get install libusrsctp2`)"
            ),
            LoadError::Clock(e) => {
                write!(f, "usrsctp's clock cannot be driven by the simulation: {e}")
            }
        }
    }
}
impl std::error::Error for LoadError {}

type SysctlSet = unsafe extern "C" fn(u32) -> c_int;
type SysctlGet = unsafe extern "C" fn() -> u32;

/// The usrsctp functions rexmit calls, resolved once.
#[allow(clippy::type_complexity)]
pub struct Lib {
    pub init_nothreads: unsafe extern "C" fn(
        u16,
        Option<ConnOutput>,
        Option<unsafe extern "C" fn(*const c_char, ...)>,
    ),
    pub finish: unsafe extern "C" fn() -> c_int,
    pub socket: unsafe extern "C" fn(
        c_int,
        c_int,
        c_int,
        Option<unsafe extern "C" fn()>,
        Option<unsafe extern "C" fn()>,
        u32,
        *mut c_void,
    ) -> *mut Socket,
    pub setsockopt: unsafe extern "C" fn(*mut Socket, c_int, c_int, *const c_void, u32) -> c_int,
    pub getsockopt: unsafe extern "C" fn(*mut Socket, c_int, c_int, *mut c_void, *mut u32) -> c_int,
    pub bind: unsafe extern "C" fn(*mut Socket, *mut SockaddrConn, u32) -> c_int,
    pub listen: unsafe extern "C" fn(*mut Socket, c_int) -> c_int,
    pub accept: unsafe extern "C" fn(*mut Socket, *mut c_void, *mut u32) -> *mut Socket,
    pub connect: unsafe extern "C" fn(*mut Socket, *const SockaddrConn, u32) -> c_int,
    pub sendv: unsafe extern "C" fn(
        *mut Socket,
        *const c_void,
        usize,
        *mut c_void,
        c_int,
        *mut c_void,
        u32,
        c_uint,
        c_int,
    ) -> isize,
    pub recvv: unsafe extern "C" fn(
        *mut Socket,
        *mut c_void,
        usize,
        *mut c_void,
        *mut u32,
        *mut SctpRcvinfo,
        *mut u32,
        *mut c_uint,
        *mut c_int,
    ) -> isize,
    pub close: unsafe extern "C" fn(*mut Socket),
    pub set_non_blocking: unsafe extern "C" fn(*mut Socket, c_int) -> c_int,
    pub conninput: unsafe extern "C" fn(*mut c_void, *const c_void, usize, u8),
    pub handle_timers: unsafe extern "C" fn(u32),
    pub register_address: unsafe extern "C" fn(*mut c_void),
    pub deregister_address: unsafe extern "C" fn(*mut c_void),
    pub get_stat: unsafe extern "C" fn(*mut [u32; SCTPSTAT_WORDS]),
    /// Stack-wide settings (`net.inet.sctp.*` sysctls), by name without the `sctp_` prefix.
    pub sysctls: Vec<(&'static str, SysctlSet, SysctlGet)>,
    /// Whether the library's random source could be replaced by the simulation's (it is an
    /// internal function; another build may call it directly, not through its PLT).
    pub random_seeded: bool,
    /// IPv4 hosting for multihomed associations (`inet.rs`), or why it is unavailable.
    pub inet: Result<crate::inet::InetLib, String>,
}

/// The stack-wide settings rexmit sets (see `config.rs` for what each one maps): short name,
/// setter and getter symbols.
macro_rules! sysctls {
    ($($name:literal),* $(,)?) => {
        &[$(($name,
             concat!("usrsctp_sysctl_set_sctp_", $name),
             concat!("usrsctp_sysctl_get_sctp_", $name))),*]
    };
}
pub const SYSCTLS: &[(&str, &str, &str)] = sysctls!(
    "no_csum_on_loopback",
    "cmt_on_off",
    "cmt_use_dac",
    "buffer_splitting",
    "initial_cwnd",
    "use_cwnd_based_maxburst",
    "do_drain",
    "ecn_enable",
);

struct Handle {
    ptr: *mut c_void,
    name: String,
}

impl Handle {
    fn sym<T: Copy>(&self, symbol: &'static str) -> Result<T, LoadError> {
        debug_assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<*mut c_void>());
        let c = CString::new(symbol).expect("no NUL in symbol names");
        // SAFETY: dlsym on a live handle; the pointer is reinterpreted as the function type
        // declared for `symbol` in ffi.rs / above, which matches usrsctp.h.
        let p = unsafe { libc::dlsym(self.ptr, c.as_ptr()) };
        if p.is_null() {
            return Err(LoadError::MissingSymbol {
                name: self.name.clone(),
                symbol,
            });
        }
        Ok(unsafe { std::mem::transmute_copy::<*mut c_void, T>(&p) })
    }
}

fn dlerror() -> String {
    // SAFETY: dlerror returns a thread-local C string or NULL.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

fn open() -> Result<Lib, LoadError> {
    let name = std::env::var(LIB_ENV).unwrap_or_else(|_| SONAME.to_string());
    let c = CString::new(name.clone()).map_err(|_| LoadError::NotInstalled {
        name: name.clone(),
        detail: "the name contains a NUL byte".into(),
    })?;
    // SAFETY: loading a shared library; RTLD_LOCAL keeps its symbols out of the process's
    // global scope, so nothing else resolves against it.
    let ptr = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if ptr.is_null() {
        return Err(LoadError::NotInstalled {
            name,
            detail: dlerror(),
        });
    }
    let h = Handle { ptr, name };
    let mut sysctls = Vec::new();
    for (name, set, get) in SYSCTLS {
        sysctls.push((*name, h.sym(set)?, h.sym(get)?));
    }
    let init_nothreads = h.sym("usrsctp_init_nothreads")?;
    let anchor: *const c_void = h.sym("usrsctp_init_nothreads")?;
    let inet = crate::inet::InetLib::load(&|name| h.sym::<*mut c_void>(name).ok())
        .map_err(|missing| format!("{} has no function {missing}", h.name));
    if let Ok((_, copy)) = &inet {
        let _ = crate::inet::MBUF_COPY.set(*copy);
    }
    let installed = crate::redirect::install(anchor).map_err(LoadError::Clock)?;
    let inet = match inet {
        Ok((lib, _)) if installed.ip_output => Ok(lib),
        Ok(_) => Err(
            "the library does not call its IPv4 output routine and getifaddrs through its PLT"
                .into(),
        ),
        Err(e) => Err(e),
    };
    Ok(Lib {
        init_nothreads,
        finish: h.sym("usrsctp_finish")?,
        socket: h.sym("usrsctp_socket")?,
        setsockopt: h.sym("usrsctp_setsockopt")?,
        getsockopt: h.sym("usrsctp_getsockopt")?,
        bind: h.sym("usrsctp_bind")?,
        listen: h.sym("usrsctp_listen")?,
        accept: h.sym("usrsctp_accept")?,
        connect: h.sym("usrsctp_connect")?,
        sendv: h.sym("usrsctp_sendv")?,
        recvv: h.sym("usrsctp_recvv")?,
        close: h.sym("usrsctp_close")?,
        set_non_blocking: h.sym("usrsctp_set_non_blocking")?,
        conninput: h.sym("usrsctp_conninput")?,
        handle_timers: h.sym("usrsctp_handle_timers")?,
        register_address: h.sym("usrsctp_register_address")?,
        deregister_address: h.sym("usrsctp_deregister_address")?,
        get_stat: h.sym("usrsctp_get_stat")?,
        sysctls,
        random_seeded: installed.random_seeded,
        inet,
    })
}

// SAFETY: the table holds plain function pointers into a library that is never unloaded.
unsafe impl Send for Lib {}
unsafe impl Sync for Lib {}

/// The library, loaded on first use; the error is remembered (a process does not retry).
pub fn lib() -> Result<&'static Lib, LoadError> {
    static LIB: OnceLock<Result<Lib, LoadError>> = OnceLock::new();
    LIB.get_or_init(open).as_ref().map_err(Clone::clone)
}

/// Whether usrsctp can be used in this process (tests skip without it).
pub fn available() -> Result<(), LoadError> {
    lib().map(|_| ())
}

impl Lib {
    /// Set a stack-wide setting by its short name (one of `SYSCTLS`).
    pub fn set_sysctl(&self, name: &str, value: u32) -> Result<(), String> {
        let (_, set, _) = self
            .sysctls
            .iter()
            .find(|(n, _, _)| *n == name)
            .ok_or_else(|| format!("internal: unknown usrsctp sysctl {name}"))?;
        // SAFETY: a sysctl setter takes a value and range-checks it.
        if unsafe { set(value) } != 0 {
            return Err(format!(
                "net.inet.sctp.{name} = {value} is refused by usrsctp"
            ));
        }
        Ok(())
    }

    pub fn get_sysctl(&self, name: &str) -> Option<u32> {
        let (_, _, get) = self.sysctls.iter().find(|(n, _, _)| *n == name)?;
        // SAFETY: a getter reads one global.
        Some(unsafe { get() })
    }

    pub fn stats(&self) -> [u32; SCTPSTAT_WORDS] {
        let mut s = [0u32; SCTPSTAT_WORDS];
        // SAFETY: usrsctp_get_stat copies sizeof(struct sctpstat) = 664 bytes into `s`.
        unsafe { (self.get_stat)(&mut s) };
        s
    }
}
