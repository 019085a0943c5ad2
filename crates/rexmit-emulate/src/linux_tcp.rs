//! The project's own bulk sender and receiver over kernel sockets, each on a thread that has
//! entered its real host's namespace (sockets belong to the namespace they are created in).
//! The sender binds the app's port (so the scenario's flow matchers and scripted drops find its
//! packets), sets its socket options before connecting, writes until `bytes` or the stop time
//! (or, for a message app, one message of `size` bytes every `interarrival`), and both read
//! TCP_INFO and their namespace's TCP counters (`nstat`'s TcpExt) at the stop time; the sender
//! can also sample TCP_INFO while it runs.

use crate::sys;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::{SocketAddrV4, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Socket options the sender and receiver set (each `None` leaves the kernel's default).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct SocketOptions {
    /// TCP_CONGESTION.
    pub congestion: Option<String>,
    /// TCP_MAXSEG (before connecting).
    pub maxseg: Option<u32>,
    /// TCP_NODELAY (Nagle off).
    pub nodelay: Option<bool>,
    /// SO_SNDBUF / SO_RCVBUF in bytes (the kernel doubles them and stops autotuning).
    pub sndbuf: Option<u32>,
    pub rcvbuf: Option<u32>,
}

/// One app between real hosts, in wall-clock offsets from the run's origin.
#[derive(Clone, Debug)]
pub struct BulkSpec {
    pub sender_ns: String,
    pub receiver_ns: String,
    pub src: SocketAddrV4,
    pub dst: SocketAddrV4,
    pub start: Duration,
    pub stop: Duration,
    /// Goodput counts bytes read from here on.
    pub measure_from: Duration,
    pub bytes: Option<u64>,
    /// A message app: what to write when (`None`: keep the send buffer full).
    pub messages: Option<MessageSchedule>,
    /// Sample the sender's TCP_INFO this often (`None`: only at the stop time).
    pub tcp_info_interval: Option<Duration>,
    pub options: SocketOptions,
    /// Set when the run ends early (Ctrl-C, a guard): both threads stop at once.
    pub cancel: Arc<AtomicBool>,
}

/// A message app's writes: `size` bytes one `interarrival` after the start and every
/// `interarrival` after that (as rexmit's message source with fixed distributions), `count` in
/// all, none at or after `stop` (an offset from the run's origin).
#[derive(Clone, Debug, PartialEq)]
pub struct MessageSchedule {
    pub interarrival: Duration,
    pub size: u64,
    pub count: Option<u64>,
    pub stop: Option<Duration>,
}

/// The writes of a real `tcp_messages` app: its message source must be deterministic (fixed
/// interarrival and size, no burst) for the kernel's sender to write what rexmit's would.
pub fn message_schedule(
    path: &str,
    a: &rexmit_scenario::schema::AppCfg,
) -> Result<Option<MessageSchedule>, rexmit_scenario::ScenarioError> {
    use rexmit_net::apps::dist::Dist;
    let rexmit_scenario::schema::AppTraffic::TcpMessages(c) = &a.traffic else {
        return Ok(None);
    };
    let src = rexmit_scenario::traffic::message_source(path, a.kind(), &c.traffic)?;
    let why = "between real hosts a message app needs a fixed interarrival and size (the kernel's sender writes them on a schedule)";
    let (Dist::Fixed(gap), Dist::Fixed(size)) = (&src.interarrival, &src.size) else {
        let field = if matches!(src.interarrival, Dist::Fixed(_)) {
            "size"
        } else {
            "interarrival"
        };
        return Err(rexmit_scenario::ScenarioError::new(
            format!("{path}.{field}"),
            why,
        ));
    };
    if src.burst.is_some() {
        return Err(rexmit_scenario::ScenarioError::new(
            format!("{path}.burst"),
            why,
        ));
    }
    Ok(Some(MessageSchedule {
        interarrival: std::time::Duration::from_nanos(*gap),
        size: *size,
        count: src.count,
        stop: src
            .stop
            .map(|t| std::time::Duration::from_nanos(t.as_nanos())),
    }))
}

/// One TCP_INFO sample of the sender (`t_s` from sim time zero).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct InfoSample {
    pub t_s: f64,
    pub ca_state: u8,
    pub snd_cwnd: u32,
    pub snd_ssthresh: u32,
    pub unacked: u32,
    pub rtt_us: u32,
    pub total_retrans: u32,
    pub total_rto: Option<u16>,
}

