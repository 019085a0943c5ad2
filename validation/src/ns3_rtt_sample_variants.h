// Diagnostic variants of ns-3.44's delay-based congestion controls for rexmit's validation
// (issue 37; docs/validation.md, "Controllers"), included by ns3_tcp_single.cc and
// ns3_tcp_multi.cc inside their anonymous namespace. Written for this project.
//
// ns-3.44's TcpSocketBase passes the smoothed RTT (m_srtt) to PktsAcked, so Vegas, Veno,
// Illinois, H-TCP and YeAH take their per-round minimum, base and maximum RTTs from SRTT. Their
// papers (and rexmit) take them from the RTT samples. cc=<name>-sample runs ns-3's controller
// unchanged except that PktsAcked receives the ACK's own RTT sample (TcpSocketState::m_lastRtt):
// it shows how much of a difference that input alone makes.
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

// cc=hybla-minrtt-delivered: hybla-minrtt whose growth on the ACK that ends a fast recovery
// counts only the segments that ACK newly delivers (m_lastAckedSackedBytes, Linux's
// acked_sacked). ns-3.44's TcpSocketBase hands IncreaseWindow every segment from the old
// snd_una to the ACK there, the SACKed ones included, and TcpHybla grows by rho^2/cwnd for each:
// several segments at once after every recovery (docs/validation.md, "Hybla").
class HyblaMinRttDelivered : public HyblaMinRtt
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("rexmit::HyblaMinRttDelivered")
                                .SetParent<HyblaMinRtt>()
                                .AddConstructor<HyblaMinRttDelivered>();
        return tid;
    }

    std::string GetName() const override
    {
        return "rexmit::HyblaMinRttDelivered";
    }

    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override
    {
        // Raised by the ACK that ends a recovery, before its IncreaseWindow.
        m_recoveryEnded = m_recoveryEnded || event == TcpSocketState::CA_EVENT_COMPLETE_CWR;
        HyblaMinRtt::CwndEvent(tcb, event);
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (m_recoveryEnded)
        {
            m_recoveryEnded = false;
            uint32_t delivered = (tcb->m_lastAckedSackedBytes + tcb->m_segmentSize - 1) / tcb->m_segmentSize;
            segmentsAcked = std::min(segmentsAcked, delivered);
        }
        HyblaMinRtt::IncreaseWindow(tcb, segmentsAcked);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<HyblaMinRttDelivered>(this);
    }

  private:
    bool m_recoveryEnded{false};
};

NS_OBJECT_ENSURE_REGISTERED(HyblaMinRttDelivered);

// The names the scenarios' --cc/--ccs options take for them.
inline void
AddRttSampleTypes(std::map<std::string, std::string>& types)
{
    types.insert({{"vegas-sample", "rexmit::VegasRttSample"},
                  {"veno-sample", "rexmit::VenoRttSample"},
                  {"illinois-sample", "rexmit::IllinoisRttSample"},
                  {"htcp-sample", "rexmit::HtcpRttSample"},
                  {"yeah-sample", "rexmit::YeahRttSample"},
                  {"hybla-minrtt", "rexmit::HyblaMinRtt"},
                  {"hybla-minrtt-delivered", "rexmit::HyblaMinRttDelivered"}});
}
