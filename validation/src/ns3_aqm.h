// The active queue under test on an ns-3.44 bottleneck device, set to the RFC values rexmit
// uses, and its counters (written for rexmit's AQM validation; docs/validation_queues.md, "Active
// queues"). Included by ns3_tcp_multi.cc after the ns-3 headers.
//
// Where ns-3.44's defaults differ from RFC 8289/8290/8033 or Floyd et al. 2001 and ns-3 has the
// knob, it is set here to rexmit's value:
// - CoDel (also each FQ-CoDel flow): `MinBytes` 1501. ns-3 keeps a packet below TARGET while the
//   queue holds `< MinBytes` bytes; RFC 8289 §5.5 (and rexmit) while it holds `<= maxpacket`
//   (1500).
// - FQ-CoDel: `DropBatchSize` 1 (ns-3 and Linux drop up to 64 packets of the fat flow, until half
//   its bytes are gone; RFC 8290 §4.1 and rexmit drop one packet per arrival over the limit);
//   quantum 1514 (ns-3 takes the device MTU, 1500).
// - PIE: `MeanPktSize` 1500 (ns-3: 1000; with a limit in packets ns-3 uses it nowhere, its
//   safeguard counts 2 packets, the same as 2 · 1500 bytes here).
// - Adaptive RED: `LInterm` 10 (initial max_p 0.1; ns-3: 1/50), `Bottom` 0.01 (ns-3's 0 means
//   min(0.01, 8·MeanPktSize·Rtt/bandwidth), 8e-6 at 50 Mb/s), `Wait` off (not in rexmit's RED),
//   `LinkBandwidth` = the bottleneck rate (the automatic thresholds and weight need it).
// - Every queue: a limit of `limit` packets (ns-3's defaults differ per AQM: 25 for PIE and RED,
//   1500·1000 bytes for CoDel, 10240 for FQ-CoDel); ECN as asked (ns-3: on for FQ-CoDel only).
// - DCTCP's step marking (`step`, RFC 8257 §3.1): RED as ns-3's DCTCP documentation sets it,
//   MinTh = MaxTh = `stepK` packets with QW 1 (the average is the queue disc's length at the
//   arrival), no gentle region, UseEcn with UseHardDrop off: an ECN-capable arrival that finds
//   at least `stepK` packets in the queue disc is marked, any other such arrival dropped ("Forced
//   drop"). validation/dctcp.py passes rexmit's K − 1 (the device holds the next packet).
// What ns-3 has no knob for is listed in docs/validation_queues.md.
//
// Delays: `SojournTime`-like samples are taken per transmitted packet, from its enqueue into the
// queue disc to (a) its dequeue from it and (b) the start of its transmission on the wire. ns-3
// moves a packet from the queue disc to the device's own one-packet queue while the previous
// packet is still being sent, so (a) is what the AQM sees and (b) is the delay rexmit reports
// (rexmit's queue hands a packet to the line when the line is free).
#pragma once

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

struct AqmKnobs
{
    std::string aqm;     // codel | fq_codel | pie | ared | step
    uint32_t limit = 1000; // packets
    bool ecn = false;
    std::string rate;    // the bottleneck's rate (Adaptive RED's automatic parameters)
    double stepK = 0;    // step: the marking threshold in queue-disc packets
    uint32_t quantum = 1514; // fq_codel: the DRR quantum (bytes)
};

inline bool
IsAqm(const std::string& name)
{
    return name == "codel" || name == "fq_codel" || name == "pie" || name == "ared" || name == "step";
}

