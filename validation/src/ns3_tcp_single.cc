// Peer scenario for issue 7: one TCP bulk flow over the seed 001 Table 1 path, in ns-3.44.
//
//   S --10 Mb/s, 0.1 ms-- G1 --4 Mb/s, 50 ms-- G2 --10 Mb/s, 0.1 ms-- D
//
// Written for rexmit's cross-validation (not derived from ns-3's examples). Built and run by
// validation/ns3_tcp.py, which compiles this file against the headers and libraries of the PyPI
// `ns3` wheel. Prints exactly one JSON object on stdout.
//
// Modelling choices that matter when comparing with another simulator:
// - Every point-to-point device has a DropTail queue of `queue` packets and NO traffic-control
//   queue disc (the default one that Ipv4AddressHelper installs is removed), so the only buffer is
//   the device queue: `queue` packets waiting plus the one being serialised.
// - The error model is the ReceiveErrorModel of G2's bottleneck device: it sees (and may drop)
//   every packet G1 sends over the bottleneck after it has used the link, i.e. the data direction
//   only (SYN, the handshake ACK and FIN included); ACKs from D are never dropped.
// - ns-3's point-to-point link adds a 2-byte PPP header: a 1500-byte IP packet occupies 1502 bytes
//   of link time.
// - Segment numbers: ns-3's initial sequence number is 0, so data byte k has sequence k+1; "seg n"
//   below is the 0-based data segment index n, i.e. the bytes [n*SegmentSize, (n+1)*SegmentSize).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ns3_tcp_defaults.h"

using namespace ns3;

namespace
{

std::vector<uint64_t>
ParseList(const std::string& s)
{
    std::vector<uint64_t> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        if (!item.empty())
        {
            out.push_back(std::stoull(item));
        }
    }
    return out;
}

// The TCP header of a PPP frame and the size of its payload; false when the frame does not carry
// TCP.
bool
TcpOfFrame(Ptr<const Packet> p, TcpHeader& tcp, uint32_t& payload)
{
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    c->RemoveHeader(ppp);
    c->RemoveHeader(ip);
    if (ip.GetProtocol() != 6)
    {
        return false;
    }
    c->RemoveHeader(tcp);
    payload = c->GetSize();
    return true;
}

// Drops the first transmission of the listed data segments (0-based segment indices), looking at
// the TCP header of each packet arriving on the bottleneck. Later copies of the same segment pass.
class SegmentListErrorModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("rexmit::SegmentListErrorModel")
                                .SetParent<ErrorModel>()
                                .AddConstructor<SegmentListErrorModel>();
        return tid;
    }

    void Configure(const std::vector<uint64_t>& segs, uint32_t segSize)
    {
        for (auto s : segs)
        {
            m_pending.insert(static_cast<uint32_t>(1 + s * segSize)); // ISN 0: data starts at 1
        }
    }

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        TcpHeader tcp;
        uint32_t payload;
        if (!TcpOfFrame(p, tcp, payload) || payload == 0)
        {
            return false;
        }
        auto it = m_pending.find(tcp.GetSequenceNumber().GetValue());
        if (it == m_pending.end())
        {
            return false;
        }
        m_pending.erase(it);
        return true;
    }

    void DoReset() override
    {
    }

    std::set<uint32_t> m_pending;
};

NS_OBJECT_ENSURE_REGISTERED(SegmentListErrorModel);

#include "ns3_newreno_variants.h"
#include "ns3_rtt_sample_variants.h"

