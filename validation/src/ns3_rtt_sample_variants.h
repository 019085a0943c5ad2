// Diagnostic variants of ns-3.44's delay-based congestion controls for rexmit's validation
// (issue 37; docs/validation_cc.md), included by ns3_tcp_single.cc and
// ns3_tcp_multi.cc inside their anonymous namespace after ns3_newreno_variants.h. Written for this project.
//
// ns-3.44's TcpSocketBase passes the smoothed RTT (m_srtt) to PktsAcked, so Vegas, Veno,
// Illinois, H-TCP and YeAH take their per-round minimum, base and maximum RTTs from SRTT. Their
// papers (and rexmit) take them from the RTT samples. cc=<name>-sample runs ns-3's controller
// unchanged except that PktsAcked receives the ACK's own RTT sample (TcpSocketState::m_lastRtt):
// it shows how much of a difference that input alone makes.
//
// cc=cubic-sample: ns-3's TcpCubic given the samples too: its HyStart delay test
// (HystartUpdate, from PktsAcked) then sees each ACK's RTT, as Linux's and rexmit's do, where
// ns-3.44 hands it SRTT, which rises an eighth of each sample's rise (docs/validation_cc.md,
// "CUBIC rows").
//
// cc=hybla-minrtt: ns-3's TcpHybla recomputes rho only when the RTT PktsAcked receives equals
// the connection's minimum RTT; given SRTT that is never true after the handshake, so rho stays
// 1 (NewReno's growth). This variant passes the minimum RTT itself, so rho = min RTT / RRTT as
// the paper has it (and rexmit).
#pragma once

template <class Cc>
struct RttSampleName;

// Which RTT the variant hands to ns-3's PktsAcked.
enum class RttInput
{
    Sample,
    Minimum
};

template <class Cc, RttInput Input = RttInput::Sample>
class RttSample : public Cc
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId(RttSampleName<Cc>::value).template SetParent<Cc>().template AddConstructor<RttSample>();
        return tid;
    }

    std::string GetName() const override
    {
        return RttSampleName<Cc>::value;
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override
    {
        // A zero RTT means "no sample with this ACK" to every one of these controllers.
        Time given = Input == RttInput::Sample ? tcb->m_lastRtt.Get() : tcb->m_minRtt;
        Cc::PktsAcked(tcb, segmentsAcked, rtt.IsZero() ? rtt : given);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<RttSample>(this);
    }
};

#define RTT_SAMPLE_VARIANT(Cc, Alias, Name, Input)                                                 \
    template <>                                                                                    \
    struct RttSampleName<Cc>                                                                       \
    {                                                                                              \
        static constexpr const char* value = Name;                                                 \
    };                                                                                             \
    using Alias = RttSample<Cc, RttInput::Input>;                                                  \
    NS_OBJECT_ENSURE_REGISTERED(Alias)

RTT_SAMPLE_VARIANT(TcpVegas, VegasRttSample, "rexmit::VegasRttSample", Sample);
RTT_SAMPLE_VARIANT(TcpVeno, VenoRttSample, "rexmit::VenoRttSample", Sample);
RTT_SAMPLE_VARIANT(TcpIllinois, IllinoisRttSample, "rexmit::IllinoisRttSample", Sample);
RTT_SAMPLE_VARIANT(TcpHtcp, HtcpRttSample, "rexmit::HtcpRttSample", Sample);
RTT_SAMPLE_VARIANT(TcpYeah, YeahRttSample, "rexmit::YeahRttSample", Sample);
RTT_SAMPLE_VARIANT(TcpHybla, HyblaMinRtt, "rexmit::HyblaMinRtt", Minimum);
RTT_SAMPLE_VARIANT(TcpCubic, CubicRttSample, "rexmit::CubicRttSample", Sample);

// <cc>-delivered: the controller whose growth on the ACK that ends a fast recovery counts only
// the segments that ACK newly delivers (m_lastAckedSackedBytes, Linux's acked_sacked). ns-3.44's
// TcpSocketBase hands IncreaseWindow every segment from the old snd_una to the ACK there, the
// SACKed ones included, so a controller that grows per acknowledged segment grows several
// segments at once after every recovery (docs/validation_cc.md, "Hybla" and "YeAH").
template <class Cc>
struct ExitAckName;