// Install the AQM on `dev` (which must have no queue disc) and return it.
inline ns3::Ptr<ns3::QueueDisc>
InstallAqm(ns3::Ptr<ns3::NetDevice> dev, const AqmKnobs& k)
{
    using namespace ns3;
    std::ostringstream lim;
    lim << k.limit << "p";
    QueueSizeValue limit(QueueSize(lim.str()));
    TrafficControlHelper tch;
    if (k.aqm == "codel" || k.aqm == "fq_codel")
    {
        // FQ-CoDel's flows are CoDelQueueDiscs made from the defaults (Target and Interval are
        // passed on; both are RFC 8289's 5 ms and 100 ms by default).
        Config::SetDefault("ns3::CoDelQueueDisc::MinBytes", UintegerValue(1501));
    }
    if (k.aqm == "codel")
    {
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", limit, "UseEcn", BooleanValue(k.ecn));
    }
    else if (k.aqm == "fq_codel")
    {
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                             "MaxSize", limit,
                             "UseEcn", BooleanValue(k.ecn),
                             "DropBatchSize", UintegerValue(1));
    }
    else if (k.aqm == "pie")
    {
        tch.SetRootQueueDisc("ns3::PieQueueDisc",
                             "MaxSize", limit,
                             "UseEcn", BooleanValue(k.ecn),
                             "MeanPktSize", UintegerValue(1500));
    }
    else if (k.aqm == "step")
    {
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", limit,
                             "MinTh", DoubleValue(k.stepK),
                             "MaxTh", DoubleValue(k.stepK),
                             "QW", DoubleValue(1.0),
                             "Gentle", BooleanValue(false),
                             "Wait", BooleanValue(false),
                             "UseEcn", BooleanValue(true),
                             "UseHardDrop", BooleanValue(false));
    }
    else
    {
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", limit,
                             "ARED", BooleanValue(true),
                             "LinkBandwidth", DataRateValue(DataRate(k.rate)),
                             "LInterm", DoubleValue(10.0),
                             "Bottom", DoubleValue(0.01),
                             "Wait", BooleanValue(false),
                             "UseEcn", BooleanValue(k.ecn));
    }
    Ptr<QueueDisc> qd = tch.Install(dev).Get(0);
    if (auto fq = DynamicCast<FqCoDelQueueDisc>(qd))
    {
        fq->SetQuantum(k.quantum); // RFC 8290 §5.2.4: 1514
    }
    return qd;
}