struct Stats
{
    uint32_t segSize{0};
    uint64_t highTx{1}; // one past the highest data sequence sent (ISN 0, data starts at 1)
    uint64_t dataTx{0};
    uint64_t retransmissions{0};
    uint64_t rtxTraceCount{0};
    uint64_t timeouts{0};
    uint64_t recoveries{0};
    bool recordRtx{false};
    std::vector<std::pair<double, uint64_t>> rtx;
    TcpSocketState::TcpCongState_t state{TcpSocketState::CA_OPEN};
    uint64_t errorDrops{0};
    std::vector<std::pair<double, long long>> drops;
    uint64_t queueDrops{0};
    uint64_t macTxDrops{0};
    uint64_t hops{0};
    double firstData{-1.0}; // send time of the first data segment (after the handshake)
    bool traceCwnd{false};
    uint32_t recordTx{0}; // list the first recordTx data transmissions (time, seg)
    std::vector<std::pair<double, uint64_t>> tx;
    std::vector<std::pair<double, double>> acks; // with recordTx: (time, ACK number in segments) at S
    // The same at the wire: transmission start on S's access device (after S's queue).
    uint64_t highWire{1};
    double firstDataWire{-1.0};
    std::vector<std::pair<double, uint64_t>> rtxWire;
    std::vector<std::pair<double, uint64_t>> txWire; // with recordTx: every data transmission start at S
    std::vector<std::pair<double, uint32_t>> cwnd; // (time, cwnd bytes) at every change
    std::vector<std::pair<double, uint32_t>> ssthresh; // (time, ssthresh bytes) at every change
    std::vector<std::pair<double, double>> lastRtt;    // (time, s): each ACK's RTT sample
    std::vector<std::pair<double, int>> events;     // (time, 1 = recovery entered, 2 = timeout, 3 = back to open)
};

Stats g;

void
OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    uint64_t seq = h.GetSequenceNumber().GetValue();
    uint64_t end = seq + p->GetSize();
    g.dataTx++;
    if (g.firstData < 0)
    {
        g.firstData = Simulator::Now().GetSeconds();
    }
    if (g.tx.size() < g.recordTx)
    {
        g.tx.emplace_back(Simulator::Now().GetSeconds(), (seq - 1) / g.segSize);
    }
    if (seq < g.highTx)
    {
        g.retransmissions++;
        if (g.recordRtx && g.rtx.size() < 5000)
        {
            g.rtx.emplace_back(Simulator::Now().GetSeconds(), (seq - 1) / g.segSize);
        }
    }
    if (end > g.highTx)
    {
        g.highTx = end;
    }
}

void
OnRetransmission(Ptr<const Packet>,
                 const TcpHeader&,
                 const Address&,
                 const Address&,
                 Ptr<const TcpSocketBase>)
{
    g.rtxTraceCount++;
}

// A retransmission timeout is seen as: the state entering CA_LOSS (only TcpSocketBase::ReTxTimeout
// sets it), or, for a further timeout while already in CA_LOSS, the RTO doubling (ns-3.44 backs
// the timer off before it changes the state). Not counted: further timeouts once the RTO is
// capped at 60 s.
void
OnCongState(TcpSocketState::TcpCongState_t old, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_RECOVERY)
    {
        g.recoveries++;
        if (g.recordRtx && g.events.size() < 20000)
        {
            g.events.emplace_back(Simulator::Now().GetSeconds(), 1);
        }
    }
    if (now == TcpSocketState::CA_LOSS && old != TcpSocketState::CA_LOSS)
    {
        g.timeouts++;
        if (g.recordRtx && g.events.size() < 20000)
        {
            g.events.emplace_back(Simulator::Now().GetSeconds(), 2);
        }
    }
    if (now == TcpSocketState::CA_OPEN && old != TcpSocketState::CA_OPEN && old != TcpSocketState::CA_DISORDER &&
        g.recordRtx && g.events.size() < 20000)
    {
        g.events.emplace_back(Simulator::Now().GetSeconds(), 3); // recovery or loss state left
    }
    g.state = now;
}

void
OnRto(Time oldv, Time newv)
{
    if (g.state == TcpSocketState::CA_LOSS && newv == oldv + oldv)
    {
        g.timeouts++;
        if (g.recordRtx && g.events.size() < 20000)
        {
            g.events.emplace_back(Simulator::Now().GetSeconds(), 2);
        }
    }
}

void
OnCwnd(uint32_t, uint32_t now)
{
    if (g.cwnd.size() < 200000)
    {
        g.cwnd.emplace_back(Simulator::Now().GetSeconds(), now);
    }
}

void
OnSsthresh(uint32_t, uint32_t now)
{
    if (g.ssthresh.size() < 200000)
    {
        g.ssthresh.emplace_back(Simulator::Now().GetSeconds(), now);
    }
}

void
OnLastRtt(Time, Time now)
{
    if (g.lastRtt.size() < 200000)
    {
        g.lastRtt.emplace_back(Simulator::Now().GetSeconds(), now.GetSeconds());
    }
}

