// Peer scenario for issue 19: competing TCP flows on one bottleneck, in ns-3.44.
//
//   S_i --accessRate, delay_i-- R1 --bottleneckRate, bottleneckDelayMs-- R2 --accessRate, recvDelayMs-- D_i
//
// Written for rexmit's multi-flow validation (not derived from ns-3's examples). Built and run by
// validation/ns3_multi.py against the PyPI `ns3` wheel. Prints exactly one JSON object.
//
// Modelling choices that matter when comparing with another simulator:
// - Drop-tail: every device has a DropTail queue and no queue disc; the bottleneck device holds
//   `queue` packets waiting (plus the one being serialised), the others 1000.
// - RED: a RedQueueDisc on R1's bottleneck device (thresholds in packets, MeanPktSize 500,
//   `Wait` off, `Gentle` on, `QW`, `LInterm` = 1/maxP, limit `queue` packets) above a one-packet
//   device queue; its time-average queue is the queue disc's.
// - An active queue (codel | fq_codel | pie | ared): the queue disc of ns3_aqm.h, set to the
//   RFC values rexmit uses, above a one-packet device queue; its drops by reason, marks and
//   delays are printed under "aqm". `step` is DCTCP's step marking (RED at one threshold,
//   ns3_aqm.h).
// - DCTCP (ccs "dctcp"): ns3::TcpDctcp on the sender and on its receiver (the receiver's echo of
//   CE marks, RFC 8257 §3.2, is TcpDctcp's too); each α update after the warm-up is kept and
//   printed per flow (mean α, marked and acknowledged bytes).
// - The error model (lossRate) is the ReceiveErrorModel of R2's bottleneck device: data
//   direction only, after the packet used the link.
// - Flow i's congestion control is set per sender node (TcpL4Protocol::SocketType); SACK and
//   the recovery algorithm (PRR or classic) are global.
// - Goodput counts what each PacketSink received between `warmup` and `duration`;
//   retransmissions (data segments sent below the highest sequence already sent), timeouts
//   (entries into CA_LOSS plus RTO back-offs within it), loss rate and mean queue count the
//   whole run.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ns3_aqm.h"
#include "ns3_tcp_defaults.h"

using namespace ns3;

namespace
{

#include "ns3_newreno_variants.h"
#include "ns3_rtt_sample_variants.h"
#include "ns3_hystart_trace.h"

std::vector<std::string>
Split(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        if (!item.empty())
        {
            out.push_back(item);
        }
    }
    return out;
}

struct Flow
{
    uint64_t highTx{0};
    bool started{false};
    uint64_t retransmissions{0};
    uint64_t timeouts{0};
    TcpSocketState::TcpCongState_t state{TcpSocketState::CA_OPEN};
    uint64_t rxAtWarmup{0};
    std::vector<std::pair<double, uint32_t>> ssthresh; // with traceSsthresh: (time, bytes) at each change
    // DCTCP, after the warm-up: α updates, their sum, and the bytes they counted.
    uint64_t alphaUpdates{0};
    double alphaSum{0.0};
    uint64_t bytesMarked{0};
    uint64_t bytesAcked{0};
    uint64_t cwrEntries{0}; // window reductions for ECN (entries into CA_CWR), whole run
    // cwnd after the warm-up (validation/dctcp_arrivals.py): bytes added, bytes added while in
    // CA_CWR, bytes removed, reductions, and the sum of their depths (1 - new/old).
    uint64_t cwndUp{0};
    uint64_t cwndUpInCwr{0};
    uint64_t cwndDown{0};
    uint64_t cwndCuts{0};
    double cutDepthSum{0.0};
    double cwrSince{-1.0}; // when the current CA_CWR began
    double cwrTime{0.0};   // seconds in CA_CWR after the warm-up
    int64_t lastUpNs{-1};  // when cwnd last grew
    uint64_t cutsAfterGrowth{0}; // reductions at the instant of a growth (the same ACK grew it first)
    uint32_t cwnd{0};            // the current cwnd (bytes)
    double windowsAcked{0.0};    // after the warm-up: Σ newly acknowledged bytes / cwnd, outside CA_CWR
    double windowsAckedInCwr{0.0}; // the same in CA_CWR
};

double g_warmup = 0.0;

bool g_traceSsthresh = false;

std::vector<Flow> g_flows;

