//! Every knob of an SCTP association, with RFC 4960 / RFC 9260 defaults, declared once in the
//! option tables below (`sctp_option_table` and its nested `cmt`, `thin` and `rack` tables);
//! the structs, their `Default`, the range checks and the option list are derived from them
//! (crate `rexmit-options`). Owns: parameter values and their allowed ranges. Does not own: any
//! behaviour.

rexmit_options::choices! {
    /// How Max.Burst limits a transmit opportunity (RFC 9260 §6.1 D).
    pub enum MaxBurstRule {
        /// At most Max.Burst new-data packets per destination per opportunity, cwnd untouched:
        /// RFC 9260, and what seed 000 §V.B.1 describes ("cwnd on path 2 is 127162 bytes, but the
        /// Maxburst parameter limits the sender to transmit only 4 MTU sized TPDUs").
        LimitPackets = "limit_packets",
        /// RFC 4960 §6.1 D: lower cwnd to flightsize + Max.Burst·MTU.
        ClampCwnd = "clamp_cwnd",
    }
}

rexmit_options::choices! {
    /// Whether the receiver may take back (renege) SACKed out-of-order data.
    pub enum RenegePolicy {
        /// Out-of-order data is never dropped once acked, so all of it is non-renegable (seed 000
        /// §II.A: FreeBSD `net.inet.sctp.do_sctp_drain=0`).
        Never = "never",
        /// Undelivered out-of-order data is renegable; it is dropped when the receive buffer is
        /// full and the chunk that would advance the cumulative TSN does not fit (RFC 9260 §6.2).
        UnderMemoryPressure = "under_memory_pressure",
    }
}

rexmit_options::choices! {
    /// Where CMT sends retransmissions (Iyengar et al., §4 of the CMT paper).
    pub enum RtxPolicy {
        /// RTX-SAME: the destination of the original transmission.
        Same = "same",
        /// RTX-ASAP: any destination with cwnd space now.
        Asap = "asap",
        /// RTX-CWND: the active destination with the largest cwnd.
        Cwnd = "cwnd",
        /// RTX-SSTHRESH: the active destination with the largest ssthresh (seed 000 §IV.A).
        Ssthresh = "ssthresh",
    }
}

rexmit_options::choices! {
    /// What cwnd, flightsize and partial_bytes_acked count (RFC 9260 §6.1, §7.2), and so what
    /// "MTU" means in §7.2's rules.
    #[derive(Default)]
    pub enum CwndBytes {
        /// User data: a chunk counts its payload, and the MTU of §7.2 is the largest DATA
        /// payload of a packet (pmtu − 48), like TCP's SMSS.
        #[default]
        Payload = "payload",
        /// FreeBSD's: a DATA chunk counts its payload plus its 16-byte chunk header (its
        /// `book_size` in sctp_output.c) in flightsize, in the bytes a SACK acknowledges and in
        /// partial_bytes_acked, and cwnd steps, floors and falls by the path MTU with the IP
        /// header (`net->mtu`, i.e. `pmtu`).
        Chunk = "chunk",
    }
}

rexmit_options::choices! {
    /// The rules of the T3-rtx timer (RFC 9260 §6.3.2, §6.3.3).
    #[derive(Default)]
    pub enum T3Rtx {
        /// RFC 9260: every SACK that acknowledges the earliest outstanding TSN of a destination
        /// restarts its timer (§6.3.2 R3); on expiry every chunk outstanding there is
        /// retransmitted and cwnd falls to one MTU (§6.3.3 E1, E3).
        #[default]
        Rfc9260 = "rfc9260",
        /// FreeBSD's (sctp_express_handle_sack, sctp_t3rxt_timer, sctp_mark_all_for_resend): a
        /// SACK without gap blocks that follows one without gap blocks never restarts a running
        /// timer; on expiry only chunks outstanding longer than SRTT + 4·RTTVAR are marked, and
        /// cwnd falls to one MTU only if one was; the RTO backoff is undone by any SACK of data
        /// sent once; while chunks are marked, the expiry's output call sends at most one
        /// packet of them and no new data (sctp_chunk_output from SCTP_OUTPUT_FROM_T3).
        Freebsd = "freebsd",
    }
}

rexmit_options::choices! {
    /// How bursts are limited while recovering from a tail loss found by a tail loss probe
    /// (seed 002 §V.A).
    pub enum BurstMitigation {
        /// Only cwnd limits the retransmissions (seed 002 Fig. 8).
        None = "none",
        /// SCTP's Max.Burst (`max_burst` packets per transmit opportunity, Fig. 9).
        MaxBurst = "max_burst",
        /// Seed 002's adaptive limit: 4 MTU per opportunity in the first recovery round trip, 2
        /// MTU after; lowered when retransmissions are lost, reset after 16 clean recoveries.
        Adaptive = "adaptive",
    }
}