// `, "name": [[t, v], ...]`
template <class V>
void
PrintSeries(std::ostringstream& o, const char* name, const std::vector<std::pair<double, V>>& points)
{
    o << ", \"" << name << "\": [";
    for (size_t i = 0; i < points.size(); i++)
    {
        o << (i ? ", " : "") << "[" << points[i].first << ", " << points[i].second << "]";
    }
    o << "]";
}

void
OnSenderPhyTxBegin(Ptr<const Packet> p)
{
    TcpHeader tcp;
    uint32_t payload;
    if (!TcpOfFrame(p, tcp, payload) || payload == 0)
    {
        return;
    }
    double now = Simulator::Now().GetSeconds();
    if (g.firstDataWire < 0)
    {
        g.firstDataWire = now;
    }
    uint64_t seq = tcp.GetSequenceNumber().GetValue();
    if (g.txWire.size() < g.recordTx)
    {
        g.txWire.emplace_back(now, (seq - 1) / g.segSize);
    }
    if (g.recordRtx && seq < g.highWire && g.rtxWire.size() < 5000)
    {
        g.rtxWire.emplace_back(now, (seq - 1) / g.segSize);
    }
    g.highWire = std::max<uint64_t>(g.highWire, seq + payload);
}

void
OnSenderPhyRxEnd(Ptr<const Packet> p)
{
    if (g.acks.size() >= g.recordTx)
    {
        return;
    }
    TcpHeader tcp;
    uint32_t payload;
    if (!TcpOfFrame(p, tcp, payload))
    {
        return;
    }
    if (tcp.GetFlags() & TcpHeader::SYN)
    {
        return;
    }
    g.acks.emplace_back(Simulator::Now().GetSeconds(),
                        (tcp.GetAckNumber().GetValue() - 1) / static_cast<double>(g.segSize));
}

void
OnRxDrop(Ptr<const Packet> p)
{
    g.errorDrops++;
    if (g.recordRtx && g.drops.size() < 5000)
    {
        TcpHeader tcp;
        uint32_t payload;
        long long seg = -1;
        if (TcpOfFrame(p, tcp, payload) && payload > 0)
        {
            seg = (tcp.GetSequenceNumber().GetValue() - 1) / g.segSize;
        }
        g.drops.emplace_back(Simulator::Now().GetSeconds(), seg);
    }
}

void
OnQueueDrop(Ptr<const Packet>)
{
    g.queueDrops++;
}

void
OnMacTxDrop(Ptr<const Packet>)
{
    g.macTxDrops++;
}

void
OnPhyTxEnd(Ptr<const Packet>)
{
    g.hops++;
}

// Connects a trace source and stops the run if the name does not exist (no silent zero counts).
template <typename T, typename CB>
void
Hook(Ptr<T> obj, const std::string& name, CB cb)
{
    NS_ABORT_MSG_UNLESS(obj && obj->TraceConnectWithoutContext(name, cb), "no trace source " << name);
}

void
HookSocket(Ptr<BulkSendApplication> app)
{
    Ptr<Socket> s = app->GetSocket();
    Hook(s, "Tx", MakeCallback(&OnTx));
    Hook(s, "Retransmission", MakeCallback(&OnRetransmission));
    Hook(s, "CongState", MakeCallback(&OnCongState));
    Hook(s, "RTO", MakeCallback(&OnRto));
    if (g.traceCwnd)
    {
        Hook(s, "CongestionWindow", MakeCallback(&OnCwnd));
        Hook(s, "SlowStartThreshold", MakeCallback(&OnSsthresh));
        Hook(s, "LastRTT", MakeCallback(&OnLastRtt));
    }
}

std::string
AttrDump(const std::string& typeName)
{
    TypeId tid = TypeId::LookupByName(typeName);
    std::ostringstream o;
    o << "{";
    bool first = true;
    for (uint32_t i = 0; i < tid.GetAttributeN(); i++)
    {
        auto info = tid.GetAttribute(i);
        std::string v = info.initialValue->SerializeToString(info.checker);
        std::string esc;
        for (char ch : v)
        {
            if (ch == '"' || ch == '\\')
            {
                esc += '\\';
            }
            esc += ch;
        }
        o << (first ? "" : ", ") << "\"" << info.name << "\": \"" << esc << "\"";
        first = false;
    }
    o << "}";
    return o.str();
}

} // namespace