struct Bottleneck
{
    uint64_t arrivals{0};
    uint64_t queueDrops{0};
    uint64_t errorDrops{0};
    double lastChange{0.0};
    uint32_t qlen{0};
    double integral{0.0};
} g_b;

void
OnTx(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    Flow& f = g_flows[i];
    uint64_t seq = h.GetSequenceNumber().GetValue();
    uint64_t end = seq + p->GetSize();
    if (f.started && seq < f.highTx)
    {
        f.retransmissions++;
    }
    f.started = true;
    f.highTx = std::max(f.highTx, end);
}

void
OnCongState(uint32_t i, TcpSocketState::TcpCongState_t old, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS && old != TcpSocketState::CA_LOSS)
    {
        g_flows[i].timeouts++;
    }
    if (now == TcpSocketState::CA_CWR)
    {
        g_flows[i].cwrEntries++;
        g_flows[i].cwrSince = Simulator::Now().GetSeconds();
    }
    else if (old == TcpSocketState::CA_CWR && g_flows[i].cwrSince >= g_warmup)
    {
        g_flows[i].cwrTime += Simulator::Now().GetSeconds() - g_flows[i].cwrSince;
    }
    g_flows[i].state = now;
}

void
OnRto(uint32_t i, Time oldv, Time newv)
{
    // A second timeout within CA_LOSS doubles the RTO without a state change.
    if (g_flows[i].state == TcpSocketState::CA_LOSS && newv == oldv + oldv)
    {
        g_flows[i].timeouts++;
    }
}

void
OnSsthresh(uint32_t i, uint32_t, uint32_t now)
{
    if (g_flows[i].ssthresh.size() < 100000)
    {
        g_flows[i].ssthresh.emplace_back(Simulator::Now().GetSeconds(), now);
    }
}

// TcpDctcp fires CongestionEstimate(marked bytes, acknowledged bytes, α) at each window's end
// (tcp-dctcp.cc's call; its header names the first two the other way round).
void
OnDctcpEstimate(uint32_t i, uint32_t bytesMarked, uint32_t bytesAcked, double alpha)
{
    if (Simulator::Now().GetSeconds() < g_warmup)
    {
        return;
    }
    Flow& f = g_flows[i];
    f.alphaUpdates++;
    f.alphaSum += alpha;
    f.bytesMarked += bytesMarked;
    f.bytesAcked += bytesAcked;
}

void
OnCwnd(uint32_t i, uint32_t old, uint32_t now)
{
    if (Simulator::Now().GetSeconds() < g_warmup)
    {
        return;
    }
    Flow& f = g_flows[i];
    f.cwnd = now;
    if (now > old)
    {
        f.cwndUp += now - old;
        f.lastUpNs = Simulator::Now().GetNanoSeconds();
        f.cwndUpInCwr += f.state == TcpSocketState::CA_CWR ? now - old : 0;
    }
    else if (now < old)
    {
        f.cwndDown += old - now;
        f.cwndCuts++;
        f.cutsAfterGrowth += f.lastUpNs == Simulator::Now().GetNanoSeconds();
        f.cutDepthSum += 1.0 - double(now) / old;
    }
}

void
OnHighRxAck(uint32_t i, SequenceNumber32 old, SequenceNumber32 now)
{
    Flow& f = g_flows[i];
    if (Simulator::Now().GetSeconds() < g_warmup || now <= old || f.cwnd == 0)
    {
        return;
    }
    double w = double(now - old) / f.cwnd;
    (f.state == TcpSocketState::CA_CWR ? f.windowsAckedInCwr : f.windowsAcked) += w;
}

void
HookSocket(uint32_t i, Ptr<BulkSendApplication> app)
{
    Ptr<Socket> s = app->GetSocket();
    NS_ABORT_MSG_UNLESS(s, "flow " << i << " has no socket yet");
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, i));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, i));
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
    s->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&OnHighRxAck, i));
    if (g_traceSsthresh)
    {
        s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsthresh, i));
    }
    PointerValue ops;
    s->GetAttribute("CongestionOps", ops);
    if (auto traced = dynamic_cast<HystartTraced*>(PeekPointer(ops.Get<TcpCongestionOps>())))
    {
        traced->SetTraceFlow(i);
    }
    if (auto dctcp = ops.Get<TcpDctcp>())
    {
        dctcp->TraceConnectWithoutContext("CongestionEstimate", MakeBoundCallback(&OnDctcpEstimate, i));
    }
}

