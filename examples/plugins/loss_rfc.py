"""rexmit's built-in loss-detection policy `rfc` as a Python plugin, written to give what the
built-in gives, byte for byte (tests/python/test_plugins_loss.py checks it with and without
RACK, early retransmit and the thin-stream rule, on seed 001's sweep and four competing flows).

DupThresh (RFC 5681 §3.2, RFC 6675 §2): the configured threshold; RFC 5827 §2 early
retransmit lowers it to the outstanding segments − 1 when fewer than four are outstanding and
nothing new can be sent; the thin-stream rule (seed 004) makes it 1. RACK's reordering window
(RFC 8985 §6.2 step 4): zero once loss is likely (in recovery, or DupThresh segments SACKed)
unless reordering was seen, else reo_wnd_mult quarters of the minimum RTT, at most SRTT.

A policy of your own starts from here: change either rule (a DupThresh that grows with the
D-SACKs seen, a window from RACK.rtt) and select it with `loss = "name"`."""

import rexmit


class RfcLoss(rexmit.LossDetection):
    """RFC 5681/6675/5827 DupThresh and RFC 8985 reo_wnd, as the built-in."""

    def dup_thresh(self, s):
        if s.thin:
            return 1
        if s.early_retransmit and 2 <= s.outstanding < 4 and not s.new_data_sendable:
            return min(s.outstanding - 1, s.dup_thresh)
        return s.dup_thresh

    def reo_wnd(self, s):
        loss_likely = s.in_recovery or s.segs_sacked >= s.dup_thresh
        if (not s.reordering_seen and loss_likely) or s.min_rtt_ns is None:
            return 0
        w = s.min_rtt_ns * s.reo_wnd_mult // 4
        return w if s.srtt_ns is None else min(w, s.srtt_ns)


rexmit.register_loss("rfc_py", RfcLoss, replace=True)