/// The fields of `struct tcp_info` (linux/tcp.h) the results use.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct TcpInfo {
    pub ca_state: u8,
    pub rto_us: u32,
    pub snd_mss: u32,
    /// Segments sent and not yet acknowledged (tp->packets_out).
    pub unacked: u32,
    pub rtt_us: u32,
    pub rttvar_us: u32,
    pub snd_ssthresh: u32,
    pub snd_cwnd: u32,
    /// tp->reordering: the duplicate threshold Linux's reordering estimate set.
    pub reordering: u32,
    pub total_retrans: u32,
    pub pacing_rate: u64,
    pub bytes_acked: u64,
    pub bytes_received: u64,
    pub min_rtt_us: u32,
    pub data_segs_out: u32,
    pub delivery_rate: u64,
    pub bytes_sent: u64,
    pub bytes_retrans: u64,
    pub dsack_dups: u32,
    pub reord_seen: u32,
    /// Retransmission timeouts (tcpi_total_rto, Linux 6.7 on; `None` on older kernels).
    pub total_rto: Option<u16>,
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    b.get(off..off + 4)
        .map_or(0, |s| u32::from_ne_bytes(s.try_into().expect("4 bytes")))
}
fn u64_at(b: &[u8], off: usize) -> u64 {
    b.get(off..off + 8)
        .map_or(0, |s| u64::from_ne_bytes(s.try_into().expect("8 bytes")))
}

impl TcpInfo {
    /// Parse the kernel's bytes (offsets of the uapi struct, which only ever grows at its end).
    pub fn parse(b: &[u8]) -> TcpInfo {
        TcpInfo {
            ca_state: b.get(1).copied().unwrap_or(0),
            rto_us: u32_at(b, 8),
            snd_mss: u32_at(b, 16),
            unacked: u32_at(b, 24),
            rtt_us: u32_at(b, 68),
            rttvar_us: u32_at(b, 72),
            snd_ssthresh: u32_at(b, 76),
            snd_cwnd: u32_at(b, 80),
            reordering: u32_at(b, 88),
            total_retrans: u32_at(b, 100),
            pacing_rate: u64_at(b, 104),
            bytes_acked: u64_at(b, 120),
            bytes_received: u64_at(b, 128),
            min_rtt_us: u32_at(b, 148),
            data_segs_out: u32_at(b, 156),
            delivery_rate: u64_at(b, 160),
            bytes_sent: u64_at(b, 200),
            bytes_retrans: u64_at(b, 208),
            dsack_dups: u32_at(b, 216),
            reord_seen: u32_at(b, 220),
            total_rto: (b.len() >= 242).then(|| u16::from_ne_bytes([b[240], b[241]])),
        }
    }