rexmit_options::choices! {
    /// When an acknowledgement may grow cwnd (RFC 9260 §7.2.1–7.2.2).
    #[derive(Default)]
    pub enum CwndGrowth {
        /// RFC 9260 (RFC 4960 with its errata, RFC 8540 §3.22 and §3.26; Linux): slow start
        /// grows a fully used cwnd outside fast recovery whether or not the cumulative TSN ack
        /// point moves; partial_bytes_acked counts every newly acknowledged byte and is capped
        /// at cwnd while cwnd is not fully used.
        #[default]
        Rfc9260 = "rfc9260",
        /// RFC 4960 as written (FreeBSD, ns-2, Linux before 2017: the stacks of seeds 000, 002
        /// and 004): growth only on a SACK that advances the cumulative TSN ack point (or, with
        /// CMT's CUC, the destination's pseudo-cumulative ack), never in fast recovery.
        Rfc4960 = "rfc4960",
    }
}

/// Concurrent Multipath Transfer (`sctp.cmt = { ... }`; Iyengar et al.).
#[macro_export]
macro_rules! cmt_option_table {
    ($generator:path { $($head:tt)* }) => { $generator! { $($head)* ;
    public {
        /// Send new data on all active paths (off: only on the primary, plain SCTP).
        opt enabled: bool = false, unit = flag;
        /// Split Fast Retransmit: count miss indications per destination.
        opt sfr: bool = true, unit = flag;
        /// Cwnd Update for CMT: grow a destination's cwnd on its own pseudo cumulative ack.
        opt cuc: bool = true, unit = flag;
        /// CUC with a second pseudo cumulative ack per destination for retransmitted chunks
        /// (FreeBSD's CUCv2, sctp_indata.c): a retransmission outstanding on a destination does
        /// not hold back the growth that acknowledgements of its first transmissions earn, and
        /// with `t3_rtx = "freebsd"` either tracker moving restarts the destination's T3-rtx
        /// (sctp_handle_sack, `new_pseudo_cumack`), so a lost retransmission waits for a timer
        /// that the path's new data keeps restarting.
        opt rtx_pseudo_cumack: bool = false, unit = flag;
        /// Cut a destination's cwnd on every SACK that newly marks chunks of it for fast
        /// retransmission, in fast recovery or not, as FreeBSD's CMT does
        /// (sctp_cwnd_update_after_fr: with CMT on, its recovery-window test is skipped; each
        /// cut moves the destination's recovery point). Off: once per recovery window per
        /// destination (RFC 9260 §7.2.4 step 2, CMT's recovery point per destination).
        opt cut_every_sack: bool = false, unit = flag;
        /// Let a destination's cwnd grow while it is in fast recovery, as FreeBSD's CMT does
        /// (sctp_cwnd_update_after_sack skips the update in recovery only with CMT off). Off:
        /// no growth until the destination leaves fast recovery (RFC 4960 §7.2.4 as rexmit
        /// reads it with `cwnd_growth = "rfc4960"`).
        opt grow_in_recovery: bool = false, unit = flag;
        /// Delayed Ack for CMT (DAC; on as in ns-2's CMT): the receiver keeps delaying SACKs
        /// through reordering and reports the packets each SACK covers; the sender counts that
        /// many miss indications when the SACK acknowledges data of one destination only, above
        /// the missing TSN.
        opt dac: bool = true, unit = flag;
        /// Where retransmissions go (RTX-SSTHRESH: seed 000 §IV.A).
        opt rtx_policy: $crate::RtxPolicy = $crate::RtxPolicy::Ssthresh, unit = choice;
        /// Choose a retransmission's destination when its chunk is marked, as FreeBSD's CMT
        /// does (sctp_strike_gap_ack_chunks and sctp_t3rxt_timer set the chunk's `whoTo` from
        /// sctp_find_alternate_net): by `rtx_policy` over the paths' cwnds before the loss's
        /// cut, after a T3-rtx expiry's error count; an expiry also moves the chunks already
        /// marked for the expiring path. A marked chunk goes out when its own destination has
        /// room, with the marked chunks bound there (sctp_chunk_retransmission). Off: the
        /// destination is chosen when the lowest marked chunk is sent, from the cwnds then,
        /// and every marked chunk follows it.
        opt rtx_dest_at_mark: bool = false, unit = flag;
        /// A chunk a T3-rtx expiry marked is never fast retransmitted afterwards, as FreeBSD's
        /// CMT does (sctp_mark_all_for_resend sets the chunk's `no_fr_allowed` when CMT is on,
        /// and sctp_strike_gap_ack_chunks skips such chunks): only a later expiry resends it.
        /// Off: its miss indications count afresh from the expiry and three of them fast
        /// retransmit it (RFC 9260 §7.2.4), though SFR's newer acks on its new destination may
        /// be for data sent before the retransmission.
        opt no_fr_after_t3: bool = false, unit = flag;
        /// Potentially-failed state: a path that timed out gets no new data until a heartbeat
        /// confirms it (CMT-PF).
        opt pf: bool = false, unit = flag;
        /// Consecutive timeouts after which a path becomes potentially failed.
        opt pf_threshold: u32 = 1, unit = count, relation = "< path_max_retrans";
    }
    internal {}
    } };
}

