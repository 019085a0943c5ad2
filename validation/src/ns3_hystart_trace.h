// Diagnostic trace of ns-3.44's TcpCubic HyStart in its first slow start, and its delay threshold
// aligned on Linux's (issue 37; docs/validation_queues.md, "CUBIC rows"), included by
// ns3_tcp_multi.cc inside its anonymous namespace after ns3_rtt_sample_variants.h. Written for this
// project.
//
// cc=cubic-trace / cubic-sample-trace: ns-3's TcpCubic (or the sample-fed CubicRttSample) run
// unchanged, with a row recorded per call while the flow is in its first slow start:
// - 'A' after each PktsAcked: the RTT the controller was handed, the ACK's own RTT sample
//   (m_lastRtt), and HyStart's state after the call (delay_min, the round's start and end
//   sequence, its sample count and current RTT, found);
// - 'R' after an IncreaseWindow that began a new round (m_roundStart changed);
// - 'N' an IncreaseWindow that did nothing because the flow was not cwnd-limited (ns-3 then
//   does not begin a round either).
// TcpCubic keeps this state private: the explicit instantiations below take member pointers,
// which C++ allows there without access checks ([temp.spec.general]/6).

template <class Tag, typename Tag::type Member>
struct CubicPrivate
{
    friend typename Tag::type Field(Tag)
    {
        return Member;
    }
};

#define CUBIC_PRIVATE(Tag, Type, Member)                                                           \
    struct Tag                                                                                     \
    {                                                                                              \
        using type = Type TcpCubic::*;                                                             \
        friend type Field(Tag);                                                                    \
    };                                                                                             \
    template struct CubicPrivate<Tag, &TcpCubic::Member>

CUBIC_PRIVATE(CubicDelayMin, Time, m_delayMin);
CUBIC_PRIVATE(CubicRoundStart, Time, m_roundStart);
CUBIC_PRIVATE(CubicEndSeq, SequenceNumber32, m_endSeq);
CUBIC_PRIVATE(CubicCurrRtt, Time, m_currRtt);
CUBIC_PRIVATE(CubicSampleCnt, uint32_t, m_sampleCnt);
CUBIC_PRIVATE(CubicFound, bool, m_found);
CUBIC_PRIVATE(CubicThreshMin, Time, m_hystartDelayMin);
CUBIC_PRIVATE(CubicThreshMax, Time, m_hystartDelayMax);

// cc=cubic-sample-linuxthresh: the sample-fed TcpCubic (CubicRttSample) with Linux's delay
// threshold, delay_min + clamp(delay_min / 8, 4 ms, 16 ms) (tcp_cubic.c HYSTART_DELAY_THRESH),
// where ns-3.44's HystartDelayThresh adds clamp(delay_min, HyStartDelayMin, HyStartDelayMax):
// before each PktsAcked both bounds are set to the eighth of the delay_min that PktsAcked is
// about to hold, so that ns-3's clamp returns it. Everything else is ns-3's.
class CubicLinuxThresh : public CubicRttSample
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("rexmit::CubicLinuxThresh")
                                .SetParent<CubicRttSample>()
                                .AddConstructor<CubicLinuxThresh>();
        return tid;
    }

    std::string GetName() const override
    {
        return "rexmit::CubicLinuxThresh";
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override
    {
        Time dmin = this->*Field(CubicDelayMin{});
        Time sample = tcb->m_lastRtt.Get();
        if (!rtt.IsZero() && (dmin == Time::Min() || dmin > sample))
        {
            dmin = sample; // as TcpCubic::PktsAcked is about to set it
        }
        if (dmin != Time::Min())
        {
            Time eighth = std::clamp(NanoSeconds(dmin.GetNanoSeconds() / 8), MilliSeconds(4), MilliSeconds(16));
            this->*Field(CubicThreshMin{}) = eighth;
            this->*Field(CubicThreshMax{}) = eighth;
        }
        CubicRttSample::PktsAcked(tcb, segmentsAcked, rtt);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<CubicLinuxThresh>(this);
    }
};

NS_OBJECT_ENSURE_REGISTERED(CubicLinuxThresh);

struct HystartRow
{
    char kind; // 'A' PktsAcked, 'R' round begun, 'N' not cwnd-limited
    int64_t tNs;
    uint32_t cwnd;     // bytes
    uint32_t ssthresh; // bytes
    uint32_t ack;      // m_lastAckedSeq (raw)
    int64_t givenNs;   // the RTT PktsAcked was handed (SRTT in ns-3.44, the sample in -sample)
    int64_t sampleNs;  // m_lastRtt
    int64_t delayMinNs;
    int64_t roundStartNs;
    uint32_t endSeq; // raw
    uint32_t sampleCnt;
    int64_t currRttNs; // -1 while unset (Time::Min)
    bool found;
};

// Rows per flow (index set by the scenario's HookSocket through SetTraceFlow).
std::map<uint32_t, std::vector<HystartRow>> g_hystartRows;

// Implemented by the traced controllers, so that the scenario can tell each its flow.
class HystartTraced
{
  public:
    virtual ~HystartTraced() = default;