    fn read(s: &impl AsRawFd) -> io::Result<TcpInfo> {
        let mut buf = [0u8; 512];
        let n = sys::getsockopt_bytes(s.as_raw_fd(), libc::IPPROTO_TCP, libc::TCP_INFO, &mut buf)?;
        Ok(TcpInfo::parse(&buf[..n]))
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct SenderReport {
    pub bytes_written: u64,
    pub connected_s: Option<f64>,
    /// All `bytes` written and acknowledged.
    pub completed_s: Option<f64>,
    pub tcp_info: Option<TcpInfo>,
    /// TCP_INFO every `tcp_info_interval` (empty without one).
    pub tcp_info_samples: Vec<InfoSample>,
    /// The sender namespace's non-zero TcpExt counters at the stop time.
    pub netstat: BTreeMap<String, u64>,
    pub error: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct ReceiverReport {
    pub bytes_read: u64,
    pub bytes_measured: u64,
    pub tcp_info: Option<TcpInfo>,
    /// The receiver namespace's non-zero TcpExt counters at the stop time.
    pub netstat: BTreeMap<String, u64>,
    pub error: Option<String>,
}

/// A bulk transfer under way: its two threads.
pub struct Bulk {
    sender: std::thread::JoinHandle<SenderReport>,
    receiver: std::thread::JoinHandle<ReceiverReport>,
}

impl Bulk {
    /// Start the receiver (listening before this returns) and the sender (which waits for its
    /// start time). `origin` is sim time zero.
    pub fn start(spec: BulkSpec, origin: Instant) -> io::Result<Bulk> {
        let (ready_tx, ready_rx) = mpsc::channel();
        let rspec = spec.clone();
        let receiver = std::thread::spawn(move || receive(rspec, origin, ready_tx));
        match ready_rx.recv_timeout(Duration::from_secs(10)) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                let _ = receiver.join();
                return Err(e);
            }
            Err(_) => return Err(io::Error::other("receiver did not start listening")),
        }
        let sender = std::thread::spawn(move || send(spec, origin));
        Ok(Bulk { sender, receiver })
    }

    pub fn join(self) -> (SenderReport, ReceiverReport) {
        let s = self.sender.join().unwrap_or_else(|_| SenderReport {
            error: Some("sender thread panicked".into()),
            ..Default::default()
        });
        let r = self.receiver.join().unwrap_or_else(|_| ReceiverReport {
            error: Some("receiver thread panicked".into()),
            ..Default::default()
        });
        (s, r)
    }
}

/// Sleep until `t` or until the run is cancelled.
fn sleep_until(t: Instant, cancel: &AtomicBool) {
    while !cancel.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now >= t {
            return;
        }
        std::thread::sleep((t - now).min(Duration::from_millis(20)));
    }
}

/// Now at or after `t`, or cancelled.
fn past(t: Instant, cancel: &AtomicBool) -> bool {
    Instant::now() >= t || cancel.load(Ordering::Relaxed)
}

fn receive(spec: BulkSpec, origin: Instant, ready: mpsc::Sender<io::Result<()>>) -> ReceiverReport {
    let mut rep = ReceiverReport::default();
    let listener = (|| -> io::Result<TcpListener> {
        sys::enter_netns(&spec.receiver_ns)?;
        let l = TcpListener::bind(spec.dst)?;
        if let Some(b) = spec.options.rcvbuf {
            // Set on the listener: accepted sockets inherit it, and the SYN-ACK's window follows it.
            sys::setsockopt(
                l.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_RCVBUF,
                &(b as libc::c_int),
            )?;
        }
        l.set_nonblocking(true)?;
        Ok(l)
    })();
    let listener = match listener {
        Ok(l) => {
            let _ = ready.send(Ok(()));
            l
        }
        Err(e) => {
            let _ = ready.send(Err(io::Error::new(
                e.kind(),
                format!("receiver in {}: {e}", spec.receiver_ns),
            )));
            rep.error = Some(e.to_string());
            return rep;
        }
    };
    let stop = origin + spec.stop;
    let measure_from = origin + spec.measure_from;
    let mut stream = loop {
        match listener.accept() {
            Ok((s, _)) => break s,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock && !past(stop, &spec.cancel) => {
                std::thread::sleep(Duration::from_millis(1))
            }
            Err(e) => {
                rep.error = Some(format!("accept: {e}"));
                return rep;
            }
        }
    };
    let _ = stream.set_nonblocking(false);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let now = Instant::now();
        if past(stop, &spec.cancel) {
            break;
        }
        let _ = stream.set_read_timeout(Some(
            (stop - now)
                .min(Duration::from_millis(20))
                .max(Duration::from_micros(100)),
        ));
        match stream.read(&mut buf) {
            Ok(0) => {
                sleep_until(stop, &spec.cancel);
                break;
            }
            Ok(n) => {
                rep.bytes_read += n as u64;
                if Instant::now() >= measure_from {
                    rep.bytes_measured += n as u64;
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) => {}
            Err(e) => {
                rep.error = Some(format!("read: {e}"));
                break;
            }
        }
    }
    rep.tcp_info = TcpInfo::read(&stream).ok();
    rep.netstat = tcp_ext_counters();
    rep
}