// Per transmitted packet: enqueue time and dequeue time, kept from the queue disc's dequeue to
// the device's transmission start (keyed by packet uid).
struct AqmDelays
{
    std::unordered_map<uint64_t, std::pair<int64_t, int64_t>> pending; // uid -> (enq ns, deq ns)
    std::vector<double> qdisc;                                          // s, what the AQM sees
    std::vector<double> line;                                           // s, enqueue to the wire
    std::map<uint32_t, uint64_t> waitingAtArrival; // packets ahead of each arrival (disc + device)
    // Diagnostics of DCTCP's step marking (validation/dctcp_arrivals.py):
    std::map<uint32_t, uint64_t> markedByWaiting; // the marked arrivals among those
    bool arrivalMarked = false;                   // set by "Mark", read by the "Enqueue" after it
    std::map<uint32_t, uint64_t> gapsUs;          // time since the previous arrival (µs)
    int64_t lastArrivalNs = -1;
    std::map<uint32_t, uint64_t> ackSegments;     // pure ACKs reaching the bottleneck's far end
    std::map<std::pair<uint32_t, uint16_t>, uint32_t> lastAck; // by (receiver, port): highest ACK
    uint64_t ackedBytes = 0;                      // bytes those ACKs newly acknowledge
    uint64_t eceAckedBytes = 0;                   // the part acknowledged by ACKs with ECE
    std::map<uint32_t, std::pair<uint64_t, uint64_t>> ackedByReceiver; // the same two per receiver
    // Per sender (IPv4 source address): packets through the queue disc and their sojourn sum (s)
    // there, from enqueue to dequeue (what FQ-CoDel's flow queues hold; validation/aqm_flows.py).
    std::map<uint32_t, std::pair<uint64_t, double>> sojournBySource;
    std::map<uint32_t, uint64_t> dropsBySource;
    // With `--delayFrom`: per sender, the delays (s, enqueue to the wire) of its packets enqueued
    // from then on, and the times (s) of its drops from then on (validation/aqm_flows.py --from).
    std::map<uint32_t, std::vector<double>> afterBySource;
    std::map<uint32_t, std::vector<double>> dropTimesBySource;
    std::unordered_map<uint64_t, uint32_t> sourceOf; // uid -> sender, from dequeue to the wire
    // FQ-CoDel: per sender, arrivals and the arrivals that made its flow a new flow (it was in
    // neither list: status NEW with a whole quantum and this packet alone in its queue).
    std::map<uint32_t, std::pair<uint64_t, uint64_t>> fqNewBySource;
    // Per sender, every arrival of the run (validation/dctcp_phase.py): [arrivals, marked, Σ
    // packets waiting ahead], and where the arrival came after the device's last transmission
    // start, modulo `phasePeriodNs`, in 10 µs bins.
    std::map<uint32_t, std::array<uint64_t, 3>> arrivalsBySource;
    std::map<uint32_t, std::map<uint32_t, uint64_t>> phaseBySource;
    // Per sender and packets waiting ahead (disc + device): [arrivals, marked, Σ device queue],
    // to set each flow's marks beside the queue it found (validation/dctcp_phase.py --near-k);
    // and per sender the offsets after the last transmission start in 1 µs bins, with the
    // arrivals handled at the very nanosecond of a transmission start (after it, same instant).
    std::map<uint32_t, std::map<uint32_t, std::array<uint64_t, 3>>> waitingBySource;
    std::map<uint32_t, std::map<uint32_t, uint64_t>> phaseUsBySource;
    std::map<uint32_t, uint64_t> sameInstantBySource;
    // Per sender: [arrivals after another sender's arrival in the same packet time (since the
    // last transmission start), the marked ones among them]; the senders arrived since then.
    std::map<uint32_t, std::array<uint64_t, 2>> afterOtherBySource;
    std::vector<uint32_t> arrivedSinceTx;
    int64_t lastTxBeginNs = -1;
    int64_t phasePeriodNs = 121000; // one 1500-byte packet at 100 Mb/s
};

inline AqmDelays g_aqmDelays;
// `--delayFrom`: the delays of the packets that entered the queue at or after this many seconds
// are also summarized apart (`queue_delay_after`; validation/aqm_after.py), so that a run's
// start-up and the rest can be compared.
inline double g_aqmDelayFrom = -1.0;
inline std::vector<double> g_aqmDelaysAfter;
// `--delayLog`: a CSV file of those packets, one line each: sender, enqueue time (s), delay (s).
inline std::string g_aqmDelayLog;
inline std::ofstream g_aqmDelayLogFile;

inline void
AqmOnDequeue(ns3::Ptr<const ns3::QueueDiscItem> item)
{
    if (auto ip = ns3::DynamicCast<const ns3::Ipv4QueueDiscItem>(item))
    {
        auto& per = g_aqmDelays.sojournBySource[ip->GetHeader().GetSource().Get()];
        per.first++;
        per.second += (ns3::Simulator::Now() - item->GetTimeStamp()).GetSeconds();
        g_aqmDelays.sourceOf[item->GetPacket()->GetUid()] = ip->GetHeader().GetSource().Get();
    }
    g_aqmDelays.pending[item->GetPacket()->GetUid()] = {item->GetTimeStamp().GetNanoSeconds(),
                                                        ns3::Simulator::Now().GetNanoSeconds()};
}

inline void
AqmOnDrop(ns3::Ptr<const ns3::QueueDiscItem> item)
{
    if (auto ip = ns3::DynamicCast<const ns3::Ipv4QueueDiscItem>(item))
    {
        uint32_t src = ip->GetHeader().GetSource().Get();
        g_aqmDelays.dropsBySource[src]++;
        double now = ns3::Simulator::Now().GetSeconds();
        if (g_aqmDelayFrom >= 0 && now >= g_aqmDelayFrom)
        {
            g_aqmDelays.dropTimesBySource[src].push_back(now);
        }
    }
    g_aqmDelays.pending.erase(item->GetPacket()->GetUid());
}

