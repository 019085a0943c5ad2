//! packetdrill-style scripts (Cardwell et al., "packetdrill: Scriptable Network Stack Testing,
//! from Sockets to Packets", USENIX ATC 2013) run against rexmit's sans-IO cores in virtual
//! time: a timeline of system calls, inbound packets injected, outbound packets expected field
//! by field, and assertions over a read-only `tcp_info`. No kernel, no wall clock: a script's
//! run is exact and reproducible. The language is documented in docs/scripts.md.
//!
//! Modules: `lexer`, `parser` and `packet` (the grammar), `ast`, `expr` (the assertion
//! language), `settings` (profile, sysctls and socket options onto the cores' options),
//! `sockets` (system calls), `runner` (the timeline), `tcp_host`/`tcp_vars` and
//! `sctp_host`/`sctp_chunks` (the cores and their numbering).
//!
//! ```
//! let script = "
//! 0   socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
//! +0  bind(3, ..., ...) = 0
//! +0  listen(3, 1) = 0
//! +0  < S 0:0(0) win 65535 <mss 1000,sackOK,nop,nop,nop,wscale 7>
//! +0  > S. 0:0(0) ack 1 <mss 1460,sackOK,nop,wscale 7>
//! +.1 < . 1:1(0) ack 1 win 514
//! +0  accept(3, ..., ...) = 4
//! +0  %{ assert tcpi_snd_cwnd == 10 and tcpi_rtt == 100000 }%
//! ";
//! let outcome = rexmit_script::run_str(script, "example.pkt");
//! assert_eq!(outcome.status, rexmit_script::Status::Passed, "{}", outcome.report);
//! ```

pub mod ast;
pub mod expr;
mod host;
pub mod lexer;
mod packet;
pub mod parser;
mod runner;
mod sctp_chunks;
mod sctp_host;
mod settings;
mod sockets;
mod tcp_host;
mod tcp_vars;

use std::path::Path;

pub use settings::{DEFAULT_TOLERANCE, SKIPPED_SYSCTLS};
/// The names TCP and SCTP assertions read, with their units (docs/scripts.md lists them).
pub use {sctp_host::VARS as SCTP_VARS, tcp_vars::VARS as TCP_VARS};

/// How a script ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Passed,
    /// The core did not do what the script says (the CLI exits 1).
    Failed,
    /// The script cannot be run: a syntax error, an unknown option (the CLI exits 2).
    Malformed,
}

/// A script's result and, unless it passed, the report packetdrill would print: the script
/// line, what was expected and what the core did, with times.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub status: Status,
    pub report: String,
    /// With `trace`: every packet injected (`<`) and sent (`>`) with its time, in the
    /// script's numbering, up to where the script stopped.
    pub trace: Vec<String>,
}

/// Run the script text `src`; `name` names it in reports (`name:line: ...`).
pub fn run_str(src: &str, name: &str) -> Outcome {
    run_str_with(src, name, false)
}

/// `run_str`, recording the packet trace when `trace` is set.
pub fn run_str_with(src: &str, name: &str, trace: bool) -> Outcome {
    let script = match parser::parse(src) {
        Ok(s) => s,
        Err(e) => {
            return Outcome {
                status: Status::Malformed,
                report: format!(
                    "{name}:{}:{}: parse error: {}",
                    e.pos.line, e.pos.col, e.msg
                ),
                trace: Vec::new(),
            }
        }
    };
    let lines: Vec<&str> = src.lines().collect();
    let mut r = runner::Runner::new();
    if trace {
        r.trace = Some(Vec::new());
    }
    let result = r.run(&script);
    let trace = r.trace.take().unwrap_or_default();
    match result {
        Ok(()) => Outcome {
            status: Status::Passed,
            report: String::new(),
            trace,
        },
        Err(runner::Stop::Malformed { pos, msg }) => Outcome {
            status: Status::Malformed,
            report: format!("{name}:{}:{}: error: {msg}", pos.line, pos.col),
            trace,
        },
        Err(runner::Stop::Failed { pos, lines: detail }) => {
            let source = lines
                .get((pos.line as usize).saturating_sub(1))
                .copied()
                .unwrap_or("");
            let mut report = format!(
                "{name}:{}: {}\n",
                pos.line,
                detail.first().map_or("", |s| s)
            );
            report += &format!("  script line {}: {}\n", pos.line, source.trim());
            for l in detail.iter().skip(1) {
                report += l;
                report.push('\n');
            }
            Outcome {
                status: Status::Failed,
                report,
                trace,
            }
        }
    }
}

/// Run the script in file `path`.
pub fn run_file(path: &Path) -> Outcome {
    run_file_with(path, false)
}

/// `run_file`, recording the packet trace when `trace` is set.
pub fn run_file_with(path: &Path, trace: bool) -> Outcome {
    match std::fs::read_to_string(path) {
        Ok(src) => run_str_with(&src, &path.display().to_string(), trace),
        Err(e) => Outcome {
            status: Status::Malformed,
            report: format!("{}: cannot read: {e}", path.display()),
            trace: Vec::new(),
        },
    }
}
