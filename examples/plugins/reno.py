"""RFC 5681 Reno as a Python plugin, written to give what rexmit's built-in `reno` gives, byte
for byte (tests/python/test_plugins.py checks it on seed 001's scenario under every recovery).

Slow start grows cwnd by at most L = `slow_start_limit` bytes per ACK (RFC 3465 §2.2; one SMSS
by default, none with the linux profile); congestion avoidance adds SMSS per cwnd of
acknowledged data, at most one SMSS per ACK without byte counting (RFC 5681 §3.1 eq. 3); a loss
sets ssthresh = max(base/2, 2·SMSS) and cwnd = ssthresh (eq. 4), in whole segments when the
window counts packets; a timeout then sets cwnd to the loss window, 1 SMSS, keeping the smaller
ssthresh inside a recovery (RFC 5681 §3.1, `Timeout.ssthresh_to_keep`)."""

import math

import rexmit


class Reno(rexmit.CongestionControl):
    """RFC 5681 slow start and congestion avoidance, halving at a loss."""

    def __init__(self, p):
        super().__init__(p)
        self.credit = 0.0  # fractional congestion-avoidance increase, bytes

    def on_ack(self, ack):
        acked = ack.acked
        if self.cwnd < self.ssthresh:
            if self.p.slow_start_limit == self.smss:
                self.cwnd += min(acked, self.smss)
                return
            inc = min(acked, self.p.slow_start_limit)
            new = min(self.cwnd + inc, max(self.ssthresh, self.cwnd))
            acked -= new - self.cwnd
            self.cwnd = new
        if acked == 0:
            return
        if not self.p.byte_counting:
            acked = min(acked, self.smss)
        self.credit += 1.0 * acked
        cwnd = float(max(self.cwnd, 1))
        if self.credit >= cwnd:
            inc = math.floor(self.credit / cwnd)
            self.cwnd += int(inc) * self.smss
            self.credit -= inc * cwnd

    def _decrease(self, base):
        if self.p.whole_segments:
            seg = math.floor((base // self.smss) * 0.5 + 1e-9)
            self.ssthresh = max(seg, 2) * self.smss
        else:
            self.ssthresh = max(int(base * 0.5), 2 * self.smss)
        self.cwnd = self.ssthresh
        self.credit = 0.0

    def on_congestion_event(self, ev):
        self._decrease(ev.base)

    def on_timeout(self, ev):
        self._decrease(ev.base)
        self.cwnd = self.smss
        self.credit = 0.0
        self.ssthresh = ev.ssthresh_to_keep(self.ssthresh)


rexmit.register_cc("reno_py", Reno, replace=True)