inline void
AqmOnTxBegin(ns3::Ptr<const ns3::Packet> p)
{
    auto it = g_aqmDelays.pending.find(p->GetUid());
    if (it == g_aqmDelays.pending.end())
    {
        return;
    }
    auto [enq, deq] = it->second;
    g_aqmDelays.qdisc.push_back((deq - enq) * 1e-9);
    g_aqmDelays.line.push_back((ns3::Simulator::Now().GetNanoSeconds() - enq) * 1e-9);
    if (g_aqmDelayFrom >= 0 && enq >= static_cast<int64_t>(g_aqmDelayFrom * 1e9))
    {
        g_aqmDelaysAfter.push_back(g_aqmDelays.line.back());
        auto src = g_aqmDelays.sourceOf.find(p->GetUid());
        if (src != g_aqmDelays.sourceOf.end())
        {
            g_aqmDelays.afterBySource[src->second].push_back(g_aqmDelays.line.back());
            if (!g_aqmDelayLog.empty())
            {
                if (!g_aqmDelayLogFile.is_open())
                {
                    g_aqmDelayLogFile.open(g_aqmDelayLog);
                    g_aqmDelayLogFile.precision(10);
                }
                g_aqmDelayLogFile << ns3::Ipv4Address(src->second) << "," << enq * 1e-9 << ","
                                  << g_aqmDelays.line.back() << "\n";
            }
        }
    }
    g_aqmDelays.sourceOf.erase(p->GetUid());
    g_aqmDelays.pending.erase(it);
}