void
OnQueueLen(uint32_t, uint32_t now)
{
    double t = Simulator::Now().GetSeconds();
    g_b.integral += g_b.qlen * (t - g_b.lastChange);
    g_b.lastChange = t;
    g_b.qlen = now;
}

void
OnArrival(Ptr<const Packet>)
{
    g_b.arrivals++;
}

void
OnQueueDrop(Ptr<const Packet>)
{
    g_b.queueDrops++;
}

void
OnTcDrop(Ptr<const Packet>)
{
    // Refused before reaching the device (full device queue, no queue disc): an arrival too.
    g_b.arrivals++;
    g_b.queueDrops++;
}

void
OnQdiscDrop(Ptr<const QueueDiscItem>)
{
    g_b.queueDrops++;
}

void
OnErrorDrop(Ptr<const Packet>)
{
    g_b.errorDrops++;
}

void
Snapshot(std::vector<Ptr<PacketSink>> sinks)
{
    for (size_t i = 0; i < sinks.size(); i++)
    {
        g_flows[i].rxAtWarmup = sinks[i]->GetTotalRx();
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t seed = 1;
    double duration = 100.0;
    double warmup = 20.0;
    std::string ccs = "newreno";
    std::string delaysNs = "11000000";
    std::string starts = "0";
    bool sack = true;
    std::string recovery = "prr";
    std::string bottleneckRate = "10Mbps";
    double bottleneckDelayMs = 10.0;
    double recvDelayMs = 1.0;
    std::string accessRate = "100Mbps";
    uint32_t queue = 30;
    std::string qdisc = "droptail";
    bool ecn = false;
    double redMin = 5, redMax = 15, redMaxP = 0.1, redWeight = 0.002;
    double lossRate = 0.0;
    double stepK = 0;
    uint32_t fqQuantum = 1514;
    uint32_t mtu = 1500;
    bool timestamps = true;
    uint32_t initCwnd = 10;
    double minRto = 1.0;
    uint32_t delAckCount = 2;
    double delAckTimeout = 0.2;
    uint32_t sndBuf = 1 << 20;
    uint32_t rcvBuf = 1 << 20;

    CommandLine cmd(__FILE__);
    cmd.AddValue("seed", "run number (RngRun); RngSeed stays 1", seed);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "goodput is measured from here (s)", warmup);
    cmd.AddValue("ccs", "comma list, one per flow: newreno | newreno-rfc | newreno-rfc-aligned | newreno-rfc-exact | cubic | westwoodplus | linuxreno, or one of AddControllerTypes (ns3_tcp_defaults.h)", ccs);
    cmd.AddValue("delaysNs", "comma list: each sender's access delay (ns)", delaysNs);
    cmd.AddValue("starts", "comma list: each flow's start (s)", starts);
    cmd.AddValue("sack", "SACK option", sack);
    cmd.AddValue("recovery", "classic | prr | prr-rfc", recovery);
    cmd.AddValue("bottleneckRate", "bottleneck rate", bottleneckRate);
    cmd.AddValue("bottleneckDelayMs", "bottleneck one-way delay (ms)", bottleneckDelayMs);
    cmd.AddValue("recvDelayMs", "receivers' access delay (ms)", recvDelayMs);
    cmd.AddValue("accessRate", "access link rate", accessRate);
    cmd.AddValue("queue", "bottleneck queue (packets)", queue);
    cmd.AddValue("qdisc", "droptail | red | codel | fq_codel | pie | ared | step", qdisc);
    cmd.AddValue("ecn", "the active queue marks ECN-capable packets (codel, fq_codel, pie, ared)", ecn);
    cmd.AddValue("stepK", "step: marking threshold (queue-disc packets)", stepK);
    cmd.AddValue("fqQuantum", "fq_codel: the DRR quantum (bytes; RFC 8290 section 5.2.4: 1514)", fqQuantum);
    cmd.AddValue("redMin", "RED min threshold (packets)", redMin);
    cmd.AddValue("redMax", "RED max threshold (packets)", redMax);
    cmd.AddValue("redMaxP", "RED max_p", redMaxP);
    cmd.AddValue("redWeight", "RED queue weight", redWeight);
    cmd.AddValue("lossRate", "uniform packet error rate on the bottleneck's data direction", lossRate);
    cmd.AddValue("timestamps", "RFC 7323 timestamps", timestamps);
    cmd.AddValue("initCwnd", "initial cwnd (segments)", initCwnd);
    cmd.AddValue("minRto", "minimum RTO (s)", minRto);
    cmd.AddValue("delAckCount", "segments per delayed ACK", delAckCount);
    cmd.AddValue("delAckTimeout", "delayed ACK timeout (s)", delAckTimeout);
    cmd.AddValue("delayFrom", "also summarize the queue delays of packets enqueued from this time (s)", g_aqmDelayFrom);
    cmd.AddValue("delayLog", "with delayFrom: write each such packet (sender, enqueue s, delay s) to this CSV file", g_aqmDelayLog);
    cmd.AddValue("traceSsthresh", "list each flow's ssthresh changes (time, bytes)", g_traceSsthresh);
    cmd.Parse(argc, argv);
    g_warmup = warmup;

    auto ccList = Split(ccs);
    auto delayList = Split(delaysNs);
    auto startList = Split(starts);
    const size_t n = ccList.size();
    // newreno-rfc: ns-3's NewReno with RFC 5681's ssthresh (FlightSize/2 without the
    // limited-transmit segments) instead of half the pipe (ns3_newreno_variants.h);
    // newreno-rfc-aligned: that, and congestion avoidance in whole SMSS steps, one per cwnd of
    // ACKs, without ns-3's truncation of SMSS*SMSS/cwnd to whole bytes (as rexmit grows);
    // newreno-rfc-exact: newreno-rfc without that truncation alone.
    std::map<std::string, std::string> ccTypes = {{"newreno", "ns3::TcpNewReno"},
                                                        {"newreno-rfc", "rexmit::NewRenoFlightSize"},
                                                        {"newreno-rfc-aligned", "rexmit::NewRenoAligned"},
                                                        {"newreno-rfc-exact", "rexmit::NewRenoExact"},
                                                        {"linuxreno", "ns3::TcpLinuxReno"},
                                                        {"westwoodplus", "ns3::TcpWestwoodPlus"},
                                                        {"cubic", "ns3::TcpCubic"},
                                                        {"dctcp", "ns3::TcpDctcp"}};
    AddControllerTypes(ccTypes);
    AddRttSampleTypes(ccTypes);
    AddHystartTraceTypes(ccTypes);
    if (n == 0 || delayList.size() != n || startList.size() != n || (qdisc != "droptail" && qdisc != "red" && !IsAqm(qdisc)) ||
        !IsRecovery(recovery))
    {
        std::fprintf(stderr, "bad ccs/delaysNs/starts lengths, qdisc or recovery\n");
        return 2;
    }
    for (auto& c : ccList)
    {
        if (!ccTypes.count(c))
        {
            std::fprintf(stderr, "unknown cc %s\n", c.c_str());
            return 2;
        }
    }
    uint32_t segSize = mtu - 40 - (timestamps ? 12 : 0);
    g_flows.resize(n);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    TcpKnobs knobs;
    knobs.recovery = recovery;
    knobs.sack = sack;
    knobs.timestamps = timestamps;
    knobs.minRto = minRto;
    knobs.limitedTransmit = true;
    knobs.segSize = segSize;
    knobs.initCwnd = initCwnd;
    knobs.delAckCount = delAckCount;
    knobs.delAckTimeout = delAckTimeout;
    knobs.sndBuf = sndBuf;
    knobs.rcvBuf = rcvBuf;
    SetTcpDefaults(knobs);
    Config::SetDefault("rexmit::NewRenoFlightSize::ExcludeLimitedTransmit", BooleanValue(true));


    NodeContainer routers;
    routers.Create(2);
    NodeContainer senders;
    senders.Create(n);
    NodeContainer receivers;
    receivers.Create(n);
    InternetStackHelper stack;
    stack.Install(routers);
    stack.Install(senders);
    stack.Install(receivers);
    for (size_t i = 0; i < n; i++)
    {
        std::ostringstream path;
        path << "/NodeList/" << senders.Get(i)->GetId() << "/$ns3::TcpL4Protocol/SocketType";
        Config::Set(path.str(), TypeIdValue(TypeId::LookupByName(ccTypes.at(ccList[i]))));
        if (ccList[i] == "dctcp")
        {
            std::ostringstream rx;
            rx << "/NodeList/" << receivers.Get(i)->GetId() << "/$ns3::TcpL4Protocol/SocketType";
            Config::Set(rx.str(), TypeIdValue(TcpDctcp::GetTypeId()));
        }
    }

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    bottleneck.SetDeviceAttribute("Mtu", UintegerValue(mtu));
    bottleneck.SetChannelAttribute("Delay", TimeValue(MicroSeconds(std::llround(bottleneckDelayMs * 1000))));
    std::ostringstream q;
    q << (qdisc == "droptail" ? queue : 1) << "p";
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(q.str()));
    NetDeviceContainer dR = bottleneck.Install(routers.Get(0), routers.Get(1));

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    addr.Assign(dR);
    std::vector<NetDeviceContainer> access;
    std::vector<Ipv4InterfaceContainer> rxIfs;
    for (size_t i = 0; i < n; i++)
    {
        PointToPointHelper a;
        a.SetDeviceAttribute("DataRate", StringValue(accessRate));
        a.SetDeviceAttribute("Mtu", UintegerValue(mtu));
        a.SetChannelAttribute("Delay", TimeValue(NanoSeconds(std::stoll(delayList[i]))));
        a.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1000p"));
        NetDeviceContainer ds = a.Install(senders.Get(i), routers.Get(0));
        PointToPointHelper b;
        b.SetDeviceAttribute("DataRate", StringValue(accessRate));
        b.SetDeviceAttribute("Mtu", UintegerValue(mtu));
        b.SetChannelAttribute("Delay", TimeValue(MicroSeconds(std::llround(recvDelayMs * 1000))));
        b.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1000p"));
        NetDeviceContainer dr = b.Install(routers.Get(1), receivers.Get(i));
        std::ostringstream s1, s2;
        s1 << "10.1." << i << ".0";
        s2 << "10.2." << i << ".0";
        addr.SetBase(s1.str().c_str(), "255.255.255.0");
        addr.Assign(ds);
        addr.SetBase(s2.str().c_str(), "255.255.255.0");
        rxIfs.push_back(addr.Assign(dr));
        access.push_back(ds);
        access.push_back(dr);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    TrafficControlHelper tch;
    tch.Uninstall(dR);
    for (auto& c : access)
    {
        tch.Uninstall(c);
    }
    Ptr<NetDevice> bdev = dR.Get(0);
    Ptr<QueueDisc> aqm;
    if (IsAqm(qdisc))
    {
        aqm = InstallAqm(bdev, AqmKnobs{qdisc, queue, ecn, bottleneckRate, stepK, fqQuantum});
        HookAqm(aqm, bdev);
        aqm->TraceConnectWithoutContext("Drop", MakeCallback(&OnQdiscDrop));
        aqm->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLen));
    }
    else if (qdisc == "red")
    {
        TrafficControlHelper red;
        std::ostringstream lim;
        lim << queue << "p";
        red.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MinTh", DoubleValue(redMin),
                             "MaxTh", DoubleValue(redMax),
                             "LInterm", DoubleValue(1.0 / redMaxP),
                             "QW", DoubleValue(redWeight),
                             "Gentle", BooleanValue(true),
                             "Wait", BooleanValue(false),
                             "MeanPktSize", UintegerValue(500),
                             "MaxSize", QueueSizeValue(QueueSize(lim.str())));
        QueueDiscContainer qd = red.Install(bdev);
        Ptr<QueueDisc> d = qd.Get(0);
        d->TraceConnectWithoutContext("Enqueue", MakeCallback(
            +[](Ptr<const QueueDiscItem>) { g_b.arrivals++; }));
        d->TraceConnectWithoutContext("Drop", MakeCallback(&OnQdiscDrop));
        d->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLen));
    }
    else
    {
        auto dev = DynamicCast<PointToPointNetDevice>(bdev);
        dev->TraceConnectWithoutContext("MacTx", MakeCallback(&OnArrival));
        dev->GetQueue()->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLen));
        // With no queue disc, a full device queue makes the traffic-control layer drop.
        routers.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext("TcDrop", MakeCallback(&OnTcDrop));
        dev->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&OnQueueDrop));
        dev->TraceConnectWithoutContext("MacTxDrop", MakeCallback(&OnQueueDrop));
    }
    Ptr<NetDevice> rdev = dR.Get(1);
    if (lossRate > 0)
    {
        auto m = CreateObject<RateErrorModel>();
        m->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        m->SetRate(lossRate);
        m->AssignStreams(1000);
        rdev->SetAttribute("ReceiveErrorModel", PointerValue(m));
    }
    rdev->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&OnErrorDrop));

    std::vector<Ptr<PacketSink>> sinks;
    uint16_t port = 5000;
    for (size_t i = 0; i < n; i++)
    {
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(rxIfs[i].GetAddress(1), port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(segSize));
        ApplicationContainer src = bulk.Install(senders.Get(i));
        double st = std::stod(startList[i]);
        src.Start(Seconds(st));
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sinkHelper.Install(receivers.Get(i));
        sinkApp.Start(Seconds(0.0));
        sinks.push_back(DynamicCast<PacketSink>(sinkApp.Get(0)));
        Simulator::Schedule(Seconds(st) + NanoSeconds(1), &HookSocket, static_cast<uint32_t>(i),
                            DynamicCast<BulkSendApplication>(src.Get(0)));
    }
    Simulator::Schedule(Seconds(warmup), &Snapshot, sinks);

    Simulator::Stop(Seconds(duration));
    auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    auto runEnd = std::chrono::steady_clock::now();
    OnQueueLen(0, g_b.qlen); // close the integral at the end
    if (aqm)
    {
        g_b.arrivals = aqm->GetStats().nTotalReceivedPackets;
    }
    std::ostringstream o;
    o.precision(10);
    o << "{\"peer\": \"ns-3.44\", \"scenario\": \"tcp_multi\", \"seed\": " << seed << ", \"duration_s\": " << duration
      << ", \"warmup_s\": " << warmup << ", \"ccs\": \"" << ccs << "\", \"qdisc\": \"" << qdisc << "\", \"flows\": [";
    for (size_t i = 0; i < n; i++)
    {
        uint64_t rx = sinks[i]->GetTotalRx() - g_flows[i].rxAtWarmup;
        o << (i ? ", " : "") << "{\"goodput_bps\": " << rx * 8.0 / (duration - warmup) << ", \"rx_bytes\": " << rx
          << ", \"retransmissions\": " << g_flows[i].retransmissions << ", \"timeouts\": " << g_flows[i].timeouts;
        if (ccList[i] == "dctcp")
        {
            const Flow& f = g_flows[i];
            o << ", \"dctcp\": {\"alpha_updates\": " << f.alphaUpdates
              << ", \"alpha_mean\": " << (f.alphaUpdates ? f.alphaSum / f.alphaUpdates : 0.0)
              << ", \"bytes_marked\": " << f.bytesMarked << ", \"bytes_acked\": " << f.bytesAcked << ", \"ecn_reductions\": " << f.cwrEntries
              << ", \"cwnd_up_bytes\": " << f.cwndUp << ", \"cwnd_up_in_cwr_bytes\": " << f.cwndUpInCwr
              << ", \"cwnd_down_bytes\": " << f.cwndDown << ", \"cwnd_cuts\": " << f.cwndCuts
              << ", \"cut_depth_mean\": " << (f.cwndCuts ? f.cutDepthSum / f.cwndCuts : 0.0)
              << ", \"cwr_time_s\": " << f.cwrTime << ", \"cuts_after_growth\": " << f.cutsAfterGrowth
              << ", \"windows_acked\": " << f.windowsAcked << ", \"windows_acked_in_cwr\": " << f.windowsAckedInCwr << "}";
        }
        if (g_traceSsthresh)
        {
            o << ", \"ssthresh\": [";
            for (size_t k = 0; k < g_flows[i].ssthresh.size(); k++)
            {
                o << (k ? ", " : "") << "[" << g_flows[i].ssthresh[k].first << ", " << g_flows[i].ssthresh[k].second << "]";
            }
            o << "]";
        }
        o << "}";
    }
    o << "], \"bottleneck\": {\"arrivals\": " << g_b.arrivals << ", \"queue_drops\": " << g_b.queueDrops
      << ", \"error_drops\": " << g_b.errorDrops << ", \"mean_queue_pkts\": " << g_b.integral / duration << "}";
    if (aqm)
    {
        o << ", \"aqm\": " << AqmJson(aqm);
    }
    if (!g_hystartRows.empty())
    {
        o << ", \"hystart\": " << HystartJson();
    }
    o << ", \"wall_run_s\": " << std::chrono::duration<double>(runEnd - runStart).count() << "}";
    Simulator::Destroy();
    std::printf("%s\n", o.str().c_str());
    return 0;
}