int
main(int argc, char* argv[])
{
    auto wallStart = std::chrono::steady_clock::now();
    uint32_t seed = 1;
    double duration = 60.0;
    std::string cc = "newreno";
    bool sack = true;
    std::string recovery = "prr";
    std::string loss = "none";
    double rate = 0.0;
    uint32_t burstMin = 2;
    uint32_t burstMax = 5;
    std::string dropSegs;
    std::string dropPkts;
    std::string bottleneckRate = "4Mbps";
    double bottleneckDelayMs = 50.0;
    std::string accessRate = "10Mbps";
    double accessDelayMs = 0.1;
    uint32_t queue = 100;
    uint32_t mtu = 1500;
    bool timestamps = true;
    uint32_t segSize = 0;
    uint32_t initCwnd = 10;
    double minRto = 1.0;
    uint32_t delAckCount = 2;
    double delAckTimeout = 0.2;
    uint32_t sndBuf = 1 << 20;
    uint32_t rcvBuf = 1 << 20;
    bool limitedTransmit = true;
    bool recordRtx = false;
    bool traceCwnd = false;
    uint32_t recordTx = 0;
    bool dumpDefaults = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("seed", "run number (RngRun); RngSeed stays 1", seed);
    cmd.AddValue("duration", "simulated seconds; goodput = sink bytes * 8 / duration", duration);
    cmd.AddValue("cc", "newreno | newreno-flightsize | newreno-rfc | newreno-aligned | newreno-rfc-aligned | linuxreno | westwoodplus | cubic, or one of AddControllerTypes (ns3_tcp_defaults.h)", cc);
    cmd.AddValue("sack", "SACK option (TcpSocketBase::Sack)", sack);
    cmd.AddValue("recovery", "classic | prr | prr-rfc (TcpL4Protocol::RecoveryType; prr-rfc: ns3_prr_variants.h)", recovery);
    cmd.AddValue("loss", "none | uniform | burst | segs | pkts", loss);
    cmd.AddValue("rate", "packet error rate (uniform) or burst start rate (burst)", rate);
    cmd.AddValue("burstMin", "burst size minimum (packets)", burstMin);
    cmd.AddValue("burstMax", "burst size maximum (packets, inclusive)", burstMax);
    cmd.AddValue("dropSegs", "loss=segs: comma list of 0-based data segment indices", dropSegs);
    cmd.AddValue("dropPkts", "loss=pkts: comma list of 1-based packet ordinals on the bottleneck", dropPkts);
    cmd.AddValue("bottleneckRate", "bottleneck rate", bottleneckRate);
    cmd.AddValue("bottleneckDelayMs", "bottleneck one-way delay (ms)", bottleneckDelayMs);
    cmd.AddValue("accessRate", "access link rate", accessRate);
    cmd.AddValue("accessDelayMs", "access link delay (ms)", accessDelayMs);
    cmd.AddValue("queue", "DropTail device queue in packets (all devices)", queue);
    cmd.AddValue("mtu", "IP MTU", mtu);
    cmd.AddValue("timestamps", "RFC 7323 timestamps", timestamps);
    cmd.AddValue("segSize", "payload bytes per segment; 0 = MTU - 40 - (12 if timestamps)", segSize);
    cmd.AddValue("initCwnd", "initial cwnd (segments)", initCwnd);
    cmd.AddValue("minRto", "minimum RTO (s)", minRto);
    cmd.AddValue("delAckCount", "segments per delayed ACK", delAckCount);
    cmd.AddValue("delAckTimeout", "delayed ACK timeout (s)", delAckTimeout);
    cmd.AddValue("sndBuf", "send buffer (bytes)", sndBuf);
    cmd.AddValue("rcvBuf", "receive buffer (bytes)", rcvBuf);
    cmd.AddValue("limitedTransmit", "RFC 3042 limited transmit", limitedTransmit);
    cmd.AddValue("recordRtx", "list every retransmission and error drop (time, seg)", recordRtx);
    cmd.AddValue("traceCwnd", "list (time, cwnd bytes) at every change of the congestion window, of ssthresh, and each RTT sample (last_rtt)", traceCwnd);
    cmd.AddValue("recordTx", "list the first N data transmissions (time, seg)", recordTx);
    cmd.AddValue("dumpDefaults", "print the default attributes of the TCP classes and exit", dumpDefaults);
    cmd.Parse(argc, argv);

    if (dumpDefaults)
    {
        std::printf("{\"TcpSocket\": %s, \"TcpSocketBase\": %s, \"TcpL4Protocol\": %s, "
                    "\"RttMeanDeviation\": %s, \"TcpNewReno\": %s, \"TcpCubic\": %s, "
                    "\"TcpWestwoodPlus\": %s, \"TcpPrrRecovery\": %s, \"TcpTxBuffer\": %s, "
                    "\"BulkSendApplication\": %s, \"BurstErrorModel\": %s}\n",
                    AttrDump("ns3::TcpSocket").c_str(),
                    AttrDump("ns3::TcpSocketBase").c_str(),
                    AttrDump("ns3::TcpL4Protocol").c_str(),
                    AttrDump("ns3::RttMeanDeviation").c_str(),
                    AttrDump("ns3::TcpNewReno").c_str(),
                    AttrDump("ns3::TcpCubic").c_str(),
                    AttrDump("ns3::TcpWestwoodPlus").c_str(),
                    AttrDump("ns3::TcpPrrRecovery").c_str(),
                    AttrDump("ns3::TcpTxBuffer").c_str(),
                    AttrDump("ns3::BulkSendApplication").c_str(),
                    AttrDump("ns3::BurstErrorModel").c_str());
        return 0;
    }

    std::map<std::string, std::string> ccTypes = {{"newreno", "ns3::TcpNewReno"},
                                                        {"newreno-flightsize", "rexmit::NewRenoFlightSize"},
                                                        {"newreno-rfc", "rexmit::NewRenoFlightSize"},
                                                        {"newreno-aligned", "rexmit::NewRenoAligned"},
                                                        {"newreno-rfc-aligned", "rexmit::NewRenoAligned"},
                                                        {"linuxreno", "ns3::TcpLinuxReno"},
                                                        {"westwoodplus", "ns3::TcpWestwoodPlus"},
                                                        {"cubic", "ns3::TcpCubic"}};
    AddControllerTypes(ccTypes);
    AddRttSampleTypes(ccTypes);
    if (!ccTypes.count(cc) || !IsRecovery(recovery) ||
        (loss != "none" && loss != "uniform" && loss != "burst" && loss != "segs" && loss != "pkts"))
    {
        std::fprintf(stderr, "bad --cc, --recovery or --loss\n");
        return 2;
    }
    if (segSize == 0)
    {
        segSize = mtu - 40 - (timestamps ? 12 : 0);
    }
    g.segSize = segSize;
    g.recordRtx = recordRtx || loss == "segs" || loss == "pkts";
    g.traceCwnd = traceCwnd;
    g.recordTx = recordTx;

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TypeId::LookupByName(ccTypes.at(cc))));
    TcpKnobs knobs;
    knobs.recovery = recovery;
    knobs.sack = sack;
    knobs.timestamps = timestamps;
    knobs.minRto = minRto;
    knobs.limitedTransmit = limitedTransmit;
    knobs.segSize = segSize;
    knobs.initCwnd = initCwnd;
    knobs.delAckCount = delAckCount;
    knobs.delAckTimeout = delAckTimeout;
    knobs.sndBuf = sndBuf;
    knobs.rcvBuf = rcvBuf;
    SetTcpDefaults(knobs);
    if (cc == "newreno-rfc" || cc == "newreno-rfc-aligned")
    {
        Config::SetDefault("rexmit::NewRenoFlightSize::ExcludeLimitedTransmit", BooleanValue(true));
    }


    NodeContainer nodes;
    nodes.Create(4); // S, G1, G2, D
    std::ostringstream q;
    q << queue << "p";
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetDeviceAttribute("Mtu", UintegerValue(mtu));
    access.SetChannelAttribute("Delay", TimeValue(MicroSeconds(std::llround(accessDelayMs * 1000))));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(q.str()));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    bottleneck.SetDeviceAttribute("Mtu", UintegerValue(mtu));
    bottleneck.SetChannelAttribute("Delay", TimeValue(MicroSeconds(std::llround(bottleneckDelayMs * 1000))));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(q.str()));

    NetDeviceContainer dSG = access.Install(nodes.Get(0), nodes.Get(1));
    NetDeviceContainer dGG = bottleneck.Install(nodes.Get(1), nodes.Get(2));
    NetDeviceContainer dGD = access.Install(nodes.Get(2), nodes.Get(3));

    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.1.1.0", "255.255.255.0");
    addr.Assign(dSG);
    addr.SetBase("10.1.2.0", "255.255.255.0");
    addr.Assign(dGG);
    addr.SetBase("10.1.3.0", "255.255.255.0");
    Ipv4InterfaceContainer ifGD = addr.Assign(dGD);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // Only the device DropTail queues buffer packets: remove the default queue discs.
    TrafficControlHelper tch;
    for (auto* c : {&dSG, &dGG, &dGD})
    {
        tch.Uninstall(*c);
    }

    // Error model on G2's bottleneck device: the data direction G1 -> G2.
    Ptr<NetDevice> rxDev = dGG.Get(1);
    Ptr<ErrorModel> em;
    int64_t stream = 1000;
    if (loss == "uniform")
    {
        auto m = CreateObject<RateErrorModel>();
        m->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        m->SetRate(rate);
        m->AssignStreams(stream);
        em = m;
    }
    else if (loss == "burst")
    {
        auto m = CreateObject<BurstErrorModel>();
        m->SetBurstRate(rate);
        auto size = CreateObject<UniformRandomVariable>();
        size->SetAttribute("Min", DoubleValue(burstMin));
        size->SetAttribute("Max", DoubleValue(burstMax));
        m->SetRandomBurstSize(size); // BurstErrorModel draws GetInteger(): uniform on Min..Max
        m->AssignStreams(stream);
        em = m;
    }
    else if (loss == "segs")
    {
        auto m = CreateObject<SegmentListErrorModel>();
        m->Configure(ParseList(dropSegs), segSize);
        em = m;
    }
    else if (loss == "pkts")
    {
        auto m = CreateObject<ReceiveListErrorModel>();
        std::list<uint32_t> l;
        for (auto n : ParseList(dropPkts))
        {
            l.push_back(static_cast<uint32_t>(n - 1)); // ReceiveListErrorModel counts from 0
        }
        m->SetList(l);
        em = m;
    }
    if (em)
    {
        rxDev->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
    Hook(rxDev, "PhyRxDrop", MakeCallback(&OnRxDrop));
    if (g.recordRtx || g.recordTx > 0)
    {
        Hook(dSG.Get(0), "PhyTxBegin", MakeCallback(&OnSenderPhyTxBegin));
    }
    if (g.recordTx > 0)
    {
        Hook(dSG.Get(0), "PhyRxEnd", MakeCallback(&OnSenderPhyRxEnd));
    }
    // With no queue disc, a full device queue stops the device's transmission queue and the
    // traffic-control layer drops the packet (its "Drop" trace): that is the drop-tail drop.
    for (uint32_t i = 0; i < nodes.GetN(); i++)
    {
        Hook(nodes.Get(i)->GetObject<TrafficControlLayer>(), "TcDrop", MakeCallback(&OnQueueDrop));
    }
    for (auto* c : {&dSG, &dGG, &dGD})
    {
        for (uint32_t i = 0; i < c->GetN(); i++)
        {
            auto dev = DynamicCast<PointToPointNetDevice>(c->Get(i));
            Hook(dev, "PhyTxEnd", MakeCallback(&OnPhyTxEnd));
            Hook(dev->GetQueue(), "Drop", MakeCallback(&OnQueueDrop));
            Hook(dev, "MacTxDrop", MakeCallback(&OnMacTxDrop));
        }
    }

    uint16_t port = 5000;
    BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(ifGD.GetAddress(1), port));
    bulk.SetAttribute("MaxBytes", UintegerValue(0));
    bulk.SetAttribute("SendSize", UintegerValue(segSize));
    ApplicationContainer src = bulk.Install(nodes.Get(0));
    src.Start(Seconds(0.0));
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApp = sinkHelper.Install(nodes.Get(3));
    sinkApp.Start(Seconds(0.0));
    Simulator::Schedule(NanoSeconds(1), &HookSocket, DynamicCast<BulkSendApplication>(src.Get(0)));

    Simulator::Stop(Seconds(duration));
    auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    auto runEnd = std::chrono::steady_clock::now();
    uint64_t rxBytes = DynamicCast<PacketSink>(sinkApp.Get(0))->GetTotalRx();
    uint64_t events = Simulator::GetEventCount();
    Simulator::Destroy();

    std::ostringstream o;
    o.precision(10);
    o << "{\"peer\": \"ns-3.44\", \"scenario\": \"tcp_single\", \"seed\": " << seed
      << ", \"duration_s\": " << duration << ", \"cc\": \"" << cc << "\", \"sack\": " << (sack ? "true" : "false")
      << ", \"recovery\": \"" << recovery << "\", \"loss\": \"" << loss << "\", \"rate\": " << rate
      << ", \"burst_size\": [" << burstMin << ", " << burstMax << "], \"drop_segs\": [" << dropSegs
      << "], \"drop_pkts\": [" << dropPkts << "], \"seg_size\": " << segSize
      << ", \"timestamps\": " << (timestamps ? "true" : "false") << ", \"init_cwnd\": " << initCwnd
      << ", \"min_rto_s\": " << minRto << ", \"queue_pkts\": " << queue << ", \"snd_buf\": " << sndBuf
      << ", \"rcv_buf\": " << rcvBuf << ", \"goodput_bps\": " << (rxBytes * 8.0 / duration)
      << ", \"rx_bytes\": " << rxBytes << ", \"data_segments_sent\": " << g.dataTx
      << ", \"retransmissions\": " << g.retransmissions
      << ", \"retransmissions_trace\": " << g.rtxTraceCount << ", \"timeouts\": " << g.timeouts
      << ", \"fast_recoveries\": " << g.recoveries << ", \"error_drops\": " << g.errorDrops
      << ", \"queue_drops\": " << g.queueDrops << ", \"mac_tx_drops\": " << g.macTxDrops << ", \"packet_hops\": " << g.hops
      << ", \"events\": " << events << ", \"first_data_s\": " << g.firstData;
    if (g.recordRtx)
    {
        o << ", \"rtx\": [";
        for (size_t i = 0; i < g.rtx.size(); i++)
        {
            o << (i ? ", " : "") << "[" << g.rtx[i].first << ", " << g.rtx[i].second << "]";
        }
        o << "], \"drops\": [";
        for (size_t i = 0; i < g.drops.size(); i++)
        {
            o << (i ? ", " : "") << "[" << g.drops[i].first << ", " << g.drops[i].second << "]";
        }
        o << "], \"first_data_wire_s\": " << g.firstDataWire << ", \"rtx_wire\": [";
        for (size_t i = 0; i < g.rtxWire.size(); i++)
        {
            o << (i ? ", " : "") << "[" << g.rtxWire[i].first << ", " << g.rtxWire[i].second << "]";
        }
        o << "], \"recovery_events\": [";
        for (size_t i = 0; i < g.events.size(); i++)
        {
            o << (i ? ", " : "") << "[" << g.events[i].first << ", " << g.events[i].second << "]";
        }
        o << "]";
    }
    if (recordTx > 0)
    {
        o << ", \"tx\": [";
        for (size_t i = 0; i < g.tx.size(); i++)
        {
            o << (i ? ", " : "") << "[" << g.tx[i].first << ", " << g.tx[i].second << "]";
        }
        o << "], \"tx_wire\": [";
        for (size_t i = 0; i < g.txWire.size(); i++)
        {
            o << (i ? ", " : "") << "[" << g.txWire[i].first << ", " << g.txWire[i].second << "]";
        }
        o << "], \"acks\": [";
        for (size_t i = 0; i < g.acks.size(); i++)
        {
            o << (i ? ", " : "") << "[" << g.acks[i].first << ", " << g.acks[i].second << "]";
        }
        o << "]";
    }
    if (g.traceCwnd)
    {
        PrintSeries(o, "cwnd", g.cwnd);
        PrintSeries(o, "ssthresh", g.ssthresh);
        PrintSeries(o, "last_rtt", g.lastRtt);
    }
    auto wallEnd = std::chrono::steady_clock::now();
    o << ", \"wall_run_s\": " << std::chrono::duration<double>(runEnd - runStart).count()
      << ", \"wall_total_s\": " << std::chrono::duration<double>(wallEnd - wallStart).count() << "}";
    std::printf("%s\n", o.str().c_str());
    return 0;
}