cmt_option_table!(rexmit_options::config_table {
    /// Concurrent Multipath Transfer knobs.
    #[derive(Clone, Debug, PartialEq)]
    pub struct CmtConfig
});

impl rexmit_options::Relations for CmtConfig {}

/// Seed 004's thin-stream modifications (§5) and two comparison mechanisms, each switchable on
/// its own; all off by default (plain RFC 9260 behaviour). The four seed-004 modifications act
/// only while the association is thin (see `crate::thin`); EFR and RFC 5827 early retransmit
/// have their own activation rules (`sctp.thin = { ... }`).
#[macro_export]
macro_rules! thin_option_table {
    ($generator:path { $($head:tt)* }) => { $generator! { $($head)* ;
    public {
        /// Seed 004 §5.2: RTO.Min of `thin_rto_min` (200 ms) instead of RTO.Min while thin.
        opt rto_min_200ms: bool = false, unit = flag;
        /// Seed 004 §5.2: a SACK that restarts T3-rtx (RFC 9260 §6.3.2 R3) restarts it so that
        /// it expires one RTO after the earliest outstanding chunk was sent, not one RTO after
        /// the SACK.
        opt timer_restart_correction: bool = false, unit = flag;
        /// Seed 004 §5.3: no exponential backoff of the RTO on T3-rtx expiry while thin.
        opt linear_timeouts: bool = false, unit = flag;
        /// Seed 004 §5.4: fast retransmit on the first miss indication while thin (instead of 3).
        opt fast_rtx_first_indication: bool = false, unit = flag;
        /// FreeBSD's early fast retransmit (seed 004 §2, §7.5; a comparison option): while
        /// flightsize < cwnd, chunks outstanding longer than SRTT + RTTVAR (at least `efr_min`)
        /// are retransmitted and cwnd shrinks by one MTU.
        opt early_fast_retransmit: bool = false, unit = flag;
        /// The shortest EFR wait: FreeBSD's `net.inet.sctp.early_fast_retran_msec`, whose default
        /// is 250 ms (the FreeBSD 6.2 of seed 004 §6.4 ran with it). Zero gives seed 004 §2's
        /// description read literally (SRTT + RTTVAR alone).
        opt efr_min: $crate::__Duration = $crate::__Duration::from_millis(250), unit = time,
            check = *efr_min <= $crate::__Duration::from_secs(60) => "0..=60s";
        /// RFC 5827 early retransmit (packet-based, §3.2; a comparison option): with fewer than 4
        /// packets outstanding and no new data sendable, the fast-retransmit threshold drops to
        /// outstanding − 1.
        opt early_retransmit_rfc5827: bool = false, unit = flag;
        /// Seed 004 Fig. 3: `pttfr + 1`, the packets needed to trigger a fast retransmission plus
        /// the lost one (pttfr = 3). Thin while in_flight <= this / (1 − lossrate).
        opt thin_threshold_packets: u32 = 4, unit = packets,
            check = *thin_threshold_packets >= 1 => ">= 1";
        /// Use the loss-rate term of seed 004 Fig. 3 (off: thin while in_flight <= threshold).
        opt thin_loss_rate_term: bool = true, unit = flag;
        /// The lowered RTO.Min of `rto_min_200ms` (seed 004 §5.2: 200 ms).
        opt thin_rto_min: $crate::__Duration = $crate::__Duration::from_millis(200), unit = time,
            check = !thin_rto_min.is_zero() => "(0, rto.max]";
    }
    internal {}
    } };
}

thin_option_table!(rexmit_options::config_table {
    #[derive(Clone, Debug, PartialEq)]
    pub struct ThinStreamConfig
});

impl rexmit_options::Relations for ThinStreamConfig {}

