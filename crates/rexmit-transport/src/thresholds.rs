//! Loss-detection thresholds TCP and SCTP share: the duplicate-ACK / miss-indication threshold
//! and RFC 5827 early retransmit's lower one. Owns the numbers and the rule that chooses them;
//! does not own the counting (TCP counts duplicate ACKs, SCTP miss indications per TSN).

/// DupThresh: duplicate ACKs (RFC 5681 §3.2, RFC 6675 §2) or miss indications (RFC 9260
/// §7.2.4, "three") that signal a loss.
pub const DUP_THRESH: u32 = 3;

/// RFC 5827 §2 early retransmit (segment- or packet-based): with `outstanding` segments or
/// packets sent and not yet cumulatively acknowledged (SACKed ones included) fewer than four,
/// and no previously unsent data that could be sent, a loss is signalled by
/// ER_thresh = outstanding − 1 duplicate ACKs or miss indications instead of `dup_thresh`
/// (never more). `None`: early retransmit does not apply. With one outstanding segment the
/// formula gives 0 and nothing can produce a duplicate acknowledgement, so it does not apply
/// either (TCP and SCTP used to differ here: SCTP answered 1).
pub fn early_retransmit_threshold(
    outstanding: u64,
    new_data_sendable: bool,
    dup_thresh: u32,
) -> Option<u32> {
    ((2..4).contains(&outstanding) && !new_data_sendable)
        .then(|| (outstanding as u32 - 1).min(dup_thresh))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn early_retransmit_lowers_the_threshold_to_outstanding_minus_one() {
        assert_eq!(early_retransmit_threshold(2, false, DUP_THRESH), Some(1));
        assert_eq!(early_retransmit_threshold(3, false, DUP_THRESH), Some(2));
        assert_eq!(
            early_retransmit_threshold(4, false, DUP_THRESH),
            None,
            "four or more: DupThresh"
        );
        assert_eq!(
            early_retransmit_threshold(3, true, DUP_THRESH),
            None,
            "new data can be sent"
        );
        assert_eq!(
            early_retransmit_threshold(1, false, DUP_THRESH),
            None,
            "no later segment can be acknowledged"
        );
        assert_eq!(early_retransmit_threshold(0, false, DUP_THRESH), None);
        assert_eq!(
            early_retransmit_threshold(3, false, 1),
            Some(1),
            "never above a lower DupThresh"
        );
    }
}
