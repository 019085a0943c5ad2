#!/usr/bin/env bash
# The peer side of issue 7's validation set, run one after another (2 shared cores: no fan-out).
# Results: validation/results/peer_*.json.   usage: bash validation/run_peers.sh [SEEDS] [DURATION]
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=${1:-10}
DUR=${2:-60}
PY=${PY:-.venv/bin/python}
P="$PY validation/peers.py run"
TCP_NS3="ns3-newreno-sack-prr ns3-newreno-sack-classic ns3-newreno-nosack-classic ns3-newreno-nosack-prr ns3-westwoodplus ns3-cubic"
TCP_NS2="ns2-tahoe ns2-reno ns2-newreno ns2-sack1"
for n in $TCP_NS3 $TCP_NS2; do
  $P "$n" --loss drops --drops 100,101,102 --duration 10 --out "validation/results/peer_${n}_drops3.json"
  $P "$n" --loss drops --drops 100 --duration 10 --out "validation/results/peer_${n}_drops1.json"
  $P "$n" --loss uniform --rate 0.01 --seeds "$SEEDS" --duration "$DUR"
  $P "$n" --loss burst --rate 0.001 --seeds "$SEEDS" --duration "$DUR"
done
# Timeline variants with one known peer deviation switched off (docs/validation.md).
for n in ns3-newreno-sack-classic-fs ns3-newreno-sack-classic-rfc ns3-newreno-sack-prr-fs ns2-reno-nobugfix; do
  $P "$n" --loss drops --drops 100,101,102 --duration 10 --out "validation/results/peer_${n}_drops3.json"
  $P "$n" --loss drops --drops 100 --duration 10 --out "validation/results/peer_${n}_drops1.json"
done
# The same segments lost in every simulator (validation/droplists.py), paired per seed. ns-2 resolves
# each segment to a packet ordinal with one traced run per drop (about 7 s per seed).
SAME="ns3-newreno-sack-classic ns3-newreno-sack-prr ns3-newreno-nosack-classic ns3-newreno-sack-classic-rfc"
SAME="$SAME ns3-newreno-sack-classic-aligned ns3-newreno-sack-classic-rfc-aligned ns3-cubic ns2-sack1 ns2-newreno"
for n in $SAME; do
  $P "$n" --loss sameloss --rate 0.01 --seeds "$SEEDS" --duration "$DUR"
done
# The same bursts lost everywhere (droplists.burst_segments: 2..5 consecutive segments, start rate
# 1e-3 per segment): the ns-2 burst-loss gap with the random streams taken out.
for n in ns2-reno ns2-newreno ns2-sack1 ns2-tahoe; do
  $P "$n" --loss sameburst --rate 0.001 --seeds "$SEEDS" --duration "$DUR"
done
for n in ns2-sctp-sack ns2-sctp-nrsack; do
  $P "$n" --loss uniform --rate 0.01 --seeds "$SEEDS" --duration "$DUR"
  $P "$n" --loss uniform --rate 0.001 --seeds "$SEEDS" --duration "$DUR"
done
for n in ns2-cmt-sack ns2-cmt-nrsack ns2-cmt-sack-asym ns2-cmt-nrsack-asym; do
  $P "$n" --loss uniform --rate 0.02 --rate2 0.001 --seeds "$SEEDS" --duration "$DUR"
done