/// RACK for SCTP (seed 002 §III; `sctp.rack = { ... }`): per-chunk RACK-TLP loss detection in
/// place of the three-miss-indication rule. Off by default (plain RFC 9260).
#[macro_export]
macro_rules! rack_option_table {
    ($generator:path { $($head:tt)* }) => { $generator! { $($head)* ;
    public {
        /// Time-based loss detection (RFC 8985 §6 per DATA chunk); replaces fast retransmit on
        /// three miss indications.
        opt enabled: bool = false, unit = flag, relation = "false when cmt.enabled";
        /// Tail loss probes (seed 002 §II.C): PTO = 2·SRTT + 2 ms, or + 200 ms with one chunk out.
        opt tlp: bool = true, unit = flag;
        /// Burst limit in TLP-triggered recovery (seed 002 §V.A).
        opt burst_mitigation: $crate::BurstMitigation = $crate::BurstMitigation::Adaptive,
            unit = choice;
        /// PTO's addition when more than one chunk is outstanding (seed 002 §II.C: 2 ms).
        opt pto_extra: $crate::__Duration = $crate::__Duration::from_millis(2), unit = time,
            check = *pto_extra <= $crate::__Duration::from_millis(200) => "0..=200ms";
        /// What restarts the 16-recovery persistence of a widened reordering window: the last
        /// D-SACK (RFC 8985 §6.2) or also each reordering detected (seed 002 §II.B).
        opt reo_wnd_persist: $crate::PersistFrom = $crate::PersistFrom::Dsack, unit = choice;
        /// Seed 002 §V.B's active RTT measurement: a path idle this long gets a HEARTBEAT, whose
        /// ACK refreshes the RTT that RACK's timers and the probe timeout follow, even when
        /// HB.interval is longer or off (a signalling association idle between requests).
        /// Unset ("0s"): heartbeats only every HB.interval.
        opt rtt_probe: Option<$crate::__Duration> = None, unit = time_or_off,
            check = rtt_probe.map_or(true, |p| !p.is_zero()) => "> 0 (or none: off)",
            relation = "unset unless rack.enabled",
            // Left out of `rexmit normalize` while off, so that scenarios written before it
            // existed keep their normalized text (and their sweep run ids).
            shown = |r: &$crate::RackConfig| r.rtt_probe.is_some();
    }
    internal {}
    } };
}

rack_option_table!(rexmit_options::config_table {
    #[derive(Clone, Debug, PartialEq)]
    pub struct RackConfig
});

impl rexmit_options::Relations for RackConfig {}

