// TCP attribute defaults shared by rexmit's ns-3 peer scenarios (written for rexmit's
// validation). Included by ns3_tcp_single.cc and ns3_tcp_multi.cc after the ns-3 headers.
#pragma once

#include <map>
#include <string>

#include "ns3_prr_variants.h"

// ns-3.44's congestion controls that rexmit also has (issue 37), by rexmit's `cc` names; each
// runs with ns-3's default attributes, which rexmit's cc_params defaults follow.
inline void
AddControllerTypes(std::map<std::string, std::string>& types)
{
    types.insert({{"vegas", "ns3::TcpVegas"},
                  {"veno", "ns3::TcpVeno"},
                  {"illinois", "ns3::TcpIllinois"},
                  {"htcp", "ns3::TcpHtcp"},
                  {"hybla", "ns3::TcpHybla"},
                  {"yeah", "ns3::TcpYeah"},
                  {"bic", "ns3::TcpBic"},
                  {"lp", "ns3::TcpLp"},
                  {"ledbat", "ns3::TcpLedbat"}});
}

struct TcpKnobs
{
    std::string recovery = "prr"; // classic | prr | prr-rfc (ns3_prr_variants.h)
    bool sack = true;
    bool timestamps = true;
    double minRto = 1.0;
    bool limitedTransmit = true;
    uint32_t segSize = 1448;
    uint32_t initCwnd = 10;
    uint32_t delAckCount = 2;
    double delAckTimeout = 0.2;
    uint32_t sndBuf = 1 << 20;
    uint32_t rcvBuf = 1 << 20;
};

inline bool
IsRecovery(const std::string& name)
{
    return name == "classic" || name == "prr" || name == "prr-rfc";
}

// Set the TcpL4Protocol/TcpSocketBase/TcpSocket defaults every socket created later inherits.
inline void
SetTcpDefaults(const TcpKnobs& k)
{
    using namespace ns3;
    const char* recovery = k.recovery == "prr"       ? "ns3::TcpPrrRecovery"
                           : k.recovery == "prr-rfc" ? "rexmit::PrrRfc"
                                                     : "ns3::TcpClassicRecovery";
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TypeId::LookupByName(recovery)));
    Config::SetDefault("rexmit::PrrRfc::Sack", BooleanValue(k.sack));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(k.sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(k.timestamps));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(k.minRto)));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(k.limitedTransmit));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(k.segSize));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(k.initCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(k.delAckCount));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(Seconds(k.delAckTimeout)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(k.sndBuf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(k.rcvBuf));
}