inline void
HookAqm(ns3::Ptr<ns3::QueueDisc> qd, ns3::Ptr<ns3::NetDevice> dev)
{
    // Per arrival, the packets waiting ahead of it: the queue disc's (without the arrival, which
    // the "Enqueue" trace already counts) plus the device queue's, to compare with rexmit's
    // queue length at arrival (which holds both: its line takes a packet only when free).
    auto devq = ns3::DynamicCast<ns3::PointToPointNetDevice>(dev)->GetQueue();
    qd->TraceConnectWithoutContext(
        "Enqueue",
        ns3::MakeCallback(+[](ns3::QueueDisc* q, ns3::Queue<ns3::Packet>* d, ns3::Ptr<const ns3::QueueDiscItem> item) {
            uint32_t waiting = q->GetNPackets() - 1 + d->GetNPackets();
            auto& g = g_aqmDelays;
            g.waitingAtArrival[waiting]++;
            if (auto ip = ns3::DynamicCast<const ns3::Ipv4QueueDiscItem>(item); ip && g.lastTxBeginNs >= 0)
            {
                uint32_t src = ip->GetHeader().GetSource().Get();
                auto& a = g.arrivalsBySource[src];
                a[0]++;
                a[1] += g.arrivalMarked;
                a[2] += waiting;
                int64_t since = ns3::Simulator::Now().GetNanoSeconds() - g.lastTxBeginNs;
                g.phaseBySource[src][static_cast<uint32_t>((since % g.phasePeriodNs) / 10000)]++;
                g.phaseUsBySource[src][static_cast<uint32_t>((since % g.phasePeriodNs) / 1000)]++;
                g.sameInstantBySource[src] += since == 0;
                auto& w = g.waitingBySource[src][waiting];
                w[0]++;
                w[1] += g.arrivalMarked;
                w[2] += d->GetNPackets();
                bool other = std::any_of(g.arrivedSinceTx.begin(), g.arrivedSinceTx.end(),
                                         [src](uint32_t a) { return a != src; });
                g.afterOtherBySource[src][0] += other;
                g.afterOtherBySource[src][1] += other && g.arrivalMarked;
                g.arrivedSinceTx.push_back(src);
            }
            if (g.arrivalMarked)
            {
                g.markedByWaiting[waiting]++;
                g.arrivalMarked = false;
            }
            int64_t now = ns3::Simulator::Now().GetNanoSeconds();
            if (g.lastArrivalNs >= 0)
            {
                g.gapsUs[static_cast<uint32_t>(std::min<int64_t>((now - g.lastArrivalNs) / 1000, 100000))]++;
            }
            g.lastArrivalNs = now;
        }).Bind(ns3::PeekPointer(qd), ns3::PeekPointer(devq)));
    // RED marks in DoEnqueue, before the packet reaches its internal queue ("Enqueue" above);
    // `marked_by_waiting` means something for `step` only (CoDel's and FQ-CoDel's marks, made
    // at dequeue, would land on the next arrival).
    qd->TraceConnectWithoutContext(
        "Mark",
        ns3::MakeCallback(+[](ns3::Ptr<const ns3::QueueDiscItem>, const char*) { g_aqmDelays.arrivalMarked = true; }));
    dev->TraceConnectWithoutContext("PhyTxBegin", ns3::MakeCallback(+[](ns3::Ptr<const ns3::Packet>) {
        g_aqmDelays.lastTxBeginNs = ns3::Simulator::Now().GetNanoSeconds();
        g_aqmDelays.arrivedSinceTx.clear();
    }));
    // The ACKs coming back over the bottleneck: how many new segments each pure ACK covers.
    dev->TraceConnectWithoutContext("MacRx", ns3::MakeCallback(+[](ns3::Ptr<const ns3::Packet> p) {
        ns3::Ptr<ns3::Packet> c = p->Copy();
        ns3::PppHeader ppp;
        ns3::Ipv4Header ip;
        ns3::TcpHeader tcp;
        c->RemoveHeader(ppp);
        c->RemoveHeader(ip);
        if (ip.GetProtocol() != 6)
        {
            return;
        }
        c->RemoveHeader(tcp);
        if (c->GetSize() != 0 || !(tcp.GetFlags() & ns3::TcpHeader::ACK))
        {
            return;
        }
        auto key = std::make_pair(ip.GetSource().Get(), tcp.GetSourcePort());
        uint32_t ack = tcp.GetAckNumber().GetValue();
        auto& last = g_aqmDelays.lastAck;
        auto it = last.find(key);
        if (it != last.end())
        {
            uint32_t fresh = ack - it->second;
            g_aqmDelays.ackSegments[fresh < (1u << 31) ? fresh / 1448 : 0]++;
            if (fresh < (1u << 31))
            {
                it->second = ack;
                bool ece = tcp.GetFlags() & ns3::TcpHeader::ECE;
                auto& per = g_aqmDelays.ackedByReceiver[ip.GetSource().Get()];
                g_aqmDelays.ackedBytes += fresh;
                per.first += fresh;
                if (ece)
                {
                    g_aqmDelays.eceAckedBytes += fresh;
                    per.second += fresh;
                }
            }
        }
        else
        {
            last[key] = ack;
        }
    }));
    if (auto fq = ns3::DynamicCast<ns3::FqCoDelQueueDisc>(qd))
    {
        // The flow's bucket as FqCoDelQueueDisc::DoEnqueue computes it (no packet filters).
        ns3::UintegerValue pert;
        ns3::UintegerValue flows;
        fq->GetAttribute("Perturbation", pert);
        fq->GetAttribute("Flows", flows);
        qd->TraceConnectWithoutContext(
            "Enqueue",
            ns3::MakeCallback(+[](ns3::FqCoDelQueueDisc* q, uint32_t pert, uint32_t nFlows,
                                  ns3::Ptr<const ns3::QueueDiscItem> item) {
                auto ip = ns3::DynamicCast<const ns3::Ipv4QueueDiscItem>(item);
                if (!ip)
                {
                    return;
                }
                uint32_t h = item->Hash(pert) % nFlows;
                auto& per = g_aqmDelays.fqNewBySource[ip->GetHeader().GetSource().Get()];
                per.first++;
                for (size_t i = 0; i < q->GetNQueueDiscClasses(); i++)
                {
                    auto f = ns3::StaticCast<ns3::FqCoDelFlow>(q->GetQueueDiscClass(i));
                    if (f->GetIndex() == h)
                    {
                        per.second += f->GetStatus() == ns3::FqCoDelFlow::NEW_FLOW &&
                                      f->GetDeficit() == static_cast<int32_t>(q->GetQuantum()) &&
                                      f->GetQueueDisc()->GetNPackets() == 1;
                    }
                }
            }).Bind(ns3::PeekPointer(fq), static_cast<uint32_t>(pert.Get()), static_cast<uint32_t>(flows.Get())));
    }
    qd->TraceConnectWithoutContext("Dequeue", ns3::MakeCallback(&AqmOnDequeue));
    qd->TraceConnectWithoutContext("Drop", ns3::MakeCallback(&AqmOnDrop));
    dev->TraceConnectWithoutContext("PhyTxBegin", ns3::MakeCallback(&AqmOnTxBegin));
}

