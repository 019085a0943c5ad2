# rexmit: the two set-up commands are `make demo` and `make test` (see README).
SHELL := /bin/bash
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
export VIRTUAL_ENV := $(abspath $(VENV))
export CARGO_TERM_COLOR ?= never

.PHONY: demo test lint bench validate validate-linux validate-usrsctp fuzz install dev-deps tshark chromium peers emulation-deps usrsctp-deps test-rust test-python reproduce-all clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# Build the Rust extension in release mode and install the package (editable) into the venv.
# With profile-guided optimisation (scripts/pgo.sh, issue 40) when rustc's llvm-profdata is there,
# in its own target directory; PGO=0 builds without it. Results are the same either way.
PGO ?= 1
export PGO
install: $(BIN)/python
	$(BIN)/pip install -q "maturin>=1.5,<2" "pyarrow>=12" "tqdm>=4.60" "matplotlib>=3.6" "dask[distributed]>=2023.1" "plotly>=5.15"
	bash scripts/pgo.sh
	. scripts/pgo_env.sh && $(BIN)/maturin develop --release -q

# Seed 000's NR-SACK experiments, reduced (about a minute on 2 cores).
demo: install
	$(BIN)/rexmit reproduce nr-sack --quick --out results/nr-sack-quick
	@echo
	@echo "Report: $(abspath results/nr-sack-quick/index.html) (claims.json beside it; sctp/ and cmt/ hold the sweeps and their report.html)"

dev-deps: install tshark chromium peers usrsctp-deps
	$(BIN)/pip install -q "pytest>=7" "hypothesis>=6" "mypy>=1.8" "pandas>=1.5" "polars>=0.20" "duckdb>=0.9" "ruff>=0.17,<0.18" "pytest-xdist>=3.2"

# The peer simulators of the cross-validation (issue 7): ns-2.35 from Debian's ns2 package, ns-3.44
# from PyPI into the venv, and the C++ ns-3 scenario built against it. Idempotent.
peers: install
	VENV=$(VENV) PYTHON=$(PYTHON) bash scripts/install_peers.sh

# tshark decodes the pcaps rexmit writes (the wire-format check); installed from Debian's packages.
tshark:
	@command -v tshark >/dev/null || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  echo "wireshark-common wireshark-common/install-setuid boolean false" | $$SUDO debconf-set-selections && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq tshark >/dev/null; }
	@tshark --version | head -1

# usrsctp (FreeBSD's SCTP stack as a userland library, issue 39) runs as simulation agents in
# crates/rexmit-usrsctp, loaded at run time (nothing links against it); installed from Debian's
# packages. REXMIT_REQUIRE_USRSCTP=1 makes its absence a test failure instead of a skip.
usrsctp-deps:
	@/sbin/ldconfig -p | grep -q 'libusrsctp\.so\.2 ' || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq libusrsctp-dev >/dev/null; }
	@/sbin/ldconfig -p | grep 'libusrsctp\.so\.2 ' | head -1

# Headless Chromium opens the interactive plots (`rexmit plot --format html`) in the browser test
# (tests/python/test_plot_browser.py); installed from Debian's packages.
chromium:
	@command -v chromium >/dev/null || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }
	@chromium --version | head -1

# Emulation (real Linux TCP in network namespaces, issue 14) needs root and /dev/net/tun, which the
# project's machines have: REXMIT_REQUIRE_EMULATION=1 makes their absence a failure, not a skip.
emulation-deps:
	@command -v ip >/dev/null || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq iproute2 >/dev/null; }

test-rust: tshark emulation-deps usrsctp-deps
	REXMIT_REQUIRE_TSHARK=1 REXMIT_REQUIRE_EMULATION=1 REXMIT_REQUIRE_USRSCTP=1 cargo test --workspace --quiet

# pytest exits 5 when it collects nothing: that is a failure here (the suite must not vanish).
# The reduced cross-validation (tests/python/test_validation_peers.py) runs against the installed
# peers; REXMIT_REQUIRE_PEERS=1 makes a missing peer a failure instead of a skip.
# Two passes: every test not marked `realtime` on all CPUs (pytest-xdist; PYTEST_JOBS=0 runs them
# in one process), then the real-time emulation tests alone, so that no other test shares their
# CPU. Either pass collecting nothing is a failure too.
PYTEST_JOBS ?= auto
REQUIRE := REXMIT_REQUIRE_TSHARK=1 REXMIT_REQUIRE_PEERS=1 REXMIT_REQUIRE_EMULATION=1 REXMIT_REQUIRE_BROWSER=1 REXMIT_REQUIRE_USRSCTP=1
test-python: dev-deps emulation-deps
	$(REQUIRE) $(BIN)/pytest -q -n $(PYTEST_JOBS) -m "not realtime" --durations=15 tests/python
	$(REQUIRE) $(BIN)/pytest -q -m realtime --durations=5 tests/python

