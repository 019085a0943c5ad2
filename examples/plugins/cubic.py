"""CUBIC (RFC 9438) with Linux's HyStart as a Python plugin, written to give what rexmit's
built-in `cubic` gives, byte for byte (tests/python/test_plugins_identity.py checks it on seed
001's scenario under both profiles and on four competing flows).

W_cubic(t) = C·(t − K)³ + W_max (§4.2), the Reno-friendly estimate W_est (§4.3), β = 0.7
(§4.6), fast convergence (§4.7), K = 0 in the first congestion avoidance after a timeout
(§4.8). HyStart (Ha & Rhee 2011, as Linux 6.x runs it) ends slow start early on an ACK train
longer than half the minimum delay or a delay increase of an eighth of it.

Windows are in bytes, CUBIC's curve in segments (floats); times are taken in integer
nanoseconds (`now_ns`, `rtt_ns`), as the simulator keeps them, so that every floating-point
operation is the one the Rust controller performs, in the same order."""

import math

import rexmit

C = 0.4
BETA = 0.7
ALPHA = 3.0 * (1.0 - BETA) / (1.0 + BETA)  # §4.3: AIMD(α, β) with Reno's average window
MS = 1_000_000  # nanoseconds
cbrt = getattr(math, "cbrt", None)  # Python 3.11+: libm's cbrt, as Rust's f64::cbrt