// Mean and nearest-rank 99th percentile.
inline std::pair<double, double>
MeanP99(std::vector<double> v)
{
    if (v.empty())
    {
        return {0.0, 0.0};
    }
    double sum = 0;
    for (double x : v)
    {
        sum += x;
    }
    size_t rank = static_cast<size_t>(std::ceil(0.99 * v.size()));
    std::nth_element(v.begin(), v.begin() + (rank - 1), v.end());
    return {sum / v.size(), v[rank - 1]};
}

// The JSON object of the queue disc's counters and the delays.
inline std::string
AqmJson(ns3::Ptr<ns3::QueueDisc> qd)
{
    const auto& st = qd->GetStats();
    std::ostringstream o;
    o.precision(10);
    auto reasons = [&o](const std::map<std::string, uint32_t, std::less<>>& m) {
        o << "{";
        bool first = true;
        for (const auto& [why, n] : m)
        {
            o << (first ? "" : ", ") << "\"" << why << "\": " << n;
            first = false;
        }
        o << "}";
    };
    auto [qMean, qP99] = MeanP99(g_aqmDelays.qdisc);
    auto [lMean, lP99] = MeanP99(g_aqmDelays.line);
    o << "{\"received\": " << st.nTotalReceivedPackets << ", \"sent\": " << st.nTotalSentPackets
      << ", \"dropped_before_enqueue\": ";
    reasons(st.nDroppedPacketsBeforeEnqueue);
    o << ", \"dropped_after_dequeue\": ";
    reasons(st.nDroppedPacketsAfterDequeue);
    o << ", \"marked\": " << st.nTotalMarkedPackets << ", \"delay_samples\": " << g_aqmDelays.line.size()
      << ", \"qdisc_sojourn_mean_s\": " << qMean << ", \"qdisc_sojourn_p99_s\": " << qP99
      << ", \"queue_delay_mean_s\": " << lMean << ", \"queue_delay_p99_s\": " << lP99;
    if (g_aqmDelayFrom >= 0)
    {
        auto [aMean, aP99] = MeanP99(g_aqmDelaysAfter);
        o << ", \"queue_delay_after\": {\"from_s\": " << g_aqmDelayFrom << ", \"samples\": "
          << g_aqmDelaysAfter.size() << ", \"mean_s\": " << aMean << ", \"p99_s\": " << aP99
          << ", \"by_source\": {";
        bool firstSrc = true;
        for (const auto& [addr, v] : g_aqmDelays.afterBySource)
        {
            auto [sMean, sP99] = MeanP99(v);
            o << (firstSrc ? "" : ", ") << "\"" << ns3::Ipv4Address(addr) << "\": {\"samples\": " << v.size()
              << ", \"mean_s\": " << sMean << ", \"p99_s\": " << sP99 << ", \"drop_times_s\": [";
            const auto& d = g_aqmDelays.dropTimesBySource[addr];
            for (size_t i = 0; i < d.size(); i++)
            {
                o << (i ? ", " : "") << d[i];
            }
            o << "]}";
            firstSrc = false;
        }
        o << "}}";
    }
    o
      << ", \"waiting_at_arrival\": ";
    auto bins = [&o](const std::map<uint32_t, uint64_t>& m) {
        o << "{";
        bool first = true;
        for (auto [n, count] : m)
        {
            o << (first ? "" : ", ") << "\"" << n << "\": " << count;
            first = false;
        }
        o << "}";
    };
    bins(g_aqmDelays.waitingAtArrival);
    o << ", \"marked_by_waiting\": ";
    bins(g_aqmDelays.markedByWaiting);
    o << ", \"arrival_gaps_us\": ";
    bins(g_aqmDelays.gapsUs);
    o << ", \"ack_segments\": ";
    bins(g_aqmDelays.ackSegments);
    o << ", \"acked_bytes\": " << g_aqmDelays.ackedBytes << ", \"ece_acked_bytes\": " << g_aqmDelays.eceAckedBytes
      << ", \"sojourn_by_source\": {";
    bool firstSrc = true;
    for (const auto& [addr, ns] : g_aqmDelays.sojournBySource)
    {
        o << (firstSrc ? "" : ", ") << "\"" << ns3::Ipv4Address(addr) << "\": [" << ns.first << ", "
          << (ns.first ? ns.second / ns.first : 0.0) << ", " << g_aqmDelays.dropsBySource[addr] << "]";
        firstSrc = false;
    }
    o << "}, \"fq_new_by_source\": {";
    firstSrc = true;
    for (const auto& [addr, an] : g_aqmDelays.fqNewBySource)
    {
        o << (firstSrc ? "" : ", ") << "\"" << ns3::Ipv4Address(addr) << "\": [" << an.first << ", " << an.second << "]";
        firstSrc = false;
    }
    o << "}, \"phase_by_source\": {";
    firstSrc = true;
    for (const auto& [addr, a] : g_aqmDelays.arrivalsBySource)
    {
        o << (firstSrc ? "" : ", ") << "\"" << ns3::Ipv4Address(addr) << "\": {\"arrivals\": " << a[0]
          << ", \"marked\": " << a[1] << ", \"waiting_sum\": " << a[2] << ", \"bins_10us\": ";
        bins(g_aqmDelays.phaseBySource[addr]);
        o << ", \"bins_1us\": ";
        bins(g_aqmDelays.phaseUsBySource[addr]);
        const auto& ao = g_aqmDelays.afterOtherBySource[addr];
        o << ", \"same_instant\": " << g_aqmDelays.sameInstantBySource[addr] << ", \"after_other\": [" << ao[0]
          << ", " << ao[1] << "], \"by_waiting\": {";
        bool firstW = true;
        for (const auto& [n, w] : g_aqmDelays.waitingBySource[addr])
        {
            o << (firstW ? "" : ", ") << "\"" << n << "\": [" << w[0] << ", " << w[1] << ", " << w[2] << "]";
            firstW = false;
        }
        o << "}}";
        firstSrc = false;
    }
    o << "}, \"ece_acked_fraction_by_receiver\": [";
    bool firstRx = true;
    for (const auto& [addr, ab] : g_aqmDelays.ackedByReceiver)
    {
        o << (firstRx ? "" : ", ") << (ab.first ? double(ab.second) / ab.first : 0.0);
        firstRx = false;
    }
    o << "]}";
    return o.str();
}