# Code checks (issue 16): formatting, no import circles between a crate's modules nor between the
# Python package's modules, clippy with warnings as errors, the type stub of the compiled module
# against the module itself, the Python package's types (mypy), and ruff's lint rules and format
# on every Python file (settings in pyproject.toml; dev-deps pins ruff to one minor version, as its
# formatting may change between them).
lint: dev-deps
	cargo fmt --all --check
	$(PYTHON) scripts/import_cycles.py
	cargo clippy --workspace --all-targets -q -- -D warnings
	cd python && ../$(BIN)/python -m mypy.stubtest rexmit._core
	cd python && ../$(BIN)/python -m mypy rexmit
	$(BIN)/ruff check
	$(BIN)/ruff format --check

test: lint test-rust test-python

# Every seed paper's reproduction in full, one after another, then docs/reproductions.md
# (scripts/reproduce_all.sh; wall times in docs/reproductions.md).
reproduce-all: install
	VENV=$(VENV) bash scripts/reproduce_all.sh

# Rust benchmarks, then rexmit against ns-2 and ns-3 on the same single-flow scenarios
# (validation/bench_peers.py), then the whole `rexmit run` process against `ns` on short runs:
# tables on stdout, JSON in bench-results/.
bench: install peers
	VENV=$(VENV) bash scripts/bench.sh

# Coverage-guided fuzzing of the wire decoders and the TCP/SCTP cores (cargo-fuzz, libFuzzer),
# FUZZ_SECONDS per target. The committed corpus is also replayed by `make test`.
FUZZ_SECONDS ?= 60

fuzz:
	cargo fuzz --version >/dev/null 2>&1 || cargo install cargo-fuzz --locked
	bash scripts/fuzz.sh $(FUZZ_SECONDS)

# Cross-validation against ns-2 and ns-3 (installs them; about 2 hours on 2 cores): runs every peer
# scenario (validation/run_peers.sh), then rexmit on the same ones, and writes
# docs/validation_tables.md; then the competing-flow scenarios in both simulators
# (validation/multiflow.py, docs/validation_multiflow.md); then the active queues against ns-3's
# queue discs (validation/aqm.py, docs/validation_aqm.md; DCTCP with step marking against ns-3's
# TcpDctcp, validation/dctcp.py, in the same file) and issue 37's controllers against
# ns-3's (validation/controllers.py, docs/validation_controllers.md). Tables explained in
# docs/validation.md, docs/validation_queues.md (active queues, DCTCP) and docs/validation_cc.md
# (controllers). Then Linux TCP through emulation (validate-linux, below).
validate: peers validate-linux
	PY=$(BIN)/python bash validation/run_peers.sh
	$(BIN)/python validation/compare.py
	$(BIN)/python validation/multiflow.py run all --seeds 20
	$(BIN)/python validation/multiflow.py table
	$(BIN)/python validation/aqm.py run all --seeds 10
	$(BIN)/python validation/aqm.py table
	$(BIN)/python validation/dctcp.py run all --seeds 10
	$(BIN)/python validation/dctcp.py table
	$(BIN)/python validation/controllers.py run --seeds 10
	$(BIN)/python validation/controllers.py table
	$(MAKE) validate-usrsctp

# rexmit's SCTP core (with FreeBSD's choices, and with its RFC 9260 defaults) against FreeBSD's
# SCTP (usrsctp, issue 39) on the ns-2 SCTP scenarios, 10 seeds of 60 s (about 3 minutes):
# validation/results/usrsctp_*.json, docs/validation_usrsctp.md (explained in
# docs/validation_freebsd.md); then seed 000's topologies at the paper's loads, three stacks, 10
# replications of the SCTP points and 3 of the CMT points (about 35 minutes),
# docs/validation_usrsctp_seed000.md (explained in docs/validation_freebsd_seed000.md).
validate-usrsctp: install usrsctp-deps
	$(BIN)/python validation/usrsctp.py run --seeds 10
	$(BIN)/python validation/usrsctp.py repro
	$(BIN)/python validation/usrsctp.py table
	$(BIN)/python validation/usrsctp_seed000.py run --reps 10 --only sctp --fresh
	$(BIN)/python validation/usrsctp_seed000.py run --reps 3 --only cmt
	$(BIN)/python validation/usrsctp_seed000.py table

# Linux TCP as a peer (issue 14): rexmit's linux profile against the kernel's reno, cubic and bbr
# through emulation on the same simulated network, in real time (about 45 minutes: 15 s runs,
# 10 seeds, 5 cases, 3 controllers); tables in docs/validation_linux_tables.md, explained in
# docs/validation_linux.md, which also holds issue 38 §2's behaviours (linux_behaviours.py writes
# them between its markers there).
validate-linux: install emulation-deps
	$(BIN)/python validation/linux.py timelines --fresh
	$(BIN)/python validation/linux.py stats --fresh --seeds 10 --duration 15
	$(BIN)/python validation/linux_behaviours.py --doc docs/validation_linux.md

clean:
	cargo clean
	rm -rf $(VENV) results bench-results