/// The SCTP option table (`sctp = { ... }`, same names, same order): every knob of an
/// association with its RFC 4960 / RFC 9260 default, unit and allowed range. `internal` options
/// are set only by code. Checks relating two options: `Relations for SctpConfig`.
#[macro_export]
macro_rules! sctp_option_table {
    ($generator:path { $($head:tt)* }) => { $generator! { $($head)* ;
    public {
        /// Offer the NR-SACK extension (chunk type 16, seed 000) in INIT / INIT-ACK.
        opt nr_sack: bool = false, unit = flag;
        /// Explicit Congestion Notification (RFC 9260 Appendix A, RFC 3168): offer ECN Capable
        /// in INIT / INIT-ACK; once both offered, new DATA goes ECT(0), a CE mark is echoed in
        /// ECNE chunks until a CWR, and an echo reduces the destination's cwnd once per window.
        opt ecn: bool = false, unit = flag;
        /// Send buffer limit in bytes of user data (unsent data plus retransmission queue). The
        /// upper bound is the receive buffer's (a_rwnd is 32 bits, RFC 9260 §3.3.2): a bulk
        /// source fills its send buffer with messages at once, so a bound-less buffer would
        /// never stop filling.
        opt send_buffer: u64 = 64 * 1024, unit = bytes,
            relation = "one full DATA chunk (pmtu - 48) ..= 4294967296 (4 GiB)";
        /// Receive buffer in bytes of user data; advertised as the initial a_rwnd.
        opt recv_buffer: u32 = 64 * 1024, unit = bytes,
            check = *recv_buffer >= 1500 => ">= 1500 (RFC 9260 §3.3.2)";
        /// Path MTU in bytes (IP header included), the same for every path.
        opt pmtu: u32 = 1500, unit = size, check = (576..=65535).contains(pmtu) => "576..=65535";
        /// RTO.Initial / RTO.Min / RTO.Max (RFC 4960 §15: 3 s, 1 s, 60 s).
        table rto: $crate::__RtoConfig = $crate::__RtoConfig::sctp(), unit = table;
        /// Which RFC's rules let an acknowledgement grow cwnd (RFC 9260 §7.2.1–7.2.2).
        opt cwnd_growth: $crate::CwndGrowth = $crate::CwndGrowth::Rfc9260, unit = choice;
        /// What cwnd and flightsize count: "payload" (user-data bytes; the MTU of §7.2 is a
        /// full chunk's payload, pmtu − 48) or FreeBSD's "chunk" (payload + 16 per DATA chunk;
        /// the MTU is pmtu). The peer's window is debited in the same unit.
        opt cwnd_bytes: $crate::CwndBytes = $crate::CwndBytes::Payload, unit = choice,
            // Left out of `rexmit normalize` at its default, so that scenarios written before
            // it existed keep their normalized text (and their sweep run ids).
            shown = |c: &$crate::SctpConfig| c.cwnd_bytes != $crate::CwndBytes::Payload;
        /// A congestion controller of the registry TCP uses, by name (a built-in such as
        /// "cubic", or a registered plugin), run on every destination, one instance each, and
        /// told the events SCTP has (docs/congestion_control.md, "SCTP"). Unset: RFC 9260
        /// §7.2's per-destination rules.
        opt cc: Option<$crate::__CcName> = None, unit = controller,
            relation = "a registered controller that needs neither delivery-rate samples nor per-packet ECN feedback; unset: RFC 9260 §7.2",
            // Left out of `rexmit normalize` while unset, so that scenarios written before it
            // existed keep their normalized text (and their sweep run ids).
            shown = |c: &$crate::SctpConfig| c.cc.is_some();
        /// The controller's parameters, e.g. { a = 2, b = 0.125 } for "aimd"; each controller
        /// declares its own with their defaults and ranges.
        opt cc_params: $crate::__ParamMap = $crate::__ParamMap::default(), unit = params,
            relation = "the parameters cc declares, each in its range; empty without cc";
        /// Slow start grows cwnd by at most this many MTUs per SACK (RFC 9260 §7.2.1: 1;
        /// FreeBSD's `net.inet.sctp.abc_l_var`, RFC 3465's L: 2).
        opt slow_start_limit_mtus: u32 = 1, unit = packets,
            check = *slow_start_limit_mtus >= 1 => ">= 1";
        /// The T3-rtx timer's rules: RFC 9260's, or FreeBSD's (a SACK without gap blocks after
        /// one without them leaves a running timer alone; on expiry only chunks outstanding
        /// longer than SRTT + 4·RTTVAR are retransmitted, and cwnd is cut only if one was).
        opt t3_rtx: $crate::T3Rtx = $crate::T3Rtx::Rfc9260, unit = choice;
        /// RTT samples from the handshake, as FreeBSD takes them (sctp_calculate_rto on INIT
        /// ACK, COOKIE ACK and the State Cookie's time): INIT to INIT ACK and COOKIE ECHO to
        /// COOKIE ACK at the initiator (chunks sent once), INIT ACK to COOKIE ECHO at the
        /// responder. Off: RTO.Initial until the first DATA chunk is acknowledged (RFC 9260
        /// §6.3.1 C1).
        opt handshake_rtt: bool = false, unit = flag;
        /// A fast-retransmitted TSN may be fast retransmitted again, as FreeBSD does without
        /// CMT (sctp_strike_gap_ack_chunks): its miss indications count afresh from its
        /// retransmission, in fast recovery on every SACK that advances the cumulative TSN ack,
        /// otherwise only on a SACK that newly acknowledges a TSN sent after it was marked.
        /// Off: at most once (RFC 9260 §7.2.4).
        opt fast_rtx_again: bool = false, unit = flag;
        /// FreeBSD's fast-retransmit burst (sctp_chunk_output, `fr_max_burst`; FreeBSD ships
        /// 4): with n > 0 every packet led by a chunk marked by fast retransmit goes whatever
        /// cwnd says, at most n such packets per output call, and the call ends at the n-th (no
        /// new data after it); FreeBSD calls its output routine after each input and after each
        /// write, so writes at the instant of the input add n each. 0: RFC 9260 §7.2.4 step 3,
        /// one packet whatever cwnd says, the rest within cwnd.
        opt fr_max_burst: u32 = 0, unit = packets;
        /// ssthresh's floor when fast retransmit cuts cwnd, in MTUs: ssthresh = max(cwnd/2,
        /// n·MTU), cwnd = ssthresh (RFC 9260 §7.2.3: 4; FreeBSD's sctp_cwnd_update_after_fr: 2).
        /// The T3-rtx cut and the ECN echo keep RFC 9260's 4.
        opt fr_ssthresh_floor_mtus: u32 = 4, unit = packets,
            check = *fr_ssthresh_floor_mtus >= 1 => ">= 1";
        /// A SACK's cwnd update (growth for the bytes it acknowledges) comes before the same
        /// SACK's fast-retransmit cut, as in FreeBSD (sctp_handle_sack calls
        /// sctp_cwnd_update_after_sack, then sctp_cwnd_update_after_fr): the cut halves the grown
        /// window. Off: losses are detected and cwnd cut first, then the update runs (no growth
        /// in the fast recovery just entered; with `cmt.grow_in_recovery` growth on top of the cut).
        opt grow_before_cut: bool = false, unit = flag;
        /// Max.Burst (RFC 9260 §16: 4); 0 disables the limit.
        opt max_burst: u32 = 4, unit = packets;
        /// How Max.Burst applies (RFC 9260 §6.1 D): at most Max.Burst new-data packets per
        /// destination per transmit opportunity, or RFC 4960's first form (cwnd = min(cwnd,
        /// flightsize + Max.Burst·MTU) before new data goes).
        opt max_burst_rule: $crate::MaxBurstRule = $crate::MaxBurstRule::LimitPackets,
            unit = choice;
        /// Initial cwnd in bytes; unset: RFC 9260 §7.2.1 min(4·MTU, max(2·MTU, 4380)).
        opt initial_cwnd: Option<u64> = None, unit = bytes_or_auto,
            relation = ">= one full DATA chunk (pmtu - 48)";
        /// Initial ssthresh in bytes; unset: the peer's a_rwnd (RFC 9260 §7.2.1).
        opt initial_ssthresh: Option<u64> = None, unit = bytes_or_auto,
            relation = ">= one full DATA chunk (pmtu - 48)";
        /// Delayed SACK timer (RFC 9260 §6.2: 200 ms, at most 500 ms).
        opt sack_delay: $crate::__Duration = $crate::__Duration::from_millis(200), unit = time,
            check = !sack_delay.is_zero() && *sack_delay <= $crate::__Duration::from_millis(500)
                => "(0, 500ms] (RFC 9260 §6.2)";
        /// SACK every `sack_freq`-th packet carrying DATA (RFC 9260 §6.2: 2).
        opt sack_freq: u32 = 2, unit = packets, check = *sack_freq >= 1 => ">= 1";
        /// SACK at once while gaps exist or when a gap is filled (RFC 9260 §6.7).
        opt immediate_sack_on_gap: bool = true, unit = flag;
        /// SACK the first packet carrying DATA at once, as FreeBSD does (an association starts
        /// with `send_sack` set, sctp_sack_check); then every `sack_freq`-th packet. Off: the
        /// first packet waits for the second or for `sack_delay` like any other (RFC 9260 §6.2).
        opt sack_first_data: bool = false, unit = flag;
        /// FreeBSD's receiver mapping array (SCTP_MAPPING_ARRAY, 512 bytes: 4096 TSNs): with
        /// n > 0 a DATA chunk whose TSN is n or more above the array's base, the cumulative ack
        /// plus one rounded down to whole bytes of 8 TSNs while a TSN is missing, is dropped
        /// unacknowledged (sctp_process_a_data_chunk), as if lost. 0: only the 16-bit gap
        /// offset limits how far above the cumulative ack a TSN is held (RFC 9260 §3.3.4).
        opt tsn_map_window: u32 = 0, unit = count;
        /// Whether the receiver may renege SACKed out-of-order data.
        opt renege: $crate::RenegePolicy = $crate::RenegePolicy::UnderMemoryPressure,
            unit = choice;
        /// Jitter each heartbeat's RTO by ±50% (RFC 9260 §8.3, as FreeBSD); off: exactly
        /// HB.interval + RTO after the path fell idle (ns-2).
        opt hb_jitter: bool = true, unit = flag;
        /// Association.Max.Retrans (RFC 9260 §16: 10).
        opt assoc_max_retrans: u32 = 10, unit = count, check = *assoc_max_retrans >= 1 => ">= 1";
        /// Path.Max.Retrans (RFC 9260 §16: 5).
        opt path_max_retrans: u32 = 5, unit = count, check = *path_max_retrans >= 1 => ">= 1";
        /// HB.interval (RFC 9260 §16: 30 s); "0s" turns heartbeats off.
        opt hb_interval: Option<$crate::__Duration> = Some($crate::__Duration::from_secs(30)),
            unit = time_or_off,
            check = hb_interval.map_or(true, |h| !h.is_zero()) => "> 0 (or none to disable)";
        /// Concurrent Multipath Transfer.
        table cmt: $crate::CmtConfig = $crate::CmtConfig::default(), unit = table;
        /// Thin-stream modifications (seed 004), all off by default.
        table thin: $crate::ThinStreamConfig = $crate::ThinStreamConfig::default(), unit = table;
        /// RACK-TLP loss detection (seed 002), off by default.
        table rack: $crate::RackConfig = $crate::RackConfig::default(), unit = table;
    }
    internal {
        /// Delivered messages leave the receive buffer at once (an application that always
        /// reads). Off: they stay until `Association::consume` (a slow reader).
        opt auto_consume: bool = true, unit = flag;
        /// Outbound streams requested in INIT.
        opt outbound_streams: u16 = 10, unit = count,
            check = *outbound_streams >= 1 => "1..=65535";
        /// Inbound streams accepted.
        opt max_inbound_streams: u16 = 2048, unit = count,
            check = *max_inbound_streams >= 1 => "1..=65535";
        /// Max.Init.Retransmits (RFC 9260 §16: 8).
        opt max_init_retransmits: u32 = 8, unit = count,
            check = *max_init_retransmits >= 1 => ">= 1";
        /// Valid.Cookie.Life (RFC 9260 §16: 60 s).
        opt valid_cookie_life: $crate::__Duration = $crate::__Duration::from_secs(60), unit = time,
            check = !valid_cookie_life.is_zero() => "> 0";
        /// Key for the state cookie's integrity check (deterministic, no RNG).
        opt cookie_secret: u64 = 0x7265_786d_6974_5343, unit = count;
        /// Seed of the association's own random draws (heartbeat jitter): a sans-IO core has
        /// no random stream of its own, so whoever creates it gives it one (the simulator
        /// draws it from the app's named stream).
        opt random_seed: u64 = 0x6862_6a69_7474_6572, unit = count;
    }
    } };
}