template <class Cc>
class ExitAckDelivered : public Cc
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId(ExitAckName<Cc>::value).template SetParent<Cc>().template AddConstructor<ExitAckDelivered>();
        return tid;
    }

    std::string GetName() const override
    {
        return ExitAckName<Cc>::value;
    }

    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override
    {
        // Raised by the ACK that ends a recovery, before its IncreaseWindow.
        m_recoveryEnded = m_recoveryEnded || event == TcpSocketState::CA_EVENT_COMPLETE_CWR;
        Cc::CwndEvent(tcb, event);
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (m_recoveryEnded)
        {
            m_recoveryEnded = false;
            uint32_t delivered = (tcb->m_lastAckedSackedBytes + tcb->m_segmentSize - 1) / tcb->m_segmentSize;
            segmentsAcked = std::min(segmentsAcked, delivered);
        }
        Cc::IncreaseWindow(tcb, segmentsAcked);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<ExitAckDelivered>(this);
    }

  private:
    bool m_recoveryEnded{false};
};

#define EXIT_ACK_VARIANT(Cc, Alias, Name)                                                          \
    template <>                                                                                    \
    struct ExitAckName<Cc>                                                                         \
    {                                                                                              \
        static constexpr const char* value = Name;                                                 \
    };                                                                                             \
    using Alias = ExitAckDelivered<Cc>;                                                            \
    NS_OBJECT_ENSURE_REGISTERED(Alias)

EXIT_ACK_VARIANT(HyblaMinRtt, HyblaMinRttDelivered, "rexmit::HyblaMinRttDelivered");
EXIT_ACK_VARIANT(VegasRttSample, VegasRttSampleDelivered, "rexmit::VegasRttSampleDelivered");

// cc=yeah-flightsize: ns-3's TcpYeah whose GetSsThresh is handed the FlightSize at the first
// duplicate ACK (SND.NXT - SND.UNA then) where ns-3.44's TcpSocketBase hands every controller BytesInFlight (the RFC 6675
// pipe: outstanding minus SACKed minus lost); YeAH's paper and rexmit reduce the data
// outstanding (docs/validation_cc.md, "YeAH"). Run with ns3::TcpYeah::Phy=1 beside rexmit's
// phy = 1: ns-3.44 tests `L > 1 / m_phy` in integer arithmetic, 0 for its default 8.
class YeahFlightSize : public TcpYeah
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("rexmit::YeahFlightSize").SetParent<TcpYeah>().AddConstructor<YeahFlightSize>();
        return tid;
    }

    std::string GetName() const override
    {
        return "rexmit::YeahFlightSize";
    }

    void CongestionStateSet(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCongState_t newState) override
    {
        m_flight.StateSet(tcb, newState);
        TcpYeah::CongestionStateSet(tcb, newState);
    }

    // The FlightSize when the first duplicate ACK came (limited transmit's data left out, as
    // rexmit does; FlightAtLoss in ns3_newreno_variants.h).
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t) override
    {
        return TcpYeah::GetSsThresh(tcb, m_flight.Take(tcb, true));
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<YeahFlightSize>(this);
    }

  private:
    FlightAtLoss m_flight;
};

NS_OBJECT_ENSURE_REGISTERED(YeahFlightSize);

// cc=yeah-flightsize-delivered: yeah-flightsize that also grows on the ACK ending a recovery by
// what that ACK delivers only (ExitAckDelivered above).
EXIT_ACK_VARIANT(YeahFlightSize, YeahFlightSizeDelivered, "rexmit::YeahFlightSizeDelivered");

// The names the scenarios' --cc/--ccs options take for them.
inline void
AddRttSampleTypes(std::map<std::string, std::string>& types)
{
    types.insert({{"vegas-sample", "rexmit::VegasRttSample"},
                  {"veno-sample", "rexmit::VenoRttSample"},
                  {"illinois-sample", "rexmit::IllinoisRttSample"},
                  {"htcp-sample", "rexmit::HtcpRttSample"},
                  {"yeah-sample", "rexmit::YeahRttSample"},
                  {"cubic-sample", "rexmit::CubicRttSample"},
                  {"hybla-minrtt", "rexmit::HyblaMinRtt"},
                  {"hybla-minrtt-delivered", "rexmit::HyblaMinRttDelivered"},
                  {"vegas-sample-delivered", "rexmit::VegasRttSampleDelivered"},
                  {"yeah-flightsize", "rexmit::YeahFlightSize"},
                  {"yeah-flightsize-delivered", "rexmit::YeahFlightSizeDelivered"}});
}
