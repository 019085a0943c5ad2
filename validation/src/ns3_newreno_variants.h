// Diagnostic TCP congestion controls for rexmit's cross-validation (issue 7), included by
// ns3_tcp_single.cc inside its anonymous namespace. Each changes one thing in ns-3.44's
// TcpNewReno so that one explanation of a difference can be tested at a time
// (docs/validation.md). Written for this project.
#pragma once

// The FlightSize (SND.NXT - SND.UNA) when a loss is detected, followed through a controller's
// congestion-state changes; with excludeLt as it was at the first duplicate ACK, i.e. without
// the data limited transmit sent since (RFC 5681 section 3.2 step 2, RFC 3042 section 2).
class FlightAtLoss
{
  public:
    void StateSet(Ptr<TcpSocketState> tcb, TcpSocketState::TcpCongState_t newState)
    {
        if (newState == TcpSocketState::CA_DISORDER)
        {
            m_highTxAtFirstDupAck = tcb->m_highTxMark.Get();
            m_haveFirstDupAck = true;
        }
        else if (newState == TcpSocketState::CA_OPEN)
        {
            m_haveFirstDupAck = false;
        }
    }

    // Called from GetSsThresh (once per loss).
    uint32_t Take(Ptr<const TcpSocketState> tcb, bool excludeLt)
    {
        SequenceNumber32 high = tcb->m_highTxMark.Get();
        if (excludeLt && m_haveFirstDupAck && m_highTxAtFirstDupAck > tcb->m_lastAckedSeq)
        {
            high = m_highTxAtFirstDupAck; // data sent since the first duplicate ACK is left out
        }
        m_haveFirstDupAck = false;
        return high - tcb->m_lastAckedSeq;
    }

  private:
    bool m_haveFirstDupAck{false};
    SequenceNumber32 m_highTxAtFirstDupAck{0};
};

// Diagnostic variants of TcpNewReno's slow-start threshold after a loss. ns-3.44 passes in the
// RFC 6675 pipe (it leaves out SACKed and lost segments), so its ssthresh is below RFC 5681's.
//  cc=newreno-flightsize: half the FlightSize (SND.NXT - SND.UNA) at the third duplicate ACK,
//    segments sent by limited transmit included (what rexmit does today);
//  cc=newreno-rfc: half the FlightSize without the segments sent by limited transmit, i.e. the
//    FlightSize when the first duplicate ACK arrived (RFC 5681 section 3.2 step 2, RFC 6675
//    step (4.2)).
class NewRenoFlightSize : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("rexmit::NewRenoFlightSize")
                                .SetParent<TcpNewReno>()
                                .AddConstructor<NewRenoFlightSize>()
                                .AddAttribute("ExcludeLimitedTransmit",
                                              "leave limited-transmit segments out of FlightSize",
                                              BooleanValue(false),
                                              MakeBooleanAccessor(&NewRenoFlightSize::m_excludeLt),
                                              MakeBooleanChecker());
        return tid;
    }

    std::string GetName() const override
    {
        return "NewRenoFlightSize";
    }

    void CongestionStateSet(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCongState_t newState) override
    {
        m_flight.StateSet(tcb, newState);
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t) override
    {
        return std::max(2 * tcb->m_segmentSize, m_flight.Take(tcb, m_excludeLt) / 2);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<NewRenoFlightSize>(this);
    }

  private:
    bool m_excludeLt{false};
    FlightAtLoss m_flight;
};

NS_OBJECT_ENSURE_REGISTERED(NewRenoFlightSize);

// Diagnostic variant (cc=newreno-aligned, and cc=newreno-rfc-aligned with limited-transmit
// segments left out of FlightSize): NewRenoFlightSize whose congestion avoidance adds a
// whole SMSS once a window's worth of ACKs (each counted as at most one SMSS) has arrived,
// instead of SMSS*SMSS/cwnd bytes on every ACK (RFC 5681 eq. (3)). This is how rexmit's
// ACK-counting mode grows cwnd; the variant shows what that difference alone does.
class NewRenoAligned : public NewRenoFlightSize
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("rexmit::NewRenoAligned")
                                .SetParent<NewRenoFlightSize>()
                                .AddConstructor<NewRenoAligned>();
        return tid;
    }

    std::string GetName() const override
    {
        return "NewRenoAligned";
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t inFlight) override
    {
        m_credit = 0;
        m_skipExitAck = true;
        return NewRenoFlightSize::GetSsThresh(tcb, inFlight);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<NewRenoAligned>(this);
    }

  protected:
    void CongestionAvoidance(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (segmentsAcked == 0)
        {
            return;
        }
        if (m_skipExitAck)
        {
            // ns-3 grows the window on the ACK that ends recovery; RFC 5681 section 3.2 step 6
            // only deflates cwnd to ssthresh on it (and so does rexmit).
            m_skipExitAck = false;
            return;
        }
        m_credit += tcb->m_segmentSize;
        if (m_credit >= tcb->m_cWnd.Get())
        {
            m_credit -= tcb->m_cWnd.Get();
            tcb->m_cWnd += tcb->m_segmentSize;
        }
    }

  private:
    uint64_t m_credit{0};
    bool m_skipExitAck{false};
};

NS_OBJECT_ENSURE_REGISTERED(NewRenoAligned);

// Diagnostic variant (cc=newreno-rfc-exact): NewRenoFlightSize whose congestion avoidance adds
// SMSS*SMSS/cwnd on every ACK as ns-3.44's TcpNewReno does, but keeps the fraction of a byte
// that ns-3 truncates away (static_cast<uint32_t>), so that cwnd grows by one SMSS per cwnd of
// ACKs, as RFC 5681 section 3.1 states the principle and rexmit counts it. Against
// newreno-rfc-aligned it leaves ns-3's byte-wise growth and its growth on the ACK that ends
// recovery in place: only the truncation differs from ns-3.
class NewRenoExact : public NewRenoFlightSize
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("rexmit::NewRenoExact")
                                .SetParent<NewRenoFlightSize>()
                                .AddConstructor<NewRenoExact>();
        return tid;
    }

    std::string GetName() const override
    {
        return "NewRenoExact";
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<NewRenoExact>(this);
    }

  protected:
    void CongestionAvoidance(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (segmentsAcked == 0)
        {
            return;
        }
        m_fraction += static_cast<double>(tcb->m_segmentSize) * tcb->m_segmentSize / tcb->m_cWnd.Get();
        auto whole = static_cast<uint32_t>(m_fraction);
        m_fraction -= whole;
        tcb->m_cWnd += whole;
    }

  private:
    double m_fraction{0.0};
};

NS_OBJECT_ENSURE_REGISTERED(NewRenoExact);