sctp_option_table!(rexmit_options::config_table {
    #[derive(Clone, Debug, PartialEq)]
    pub struct SctpConfig
});

/// A parameter outside its allowed range (key, allowed range, value).
pub use rexmit_options::ConfigError;

impl ThinStreamConfig {
    /// The four modifications of seed 004 §5 together ("All mods" of Fig. 8).
    pub fn all_seed004() -> Self {
        ThinStreamConfig {
            rto_min_200ms: true,
            timer_restart_correction: true,
            linear_timeouts: true,
            fast_rtx_first_indication: true,
            ..ThinStreamConfig::default()
        }
    }
    /// Some seed-004 modification needs the thin-stream test.
    pub fn needs_thin_test(&self) -> bool {
        self.rto_min_200ms
            || self.timer_restart_correction
            || self.linear_timeouts
            || self.fast_rtx_first_indication
    }
    /// Packets in flight must be tracked (thin test or RFC 5827's outstanding packets).
    pub fn tracks_packets(&self) -> bool {
        self.needs_thin_test() || self.early_retransmit_rfc5827
    }
}

impl RackConfig {
    /// RACK with TLP and the adaptive burst limit: seed 002's full proposal.
    pub fn seed002() -> Self {
        RackConfig {
            enabled: true,
            ..RackConfig::default()
        }
    }
}

