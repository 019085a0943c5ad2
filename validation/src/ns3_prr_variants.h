// A diagnostic variant of ns-3.44's Proportional Rate Reduction (written for rexmit's validation;
// docs/validation_queues.md "Active queues against ns-3.44", the FQ-CoDel class split). Included by
// ns3_tcp_defaults.h after the ns-3 headers; selected with `--recovery=prr-rfc`.
//
// ns-3.44's TcpPrrRecovery differs from RFC 6937 in two ways that ns-3 itself corrected after
// 3.44 (its issues #1350 and #1351):
//  - on a duplicate ACK it adds one SMSS to prr_delivered although, with SACK, the delivered
//    bytes it is handed already count what the ACK SACKed (RFC 6937 section 3: DeliveredData is
//    the change in snd.una plus the change in SACKed bytes; the one-SMSS estimate is for
//    connections without SACK), so its proportional phase sends about twice what RFC 6937 allows;
//  - it takes RecoverFS as the pipe (bytes in flight) instead of snd.nxt - snd.una.
// PrrRfc is RFC 6937 on those two points and keeps everything else as ns-3.44 has it (its
// reduction bound, PRR-SSRB when a retransmission is acknowledged, the forced first send).
#pragma once

#include <algorithm>
#include <cstdint>

namespace ns3
{

class PrrRfc : public TcpClassicRecovery
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("rexmit::PrrRfc")
                                .SetParent<TcpClassicRecovery>()
                                .AddConstructor<PrrRfc>()
                                .AddAttribute("Sack",
                                              "the connection uses SACK (no per-dup-ACK estimate)",
                                              BooleanValue(true),
                                              MakeBooleanAccessor(&PrrRfc::m_sack),
                                              MakeBooleanChecker());
        return tid;
    }

    std::string GetName() const override
    {
        return "PrrRfc";
    }

    void EnterRecovery(Ptr<TcpSocketState> tcb,
                       uint32_t /* dupAckCount */,
                       uint32_t unAckDataCount,
                       uint32_t deliveredBytes) override
    {
        m_delivered = 0;
        m_sent = 0;
        // RFC 6937 section 3: RecoverFS = snd.nxt - snd.una at the start of recovery.
        m_recoverFs = std::max<uint64_t>(unAckDataCount, 1);
        DoRecovery(tcb, deliveredBytes, true);
    }

    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool isDupAck) override
    {
        uint64_t delivered = deliveredBytes;
        // Without SACK a duplicate ACK stands for one delivered segment (RFC 6937 section 3).
        if (!m_sack && isDupAck && m_delivered < m_recoverFs)
        {
            delivered += tcb->m_segmentSize;
        }
        if (delivered == 0)
        {
            return;
        }
        m_delivered += delivered;
        const int64_t pipe = tcb->m_bytesInFlight.Get();
        const int64_t ssthresh = tcb->m_ssThresh.Get();
        int64_t sndcnt;
        if (pipe > ssthresh)
        {
            // Proportional part: CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            const uint64_t num = m_delivered * static_cast<uint64_t>(ssthresh);
            sndcnt = static_cast<int64_t>((num + m_recoverFs - 1) / m_recoverFs) - m_sent;
        }
        else
        {
            // Reduction bound, as ns-3.44 does it: PRR-SSRB once a retransmission is acknowledged.
            int64_t limit = std::max<int64_t>(static_cast<int64_t>(m_delivered) - m_sent,
                                             static_cast<int64_t>(delivered));
            if (tcb->m_isRetransDataAcked)
            {
                limit += tcb->m_segmentSize;
            }
            sndcnt = std::min<int64_t>(ssthresh - pipe, limit);
        }
        // The fast retransmit goes out whatever the count says.
        if (m_sent == 0)
        {
            sndcnt = std::max<int64_t>(sndcnt, tcb->m_segmentSize);
        }
        tcb->m_cWnd = static_cast<uint32_t>(std::max<int64_t>(pipe + sndcnt, 0));
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void ExitRecovery(Ptr<TcpSocketState> tcb) override
    {
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void UpdateBytesSent(uint32_t bytesSent) override
    {
        m_sent += bytesSent;
    }

    Ptr<TcpRecoveryOps> Fork() override
    {
        return CopyObject<PrrRfc>(this);
    }

  private:
    bool m_sack{true};
    uint64_t m_delivered{0};
    int64_t m_sent{0};
    uint64_t m_recoverFs{1};
};

NS_OBJECT_ENSURE_REGISTERED(PrrRfc);

} // namespace ns3