class HyStart:
    """Linux's slow-start exit: an ACK train or a delay increase within one round."""

    LOW_WINDOW = 16  # segments: the detectors run from this cwnd on (rounds begin below it too)
    ACK_DELTA = 2 * MS  # ACKs closer than this belong to one train
    MIN_SAMPLES = 8  # RTT samples per round before the delay test
    ACK_DELAY = 1 * MS  # the train threshold allows 1 ms of delayed ACKs

    def __init__(self):
        self.found = False
        self.started = False
        self.end_seq = self.round_start = self.last_ack = self.samples = 0
        self.curr_rtt = None  # smallest RTT of this round
        self.delay_min = None  # smallest RTT seen

    def restart(self):
        """After a timeout (Linux's bictcp_reset on entering Loss): forget the exit, the round
        and the minimum delay."""
        self.found = self.started = False
        self.delay_min = None

    def on_rtt_sample(self, rtt, discard):
        if not discard:
            rtt = max(rtt, 1000)
            self.delay_min = rtt if self.delay_min is None else min(self.delay_min, rtt)

    def on_slow_start_ack(self, now, snd_una, snd_nxt, rtt, cwnd_segments):
        """True when slow start should end."""
        if self.found:
            return False
        if not self.started or snd_una > self.end_seq:  # a new round, at any cwnd (Linux >= 6.13)
            self.round_start = self.last_ack = now
            self.end_seq = snd_nxt
            self.curr_rtt = None
            self.samples = 0
            self.started = True
        if cwnd_segments < self.LOW_WINDOW or self.delay_min is None:
            return False
        if now - self.last_ack <= self.ACK_DELTA:  # detector 1: the ACK train
            self.last_ack = now
            if now - self.round_start > (self.delay_min + self.ACK_DELAY) // 2:
                self.found = True
                return True
        self.curr_rtt = rtt if self.curr_rtt is None else min(self.curr_rtt, rtt)
        if self.samples < self.MIN_SAMPLES:  # detector 2: the delay increase
            self.samples += 1
        elif self.curr_rtt > self.delay_min + min(max(self.delay_min // 8, 4 * MS), 16 * MS):
            self.found = True
            return True
        return False


class Cubic(rexmit.CongestionControl):
    """CUBIC (RFC 9438) with HyStart, as rexmit's built-in."""

    def __init__(self, p):
        super().__init__(p)
        self.credit = 0.0  # congestion-avoidance increase not yet in cwnd, bytes
        self.w_max = self.cwnd_prior = self.w_est = self.k = 0.0  # segments
        self.epoch = None  # start of the congestion-avoidance epoch, ns
        self.after_timeout = False
        self.hystart = HyStart() if p.hystart else None

    def segs(self):
        return self.cwnd / self.smss

    def w_cubic(self, t):
        d = t - self.k
        return C * (d * d * d) + self.w_max

    def slow_start(self, acked):
        """RFC 5681 slow start with byte counting limited to L; returns what it left over."""
        if self.cwnd >= self.ssthresh:
            return acked
        limit = self.p.slow_start_limit
        if limit == self.smss:
            self.cwnd += min(acked, self.smss)
            return 0
        new = min(self.cwnd + min(acked, limit), max(self.ssthresh, self.cwnd))
        acked -= new - self.cwnd
        self.cwnd = new
        return acked

    def on_delivery(self, ack):
        # Linux discards delay samples in the first second of an epoch.
        if self.hystart and ack.rtt_ns is not None:
            discard = self.epoch is not None and ack.now_ns - self.epoch < 1000 * MS
            self.hystart.on_rtt_sample(ack.rtt_ns, discard)

    def on_ack(self, ack):
        h = self.hystart
        if h and ack.rtt_ns is not None and self.cwnd < self.ssthresh:
            if h.on_slow_start_ack(ack.now_ns, ack.snd_una, ack.snd_nxt, ack.rtt_ns, self.cwnd // self.smss):
                self.ssthresh = self.cwnd
        rest = self.slow_start(ack.acked)
        if rest == 0:
            return
        smss = float(self.smss)
        cwnd = self.segs()
        if self.epoch is None:
            # §4.2: K = cbrt((W_max − cwnd_epoch)/C); §4.8 (and cwnd_epoch above W_max): K = 0.
            if self.after_timeout or self.w_max <= cwnd:
                self.k = 0.0
                self.w_max = cwnd
            else:
                self.k = cbrt((self.w_max - cwnd) / C)
            self.after_timeout = False
            self.w_est = cwnd
            self.epoch = ack.now_ns
        rtt = (ack.srtt_ns if ack.srtt_ns is not None else 100 * MS) / 1e9
        t = max(ack.now_ns - self.epoch, 0) / 1e9
        segs_acked = rest / smss
        # §4.3: α_cubic becomes 1 once W_est reaches cwnd_prior (Linux keeps 3(1 − β)/(1 + β)).
        alpha = 1.0 if self.p.cubic_alpha_switch and self.w_est >= self.cwnd_prior else ALPHA
        self.w_est += alpha * segs_acked / cwnd
        if self.w_cubic(t) < self.w_est:  # §4.3: the Reno-friendly region, cwnd = W_est
            est = math.floor(self.w_est) * self.smss if self.p.whole_segments else int(self.w_est * smss)
            if est > self.cwnd:
                self.cwnd = est
                self.credit = 0.0
            return
        # §4.2/§4.4: grow towards W_cubic(t + RTT), bounded to [cwnd, 1.5·cwnd].
        target = min(max(self.w_cubic(t + rtt), cwnd), 1.5 * cwnd)
        if target > cwnd:
            self.credit += (target - cwnd) / cwnd * segs_acked * smss
            unit = smss if self.p.whole_segments else 1.0
            if self.credit >= unit:
                whole = math.floor(self.credit / unit) * unit
                self.cwnd += int(whole)
                self.credit -= whole

    def on_congestion_event(self, ev):
        cwnd = self.segs()
        # §4.7 fast convergence, then §4.6: ssthresh = max(β·flight, 2 segments), cwnd = ssthresh.
        self.w_max = cwnd * (1.0 + BETA) / 2.0 if cwnd < self.w_max else cwnd
        self.cwnd_prior = cwnd
        self.epoch = None
        if self.p.whole_segments:
            self.ssthresh = max(math.floor((ev.base // self.smss) * BETA + 1e-9), 2) * self.smss
        else:
            self.ssthresh = max(int(ev.base * BETA), 2 * self.smss)
        self.cwnd = self.ssthresh
        self.credit = 0.0

    def on_timeout(self, ev):
        # §4.8: the §4.6 ssthresh, then cwnd = 1 SMSS; the next epoch has K = 0.
        self.on_congestion_event(ev.congestion_event())
        self.cwnd = self.smss
        self.credit = 0.0
        self.ssthresh = ev.ssthresh_to_keep(self.ssthresh)
        self.after_timeout = True
        if self.hystart:
            self.hystart.restart()


if cbrt is None:  # Python < 3.11: the C library's cbrt, the function Rust calls
    import ctypes
    import ctypes.util

    _libm = ctypes.CDLL(ctypes.util.find_library("m"))
    _libm.cbrt.restype = ctypes.c_double
    _libm.cbrt.argtypes = [ctypes.c_double]
    cbrt = _libm.cbrt

rexmit.register_cc("cubic_py", Cubic, replace=True)