/// The non-zero TcpExt counters (`/proc/net/netstat`, what `nstat` prints as TcpExt*) of the
/// namespace the calling thread is in (`thread-self`: the thread entered it with setns, the
/// process did not). A namespace starts with every counter at zero, so these are the run's.
pub fn tcp_ext_counters() -> BTreeMap<String, u64> {
    std::fs::read_to_string("/proc/thread-self/net/netstat")
        .map(|t| parse_tcp_ext(&t))
        .unwrap_or_default()
}

/// The `TcpExt:` header line and the value line after it, zipped; zeros left out.
fn parse_tcp_ext(text: &str) -> BTreeMap<String, u64> {
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("TcpExt:")).collect();
    let [names, values] = rows[..] else {
        return BTreeMap::new();
    };
    names
        .split_whitespace()
        .zip(values.split_whitespace())
        .skip(1)
        .filter_map(|(n, v)| Some((n.to_string(), v.parse::<u64>().ok()?)))
        .filter(|(_, v)| *v > 0)
        .collect()
}

/// Sample TCP_INFO every `every` until `stop` (a thread of its own, on a duplicate of the
/// socket: getsockopt needs no namespace).
fn sample_tcp_info(
    s: TcpStream,
    origin: Instant,
    every: Duration,
    stop: Instant,
    cancel: Arc<AtomicBool>,
) -> std::thread::JoinHandle<Vec<InfoSample>> {
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let mut next = Instant::now();
        while !past(stop, &cancel) {
            if let Ok(i) = TcpInfo::read(&s) {
                out.push(InfoSample {
                    t_s: origin.elapsed().as_secs_f64(),
                    ca_state: i.ca_state,
                    snd_cwnd: i.snd_cwnd,
                    snd_ssthresh: i.snd_ssthresh,
                    unacked: i.unacked,
                    rtt_us: i.rtt_us,
                    total_retrans: i.total_retrans,
                    total_rto: i.total_rto,
                });
            }
            next += every;
            sleep_until(next.min(stop), &cancel);
        }
        out
    })
}

/// Create the sender's socket with its options set, bound to the app's port, and connect.
fn connect(spec: &BulkSpec, timeout: Duration) -> io::Result<TcpStream> {
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // Owned from here on: closed on every error path.
    let sock = unsafe { TcpStream::from_raw_fd(fd) };
    // SO_SNDTIMEO bounds the blocking connect too (lost SYNs are retried by the kernel).
    sock.set_write_timeout(Some(timeout.max(Duration::from_millis(1))))?;
    let o = &spec.options;
    sys::setsockopt(
        fd,
        libc::SOL_SOCKET,
        libc::SO_REUSEADDR,
        &(1 as libc::c_int),
    )?;
    if let Some(cc) = &o.congestion {
        let r = unsafe {
            libc::setsockopt(
                fd,
                libc::IPPROTO_TCP,
                libc::TCP_CONGESTION,
                cc.as_ptr() as *const libc::c_void,
                cc.len() as libc::socklen_t,
            )
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(e.kind(), format!("TCP_CONGESTION {cc:?}: {e} (see /proc/sys/net/ipv4/tcp_available_congestion_control)")));
        }
    }
    if let Some(m) = o.maxseg {
        sys::setsockopt(fd, libc::IPPROTO_TCP, libc::TCP_MAXSEG, &(m as libc::c_int))?;
    }
    if let Some(n) = o.nodelay {
        sys::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            &(n as libc::c_int),
        )?;
    }
    if let Some(b) = o.sndbuf {
        sys::setsockopt(fd, libc::SOL_SOCKET, libc::SO_SNDBUF, &(b as libc::c_int))?;
    }
    let sa = |a: &SocketAddrV4| libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: a.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(*a.ip()).to_be(),
        },
        sin_zero: [0; 8],
    };
    let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    let src = sa(&spec.src);
    if unsafe { libc::bind(fd, &src as *const _ as *const libc::sockaddr, len) } < 0 {
        return Err(io::Error::last_os_error());
    }
    let dst = sa(&spec.dst);
    if unsafe { libc::connect(fd, &dst as *const _ as *const libc::sockaddr, len) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(sock)
}