    void SetTraceFlow(uint32_t flow)
    {
        m_flow = flow;
    }

  protected:
    int64_t m_flow{-1};
    bool m_done{false}; // the first slow start ended
};

template <class Cc>
struct HystartTraceName;

template <class Cc>
class HystartTrace : public Cc, public HystartTraced
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId(HystartTraceName<Cc>::value).template SetParent<Cc>().template AddConstructor<HystartTrace>();
        return tid;
    }

    std::string GetName() const override
    {
        return HystartTraceName<Cc>::value;
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override
    {
        bool watch = Watching(tcb);
        Cc::PktsAcked(tcb, segmentsAcked, rtt);
        if (watch)
        {
            Record('A', tcb, rtt);
        }
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        bool watch = Watching(tcb);
        Time before = this->*Field(CubicRoundStart{});
        Cc::IncreaseWindow(tcb, segmentsAcked);
        if (watch && !tcb->m_isCwndLimited)
        {
            Record('N', tcb, Time(0));
        }
        else if (watch && this->*Field(CubicRoundStart{}) != before)
        {
            Record('R', tcb, Time(0));
        }
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<HystartTrace>(this);
    }

  private:
    // Only the first slow start, once the scenario named the flow.
    bool Watching(Ptr<TcpSocketState> tcb)
    {
        m_done = m_done || (m_flow >= 0 && tcb->m_cWnd >= tcb->m_ssThresh);
        return m_flow >= 0 && !m_done;
    }

    void Record(char kind, Ptr<TcpSocketState> tcb, const Time& given)
    {
        auto& rows = g_hystartRows[m_flow];
        if (rows.size() >= 200000)
        {
            return;
        }
        Time curr = this->*Field(CubicCurrRtt{});
        Time dmin = this->*Field(CubicDelayMin{});
        rows.push_back(HystartRow{kind,
                                  Simulator::Now().GetNanoSeconds(),
                                  tcb->m_cWnd.Get(),
                                  tcb->m_ssThresh.Get(),
                                  tcb->m_lastAckedSeq.GetValue(),
                                  given.GetNanoSeconds(),
                                  tcb->m_lastRtt.Get().GetNanoSeconds(),
                                  dmin == Time::Min() ? -1 : dmin.GetNanoSeconds(),
                                  (this->*Field(CubicRoundStart{})).GetNanoSeconds(),
                                  (this->*Field(CubicEndSeq{})).GetValue(),
                                  this->*Field(CubicSampleCnt{}),
                                  curr == Time::Min() ? -1 : curr.GetNanoSeconds(),
                                  this->*Field(CubicFound{})});
    }
};

#define HYSTART_TRACE_VARIANT(Cc, Alias, Name)                                                     \
    template <>                                                                                    \
    struct HystartTraceName<Cc>                                                                    \
    {                                                                                              \
        static constexpr const char* value = Name;                                                 \
    };                                                                                             \
    using Alias = HystartTrace<Cc>;                                                                \
    NS_OBJECT_ENSURE_REGISTERED(Alias)

HYSTART_TRACE_VARIANT(TcpCubic, CubicTrace, "rexmit::CubicTrace");
HYSTART_TRACE_VARIANT(CubicRttSample, CubicRttSampleTrace, "rexmit::CubicRttSampleTrace");
HYSTART_TRACE_VARIANT(CubicLinuxThresh, CubicLinuxThreshTrace, "rexmit::CubicLinuxThreshTrace");

inline void
AddHystartTraceTypes(std::map<std::string, std::string>& types)
{
    types.insert({{"cubic-trace", "rexmit::CubicTrace"},
                  {"cubic-sample-trace", "rexmit::CubicRttSampleTrace"},
                  {"cubic-sample-linuxthresh", "rexmit::CubicLinuxThresh"},
                  {"cubic-sample-linuxthresh-trace", "rexmit::CubicLinuxThreshTrace"}});
}

// "hystart": {"<flow>": [[kind, t_ns, cwnd, ssthresh, ack, given_ns, sample_ns, delay_min_ns,
// round_start_ns, end_seq, sample_cnt, curr_rtt_ns, found], ...], ...}
inline std::string
HystartJson()
{
    std::ostringstream o;
    o << "{";
    bool first = true;
    for (const auto& [flow, rows] : g_hystartRows)
    {
        o << (first ? "" : ", ") << "\"" << flow << "\": [";
        first = false;
        for (size_t k = 0; k < rows.size(); k++)
        {
            const HystartRow& r = rows[k];
            o << (k ? ", " : "") << "[\"" << r.kind << "\", " << r.tNs << ", " << r.cwnd << ", " << r.ssthresh
              << ", " << r.ack << ", " << r.givenNs << ", " << r.sampleNs << ", " << r.delayMinNs << ", "
              << r.roundStartNs << ", " << r.endSeq << ", " << r.sampleCnt << ", " << r.currRttNs << ", "
              << (r.found ? 1 : 0) << "]";
        }
        o << "]";
    }
    o << "}";
    return o.str();
}
