#!/usr/bin/env bash
# Install the peer simulators used by validation/ (issue 7): ns-2.35 from Debian's `ns2` package and
# ns-3.44 from PyPI's `ns3` wheel (into the project's venv), and build the C++ ns-3 scenario
# (validation/build/). Idempotent: re-running only checks (a few seconds). Called by `make test`,
# `make validate` and `make bench`; as root or through sudo for apt-get.
#   usage: bash scripts/install_peers.sh            (VENV=.venv by default; CHECK_BINDINGS=1 also
#          imports ns-3's Python bindings, ~16 s, which a fresh install always does)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}
NS3_SPEC=${NS3_SPEC:-"ns3==3.44.*"}   # PyPI serves 3.44.post0; a bare ==3.44 does not match a .postN
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

# --- ns-2 (Debian) --------------------------------------------------------------------------------
if ! dpkg -s ns2 >/dev/null 2>&1; then
  echo "install_peers: installing Debian package ns2" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends ns2 >/dev/null
fi
NS2_VERSION=$(dpkg-query -W -f='${Version}' ns2)
command -v ns >/dev/null || { echo "install_peers: ns2 installed but 'ns' not on PATH" >&2; exit 1; }
# ns-2 has no --version flag; its Tcl answers [ns-version].
NS2_REPORTED=$(printf 'puts [ns-version]\nexit 0\n' > /tmp/.ns2v.$$.tcl; ns /tmp/.ns2v.$$.tcl; rm -f /tmp/.ns2v.$$.tcl)

# validation/ns3_tcp.py compiles its C++ scenario against the wheel's headers with g++.
if ! command -v g++ >/dev/null; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends g++ >/dev/null
fi

# --- ns-3 (PyPI wheel, into the venv) ---------------------------------------------------------------
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
if ! "$VENV/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(0 if m.version("ns3").startswith("3.44") else 1)' 2>/dev/null; then
  echo "install_peers: installing $NS3_SPEC into $VENV" >&2
  "$VENV/bin/pip" install -q "$NS3_SPEC"
  CHECK_BINDINGS=1
fi
NS3_VERSION=$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("ns3"))')

if [ "${CHECK_BINDINGS:-0}" = 1 ]; then
# A trivial ns-3 simulation: one event scheduled at 1 s must run and advance the clock.
"$VENV/bin/python" - <<'PY'
from ns import ns
ns.Simulator.Stop(ns.Seconds(1.5))
ns.Simulator.Run()
t = ns.Simulator.Now().GetSeconds()
ns.Simulator.Destroy()
assert abs(t - 1.5) < 1e-9, t
print("install_peers: ns-3 python bindings ok ('from ns import ns'), trivial run ended at t=%.1f s" % t)
PY
fi

# Build (or find up to date) the C++ ns-3 scenario and check that it runs: 1 s of a TCP flow.
"$VENV/bin/python" validation/ns3_tcp.py --duration=1 | "$VENV/bin/python" -c \
  'import json, sys; d = json.load(sys.stdin); assert d["rx_bytes"] > 0, d; print("install_peers: ns-3 scenario ok (validation/build/ns3-tcp-single)")'
# ns-2: a 1 s TCP flow must deliver data.
"$VENV/bin/python" validation/ns2_tcp.py duration=1 | "$VENV/bin/python" -c \
  'import json, sys; d = json.load(sys.stdin); assert d["rx_bytes"] > 0, d; print("install_peers: ns-2 scenario ok")'

echo "ns2 (Debian) $NS2_VERSION, reports $NS2_REPORTED; ns3 (PyPI) $NS3_VERSION in $VENV"
