"""TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion Avoidance on a Global
Internet", IEEE JSAC 1995) as a Python congestion controller: the tutorial's plugin
(examples/plugin_tutorial.py). examples/plugin-crate/src/vegas.rs is the same controller in Rust,
giving the same numbers.

Once per round trip Vegas compares the throughput it expects, cwnd/BaseRTT, with what it gets,
cwnd/RTT: Diff = cwnd·(RTT − BaseRTT)/RTT is how many of its segments sit in queues. Below alpha
it adds a segment per RTT, above beta it takes one away, in between it holds (§3.2). In slow
start it doubles only every other RTT and leaves slow start once Diff exceeds gamma (§3.3). A
loss halves the window as Reno does. This is the paper's rule; rexmit's built-in `vegas`
follows ns-3's implementation of it (docs/congestion_control.md).
"""

import rexmit


class Vegas(rexmit.CongestionControl):
    """TCP Vegas (Brakmo & Peterson 1995), the paper's rules."""

    params = {
        "alpha": rexmit.Param(2, 0, 1000, doc="segments queued below which cwnd grows"),
        "beta": rexmit.Param(4, 0, 1000, doc="segments queued above which cwnd shrinks"),
        "gamma": rexmit.Param(1, 0, 1000, doc="segments queued that end slow start"),
    }

    def __init__(self, p):
        super().__init__(p)
        self.base_rtt = None  # ns: the smallest RTT seen (BaseRTT)
        self.round_rtt = None  # ns: the smallest RTT of this round trip
        self.round_end = 0  # the round trip ends when snd_una passes this
        self.double = True  # slow start doubles every other round trip

    def on_ack(self, ack):
        if ack.rtt_ns is not None:
            self.base_rtt = ack.rtt_ns if self.base_rtt is None else min(self.base_rtt, ack.rtt_ns)
            self.round_rtt = ack.rtt_ns if self.round_rtt is None else min(self.round_rtt, ack.rtt_ns)
        if ack.snd_una < self.round_end or self.round_rtt is None:
            if self.cwnd < self.ssthresh and self.double:
                self.cwnd += min(ack.acked, self.smss)
            return
        # A round trip ended: Diff in segments (floats in this order, as the Rust version).
        rtt, self.round_rtt, self.round_end = self.round_rtt, None, ack.snd_nxt
        diff = float(self.cwnd // self.smss) * float(rtt - self.base_rtt) / float(rtt)
        if self.cwnd < self.ssthresh:
            if diff > self.cc["gamma"]:
                self.ssthresh = max(self.cwnd - self.smss, 2 * self.smss)
            self.double = not self.double
        elif diff < self.cc["alpha"]:
            self.cwnd += self.smss
        elif diff > self.cc["beta"]:
            self.cwnd = max(self.cwnd - self.smss, 2 * self.smss)

    def on_congestion_event(self, ev):
        self.ssthresh = max(ev.base // 2, 2 * self.smss)
        self.cwnd = self.ssthresh


rexmit.register_cc("vegas_py", Vegas, replace=True)
