//! What a parsed script is: header options, then a timeline of events, each with its time and
//! its source line (for failure reports). Plain data; `parser` builds it, `runner` walks it.

use crate::expr::Stmt;
use crate::lexer::Pos;

/// A time written in the script, nanoseconds: absolute (since the script's start) or
/// relative (`+0.1`, to the previous event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Point {
    Abs(u64),
    Rel(u64),
}

/// When an event happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeSpec {
    /// `0.1` or `+0.1`: at that time, within the tolerance.
    At(Point),
    /// `*`: any time after the previous event (outbound packets only).
    Any,
    /// `0.1~0.2`: any time in the range (no tolerance added).
    Range(Point, Point),
    /// `0.1...0.2`: a blocking system call that starts at the first time and returns at the
    /// second (within the tolerance).
    Blocking(Point, Point),
}

/// One line of the timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub pos: Pos,
    pub time: TimeSpec,
    pub kind: EventKind,
    /// The event's source after its time, blanks collapsed (for failure reports).
    pub text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    Tcp(TcpPacket),
    Sctp(SctpPacket),
    Syscall(Syscall),
    /// A shell command in backticks (only `sysctl` is understood).
    Command(String),
    /// `%{ ... }%`: assertions over the connection's state.
    Code(Vec<Stmt>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// `<`: injected into the core.
    In,
    /// `>`: expected from the core.
    Out,
}

/// A value in a packet that may be a wildcard (`*` in an option, `...` in a chunk field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val<T> {
    Is(T),
    Any,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpFlagSpec {
    pub syn: bool,
    pub fin: bool,
    pub rst: bool,
    pub psh: bool,
    pub ack: bool,
    pub urg: bool,
    pub ece: bool,
    pub cwr: bool,
}

/// The ECN field of a TCP packet's IP header, as packetdrill writes it before the flags:
/// `[noecn]`, `[ect0]`, `[ect1]`, `[ect01]` (either ECT, outbound only), `[ce]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnSpec {
    NoEcn,
    Ect0,
    Ect1,
    Ect01,
    Ce,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TcpOpt {
    Nop,
    Eol,
    Mss(Val<u16>),
    Wscale(Val<u8>),
    SackOk,
    /// Blocks as `left:right`, relative to the ISN of the side whose data they cover.
    Sack(Vec<(u32, u32)>),
    Ts {
        val: Val<u32>,
        ecr: Val<u32>,
    },
}

/// A TCP packet line: `< S. 0:0(0) ack 1 win 65535 <mss 1460,sackOK>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpPacket {
    pub dir: Dir,
    /// The IP ECN field: inbound, what the packet carries (Not-ECT when left out); outbound,
    /// compared when written.
    pub ecn: Option<EcnSpec>,
    pub flags: TcpFlagSpec,
    /// Sequence numbers relative to the sender's ISN: `start:end(len)`.
    pub start: u32,
    pub end: u32,
    pub len: u32,
    pub ack: Option<u32>,
    pub win: Option<u32>,
    /// `None`: no option list, or `<...>` (not checked on outbound packets).
    pub options: Option<Vec<TcpOpt>>,
}

/// A field value inside an SCTP chunk or parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldVal {
    Any,
    Int(u64),
    /// A name such as a flags word (`BE`).
    Word(String),
    /// `[1:2, 4:4]` or `[3, 5]`.
    List(Vec<FieldVal>),
    /// `a:b` inside a list.
    Block(u64, u64),
    /// A parameter inside a chunk: `STATE_COOKIE[len=..., val=...]`.
    Nested(Box<ChunkSpec>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub pos: Pos,
    pub value: FieldVal,
}

/// `NAME[field=value, ...]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkSpec {
    pub name: String,
    pub pos: Pos,
    pub fields: Vec<Field>,
}

/// An SCTP packet line: `> sctp: DATA[flgs=BE, len=1016, tsn=1, sid=0, ssn=0, ppid=0]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SctpPacket {
    pub dir: Dir,
    pub chunks: Vec<ChunkSpec>,
}

/// A system call argument, in strace's notation.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// `...`: whatever the runner fills in.
    Any,
    Int(i64),
    /// A symbolic constant (`SOCK_STREAM`), or several or-ed (`O_RDWR|O_NONBLOCK`).
    Syms(Vec<String>),
    Str(String),
    /// `[1]`
    List(Vec<Arg>),
    /// `{msg_name(...)=..., msg_iov(1)=[...], msg_flags=0}` or `{..., 1000}`.
    Struct(Vec<(Option<String>, Arg)>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Syscall {
    pub name: String,
    pub args: Vec<(Arg, Pos)>,
    /// The expected return value; `None` for `= ...` (not checked).
    pub ret: Option<i64>,
    /// `-1 EAGAIN`: the expected errno's name.
    pub errno: Option<String>,
}

/// The script: header options (`--tolerance_usecs=10000`, `--profile=rfc`, `--tcp.prr=false`)
/// and the timeline.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Script {
    pub options: Vec<(String, String, Pos)>,
    pub events: Vec<Event>,
}