/// The largest send buffer (4 GiB).
pub const SEND_BUFFER_MAX: u64 = 1 << 32;

impl SctpConfig {
    /// Largest user-data payload of one DATA chunk alone in a packet: PMTU minus the IPv4
    /// header (20), the SCTP common header (12) and the DATA chunk header (16). Congestion
    /// control uses it wherever the RFC says "MTU", like TCP's SMSS, so that "n TPDUs" in
    /// seed 000's figures are exactly n of these.
    pub fn max_data_payload(&self) -> u32 {
        (self.pmtu - 20 - 12 - 16) & !3
    }

    /// The MTU of RFC 9260 §7.2 (cwnd's steps, floors and initial value) in cwnd's unit
    /// (`cwnd_bytes`): a full chunk's payload, or FreeBSD's path MTU.
    pub fn cc_mtu(&self) -> u64 {
        match self.cwnd_bytes {
            CwndBytes::Payload => self.max_data_payload() as u64,
            CwndBytes::Chunk => self.pmtu as u64,
        }
    }

    /// What one DATA chunk adds to flightsize beyond its payload (`cwnd_bytes`): 0, or its
    /// 16-byte header (FreeBSD's `book_size`).
    pub fn chunk_flight_overhead(&self) -> u32 {
        match self.cwnd_bytes {
            CwndBytes::Payload => 0,
            CwndBytes::Chunk => rexmit_wire::sctp::DATA_CHUNK_HEADER_LEN as u32,
        }
    }

    /// Every option's range (the option tables), then the relations between options.
    pub fn validate(&self) -> Result<(), ConfigError> {
        rexmit_options::validate(self)
    }

    /// What a plugged controller (`cc`) is built with, initial ssthresh `ssthresh`: RFC 9260
    /// §7.2.1's initial cwnd (or `initial_cwnd`) and slow start by at most one MTU per SACK,
    /// §7.2.2's byte counting, the MTU as SMSS (`max_data_payload`). The TCP-only options of
    /// the built-ins keep their RFC defaults (no HyStart; CUBIC's α switch, RFC 9438 §4.3).
    pub fn controller_params(&self, ssthresh: u64) -> rexmit_tcp::cc::CcParams {
        let smss = self.cc_mtu();
        rexmit_tcp::cc::CcParams {
            initial_cwnd: initial_window(smss, self.initial_cwnd),
            initial_ssthresh: ssthresh,
            smss,
            byte_counting: true,
            whole_segments: false,
            // §7.2.1: at most one MTU per SACK (`slow_start_limit_mtus`: FreeBSD's L of 2).
            slow_start_limit: smss * self.slow_start_limit_mtus as u64,
            hystart: false,
            hystart_detect: 3,
            cubic_alpha_switch: true,
            cubic_idle_epoch: false,
        }
    }

    /// `cc` and `cc_params`, and the options a plugged controller cannot run with: those that
    /// write cwnd themselves (the controller owns its window).
    fn check_controller(&self) -> Result<(), ConfigError> {
        use rexmit_options::require;
        use rexmit_tcp::cc::registry;
        let Some(cc) = &self.cc else {
            return require(
                self.cc_params.is_empty(),
                "cc_params",
                "empty without cc (RFC 9260 §7.2 has no parameters)",
                &self.cc_params,
            );
        };
        let Some(plugin) = registry::lookup(cc.as_str()) else {
            let names = registry::names().join(", ");
            return Err(ConfigError::new("cc", format!("one of {names}"), cc));
        };
        let values = registry::resolve(plugin.as_ref(), &self.cc_params)?;
        // Asked of an instance, as TCP's sender asks once: SCTP has no delivery-rate estimator.
        let probe = plugin.build(&self.controller_params(u64::MAX), &values);
        require(
            !probe.wants_rate_samples(),
            "cc",
            "a controller that needs no delivery-rate samples",
            cc,
        )?;
        // A controller that needs its own ECN feedback (DCTCP's per-packet echo, RFC 8257
        // §3.2) cannot run on RFC 9260 Appendix A's ECNE, which echoes one mark until a CWR.
        require(
            plugin.ecn_feedback().is_none(),
            "cc",
            "a controller that needs no per-packet ECN feedback",
            cc,
        )?;
        require(
            self.max_burst_rule == MaxBurstRule::LimitPackets,
            "max_burst_rule",
            "\"limit_packets\" with sctp.cc",
            &self.max_burst_rule,
        )?;
        require(
            !self.thin.early_fast_retransmit,
            "thin.early_fast_retransmit",
            "false with sctp.cc",
            &self.thin.early_fast_retransmit,
        )
    }
}