fn send(spec: BulkSpec, origin: Instant) -> SenderReport {
    let mut rep = SenderReport::default();
    if let Err(e) = sys::enter_netns(&spec.sender_ns) {
        rep.error = Some(format!("sender namespace {}: {e}", spec.sender_ns));
        return rep;
    }
    let stop = origin + spec.stop;
    sleep_until(origin + spec.start, &spec.cancel);
    let mut stream = match connect(&spec, stop.saturating_duration_since(Instant::now())) {
        Ok(s) => s,
        Err(e) => {
            rep.error = Some(format!("connect {} -> {}: {e}", spec.src, spec.dst));
            return rep;
        }
    };
    rep.connected_s = Some(origin.elapsed().as_secs_f64());
    let sampler = spec.tcp_info_interval.and_then(|every| {
        let dup = stream.try_clone().ok()?;
        Some(sample_tcp_info(
            dup,
            origin,
            every,
            stop,
            spec.cancel.clone(),
        ))
    });
    let total = match &spec.messages {
        Some(m) => m.count.map_or(u64::MAX, |c| c.saturating_mul(m.size)),
        None => spec.bytes.unwrap_or(u64::MAX),
    };
    let result = match &spec.messages {
        None => write_until(&mut stream, total, stop, &spec.cancel, &mut rep),
        Some(m) => write_messages(&mut stream, m, &spec, origin, &mut rep),
    };
    if let Err(e) = result {
        rep.error = Some(format!("write: {e}"));
    }
    if rep.error.is_none() && rep.bytes_written >= total {
        let _ = stream.shutdown(std::net::Shutdown::Write);
        // Completion: everything (and the FIN) acknowledged, seen by polling TCP_INFO.
        while !past(stop, &spec.cancel) {
            if TcpInfo::read(&stream).is_ok_and(|i| i.bytes_acked >= total) {
                rep.completed_s = Some(origin.elapsed().as_secs_f64());
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    sleep_until(stop, &spec.cancel);
    rep.tcp_info = TcpInfo::read(&stream).ok();
    rep.netstat = tcp_ext_counters();
    if let Some(h) = sampler {
        rep.tcp_info_samples = h.join().unwrap_or_default();
    }
    rep
}

/// Write until `total` bytes are written (counted in `rep`) or `stop`.
fn write_until(
    stream: &mut TcpStream,
    total: u64,
    stop: Instant,
    cancel: &AtomicBool,
    rep: &mut SenderReport,
) -> io::Result<()> {
    let chunk = vec![0u8; 1 << 16];
    while rep.bytes_written < total {
        let now = Instant::now();
        if past(stop, cancel) {
            break;
        }
        let _ = stream.set_write_timeout(Some(
            (stop - now)
                .min(Duration::from_millis(20))
                .max(Duration::from_micros(100)),
        ));
        let n = (total - rep.bytes_written).min(chunk.len() as u64) as usize;
        match stream.write(&chunk[..n]) {
            Ok(n) => rep.bytes_written += n as u64,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A message app: each message is written whole at its time (a full send buffer delays it,
/// as it would rexmit's); messages stop at `count`, the schedule's stop or the run's.
fn write_messages(
    stream: &mut TcpStream,
    m: &MessageSchedule,
    spec: &BulkSpec,
    origin: Instant,
    rep: &mut SenderReport,
) -> io::Result<()> {
    let stop = origin + spec.stop;
    let last = m.stop.map_or(stop, |s| (origin + s).min(stop));
    let mut at = origin + spec.start;
    for _ in 0..m.count.unwrap_or(u64::MAX) {
        at += m.interarrival;
        if at >= last {
            break;
        }
        sleep_until(at, &spec.cancel);
        if past(last, &spec.cancel) {
            break;
        }
        let goal = rep.bytes_written + m.size;
        write_until(stream, goal, stop, &spec.cancel, rep)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_info_fields_are_read_at_their_uapi_offsets() {
        let mut b = vec![0u8; 248];
        b[1] = 4; // TCP_CA_Loss
        b[80..84].copy_from_slice(&17u32.to_ne_bytes());
        b[88..92].copy_from_slice(&9u32.to_ne_bytes());
        b[220..224].copy_from_slice(&5u32.to_ne_bytes());
        b[100..104].copy_from_slice(&3u32.to_ne_bytes());
        b[120..128].copy_from_slice(&123_456u64.to_ne_bytes());
        b[240..242].copy_from_slice(&2u16.to_ne_bytes());
        let i = TcpInfo::parse(&b);
        assert_eq!(
            (
                i.ca_state,
                i.snd_cwnd,
                i.total_retrans,
                i.bytes_acked,
                i.total_rto
            ),
            (4, 17, 3, 123_456, Some(2))
        );
        assert_eq!((i.reordering, i.reord_seen), (9, 5));
        b[24..28].copy_from_slice(&6u32.to_ne_bytes());
        assert_eq!(TcpInfo::parse(&b).unacked, 6);
        // An older kernel's shorter struct: no RTO count rather than a wrong one.
        assert_eq!(TcpInfo::parse(&b[..232]).total_rto, None);
    }

    #[test]
    fn tcp_ext_counters_pair_names_with_values_and_leave_out_zeros() {
        let text = "TcpExt: SyncookiesSent TCPDSACKUndo TCPLossProbes\nTcpExt: 0 2 5\nIpExt: InNoRoutes\nIpExt: 7\n";
        let c = parse_tcp_ext(text);
        assert_eq!(c.len(), 2);
        assert_eq!((c["TCPDSACKUndo"], c["TCPLossProbes"]), (2, 5));
        assert!(parse_tcp_ext("IpExt: A\nIpExt: 1\n").is_empty());
    }

    fn messages(source: &str) -> rexmit_scenario::schema::AppCfg {
        let s = rexmit_scenario::Scenario::from_toml(&format!(
            "stop_time = \"5s\"\n[[nodes]]\nname = \"A\"\n[[nodes]]\nname = \"B\"\n[[links]]\nbetween = [\"A\", \"B\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n[[apps]]\nname = \"x\"\nkind = \"tcp_messages\"\nfrom = \"A\"\nto = \"B\"\n{source}\n"
        ))
        .expect("scenario");
        s.apps[0].clone()
    }

    /// A message app of fixed interarrival and size becomes the kernel sender's write
    /// schedule; a random one is refused naming the field.
    #[test]
    fn only_a_fixed_message_source_runs_over_kernel_sockets() {
        let fixed = messages("interarrival = { kind = \"fixed\", value = \"1s\" }\nsize = { kind = \"fixed\", value = 2896 }\nmessages = 3\nstop = \"4s\"");
        assert_eq!(
            message_schedule("apps[0]", &fixed).unwrap(),
            Some(MessageSchedule {
                interarrival: std::time::Duration::from_secs(1),
                size: 2896,
                count: Some(3),
                stop: Some(std::time::Duration::from_secs(4)),
            })
        );
        let random = messages("interarrival = { kind = \"exponential\", mean = \"1s\" }\nsize = { kind = \"fixed\", value = 100 }");
        let e = message_schedule("apps[0]", &random)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("apps[0].interarrival") && e.contains("fixed interarrival and size"),
            "{e}"
        );
        let sized = messages("interarrival = { kind = \"fixed\", value = \"1s\" }\nsize = { kind = \"uniform\", min = 1, max = 9 }");
        assert!(message_schedule("apps[0]", &sized)
            .unwrap_err()
            .to_string()
            .contains("apps[0].size"));
        // A bulk app has no schedule: the same network, kind tcp_bulk.
        let bulk = rexmit_scenario::Scenario::from_toml(
            "stop_time = \"1s\"\n[[nodes]]\nname = \"A\"\n[[nodes]]\nname = \"B\"\n[[links]]\nbetween = [\"A\", \"B\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n[[apps]]\nname = \"x\"\nkind = \"tcp_bulk\"\nfrom = \"A\"\nto = \"B\"\n",
        )
        .expect("scenario");
        assert_eq!(message_schedule("apps[0]", &bulk.apps[0]).unwrap(), None);
    }
}