/// Why `field` is refused together with a plugged controller (`cc` set), for the scenario's
/// error message: what the value would do that the controller interface cannot carry.
/// `allowed` tells `cc`'s two refusals apart.
pub fn refused_with_cc(field: &str, allowed: &str) -> Option<&'static str> {
    match field {
        "cc" if allowed.contains("ECN") => Some(
            "needs DCTCP's per-packet ECN echo (RFC 8257 §3.2); SCTP's ECNE echoes one mark until a CWR (RFC 9260 Appendix A)",
        ),
        "cc" => Some(
            "needs delivery-rate samples (on_rate_ack), which SCTP does not produce (no rate estimator)",
        ),
        "max_burst_rule" => Some("writes the window, which a plugged controller owns"),
        "thin.early_fast_retransmit" => Some(
            "lowers cwnd by one MTU with no event for it, and a plugged controller owns the window",
        ),
        _ => None,
    }
}

/// The checks that relate options to each other (ranges are in the tables).
impl rexmit_options::Relations for SctpConfig {
    fn check_relations(&self) -> Result<(), ConfigError> {
        use rexmit_options::require;
        let chunk = self.max_data_payload() as u64;
        require(
            (chunk..=SEND_BUFFER_MAX).contains(&self.send_buffer),
            "send_buffer",
            "one full DATA chunk (pmtu - 48) ..= 4294967296 (4 GiB)",
            &self.send_buffer,
        )?;
        // Linux's estimator counts round trips in TCP sequence numbers (RFC 9260 §6.3.1, or
        // the same computed in FreeBSD's whole milliseconds).
        require(
            self.rto.estimator != rexmit_transport::RtoEstimator::Linux,
            "rto.estimator",
            "rfc6298 | freebsd",
            &self.rto.estimator,
        )?;
        let one_chunk = ">= one full DATA chunk (pmtu - 48)";
        if let Some(c) = self.initial_cwnd {
            require(c >= chunk, "initial_cwnd", one_chunk, &c)?;
        }
        if let Some(s) = self.initial_ssthresh {
            require(s >= chunk, "initial_ssthresh", one_chunk, &s)?;
        }
        require(
            self.thin.thin_rto_min <= self.rto.max,
            "thin.thin_rto_min",
            "(0, rto.max]",
            &self.thin.thin_rto_min,
        )?;
        require(
            self.cmt.pf_threshold < self.path_max_retrans,
            "cmt.pf_threshold",
            "< path_max_retrans",
            &self.cmt.pf_threshold,
        )?;
        require(
            self.rack.rtt_probe.is_none() || self.rack.enabled,
            "rack.rtt_probe",
            "unset unless rack.enabled (seed 002 §V.B probes the RTT for RACK)",
            &self.rack.rtt_probe,
        )?;
        // Seed 002 adapts RACK to one path; with CMT its time order across paths of different
        // delay would read path skew as loss.
        require(
            !(self.rack.enabled && self.cmt.enabled),
            "rack.enabled",
            "false when cmt.enabled (seed 002 specifies RACK for single-path transfer)",
            &self.rack.enabled,
        )?;
        self.check_controller()
    }
}

/// RFC 9260 §7.2.1: the initial cwnd, min(4·MTU, max(2·MTU, 4380)), unless `configured`.
pub fn initial_window(smss: u64, configured: Option<u64>) -> u64 {
    configured.unwrap_or_else(|| (4 * smss).min((2 * smss).max(4380)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rexmit_time::Duration;

    #[test]
    fn defaults_are_valid_and_follow_rfc() {
        let c = SctpConfig::default();
        c.validate().unwrap();
        assert_eq!(c.rto.initial, Duration::from_secs(3));
        assert_eq!(c.max_data_payload(), 1452);
    }

    #[test]
    fn bad_values_name_their_field() {
        let c = SctpConfig {
            sack_delay: Duration::from_secs(1),
            ..SctpConfig::default()
        };
        assert_eq!(c.validate().unwrap_err().field, "sack_delay");
        let c = SctpConfig {
            pmtu: 100,
            ..SctpConfig::default()
        };
        assert_eq!(c.validate().unwrap_err().field, "pmtu");
    }
}
