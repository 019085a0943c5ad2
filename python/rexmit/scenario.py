"""Building scenarios from Python.

A :class:`Scenario` is a plain dictionary with the same keys as a TOML scenario file; the
methods below are conveniences that add entries. Validation happens in Rust (one schema for
files and Python): :meth:`Scenario.validate` raises :class:`rexmit.ScenarioError` naming the
offending key.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path
from typing import Any

from rexmit import _core


class Scenario:
    """A simulation scenario (topology, links, error models, apps, metrics, stop time, seed)."""

    def __init__(self, stop_time: str, seed: int = 1, description: str | None = None) -> None:
        self.data: dict[str, Any] = {"stop_time": stop_time, "seed": seed}
        if description is not None:
            self.data["description"] = description

    # --- loading and saving -------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Scenario:
        s = cls.__new__(cls)
        s.data = copy.deepcopy(data)
        return s

    @classmethod
    def from_toml(cls, text: str) -> Scenario:
        """Parse TOML text; raises ScenarioError if it is not a valid scenario."""
        normalized = _core.validate(text, "toml")
        return cls.from_dict(json.loads(normalized))

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        return cls.from_toml(read_text_file(path, "scenario"))

    def to_json(self) -> str:
        return json.dumps(self.data)

    def to_toml(self) -> str:
        """The scenario as a TOML file (validated)."""
        return _core.convert(self.to_json(), "json", "toml")

    def to_toml_with_defaults(self) -> str:
        """The scenario as TOML with every default written out: each TCP and SCTP app's
        settings as its core runs them (mss, initial window, RTO, dup_thresh, SACK, timestamps,
        ...) and the guards' defaults. It runs the same; to vary a ``profile`` later, edit the
        scenario as written instead, whose unset fields follow the profile."""
        return _core.with_defaults(self.to_json(), "json", "toml")

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_toml(), encoding="utf-8")

    def validate(self) -> Scenario:
        """Check the scenario completely (schema, ranges, names, routes). Returns self."""
        _core.validate(self.to_json(), "json")
        return self

    def copy(self) -> Scenario:
        return Scenario.from_dict(self.data)

    def set(self, dotted_key: str, value: Any) -> Scenario:
        """Set a value by key path, e.g. ``s.set("topology.bottleneck.rate", "8Mbps")`` or
        ``s.set("apps[0].rate", "2Mbps")``. Intermediate tables must exist."""
        parts = _split_path(dotted_key)
        target: Any = self.data
        for p in parts[:-1]:
            target = target[p]
        target[parts[-1]] = value
        return self

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self.data == other.data

    def __repr__(self) -> str:
        return f"Scenario({self.data!r})"

    # --- topology -----------------------------------------------------------------------
    def chain(self, nodes: list[str], links: list[dict[str, Any]]) -> Scenario:
        self.data["topology"] = {"kind": "chain", "nodes": list(nodes), "links": list(links)}
        return self

    def dumbbell(
        self,
        bottleneck: dict[str, Any],
        left: list[dict[str, Any]],
        right: list[dict[str, Any]],
        left_router: str = "R1",
        right_router: str = "R2",
    ) -> Scenario:
        self.data["topology"] = {
            "kind": "dumbbell",
            "left_router": left_router,
            "right_router": right_router,
            "bottleneck": bottleneck,
            "left": list(left),
            "right": list(right),
        }
        return self

    def dual_dumbbell(self, paths: list[dict[str, Any]], multihomed: list[dict[str, Any]]) -> Scenario:
        self.data["topology"] = {"kind": "dual_dumbbell", "paths": list(paths), "multihomed": list(multihomed)}
        return self

    def node(self, name: str, forward: bool | None = None) -> Scenario:
        entry: dict[str, Any] = {"name": name}
        if forward is not None:
            entry["forward"] = forward
        self.data.setdefault("nodes", []).append(entry)
        return self

    def link(self, a: str, b: str, rate: str, delay: str, **props: Any) -> Scenario:
        """Add a duplex link; ``props`` may hold queue, errors and reorder."""
        self.data.setdefault("links", []).append({"between": [a, b], "rate": rate, "delay": delay, **props})
        return self

    # --- applications and metrics -------------------------------------------------------
    def app(self, name: str, kind: str, src: str, dst: str, **params: Any) -> Scenario:
        self.data.setdefault("apps", []).append({"name": name, "kind": kind, "from": src, "to": dst, **params})
        return self

    def udp_cbr(self, name: str, src: str, dst: str, rate: str, packet_size: int, **params: Any) -> Scenario:
        return self.app(name, "udp_cbr", src, dst, rate=rate, packet_size=packet_size, **params)

    def timeseries(self, kind: str, interval: str, **params: Any) -> Scenario:
        metrics = self.data.setdefault("metrics", {})
        metrics.setdefault("timeseries", []).append({"kind": kind, "interval": interval, **params})
        return self

    def trace(self, flow: str, t_from: str | None = None, t_to: str | None = None) -> Scenario:
        """Record a TCP or SCTP flow's events for ``rexmit plot`` (``[[metrics.trace]]``), from
        ``t_from`` to ``t_to`` (durations like ``"2s"``; default the whole run)."""
        entry = {k: v for k, v in (("flow", flow), ("from", t_from), ("to", t_to)) if v is not None}
        self.data.setdefault("metrics", {}).setdefault("trace", []).append(entry)
        return self

    def pcap(self, link: str | None = None, node: str | None = None) -> Scenario:
        entry = {k: v for k, v in (("link", link), ("node", node)) if v is not None}
        self.data.setdefault("metrics", {}).setdefault("pcap", []).append(entry)
        return self

    # --- emulation ----------------------------------------------------------------------
    def real_hosts(self, *names: str, max_lateness: str | None = None) -> Scenario:
        """Mark hosts real for :func:`rexmit.emulate` (Linux TCP in network namespaces);
        :func:`rexmit.run` still simulates them."""
        emu: dict[str, Any] = {"real_hosts": list(names)}
        if max_lateness is not None:
            emu["max_lateness"] = max_lateness
        self.data["emulation"] = emu
        return self


class InputFileError(ValueError):
    """An input file cannot be read as text (missing, a directory, not UTF-8)."""


def read_text_file(path: str | Path, what: str) -> str:
    """The UTF-8 text of a scenario or sweep file, or InputFileError saying why not in one line."""
    p = Path(path)
    if not p.exists():
        raise InputFileError(f"{path}: no such {what} file")
    if not p.is_file():
        raise InputFileError(f"{path}: not a file (a {what} file is TOML text)")
    data = p.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        kind = (
            "gzip-compressed"
            if data[:2] == b"\x1f\x8b"
            else "UTF-16"
            if data[:2] in (b"\xff\xfe", b"\xfe\xff")
            else "binary or not UTF-8"
        )
        raise InputFileError(
            f"{path}: not a {what} file: the {what} must be UTF-8 TOML text, this looks {kind} (byte 0x{data[e.start]:02x} at offset {e.start})"
        ) from None


_KEY_PART = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[[0-9]+\])*)")


def _split_path(path: str) -> list[Any]:
    """``"apps[0].rate"`` -> ``["apps", 0, "rate"]``; anything else (``apps[-1].rate``,
    ``apps[0]..rate``, ``apps[x]``) raises KeyError naming the path."""
    out: list[Any] = []
    for part in path.split("."):
        m = _KEY_PART.fullmatch(part)
        if m is None:
            raise KeyError(
                f'{path!r} is not a key path: write names joined by dots with list indexes >= 0, e.g. "apps[0].rate"'
            )
        out.append(m.group(1))
        out.extend(int(i) for i in re.findall(r"\[([0-9]+)\]", m.group(2)))
    return out


def parse_toml_loosely(text: str) -> dict[str, Any]:
    """Parse TOML without validating it (for tools that edit scenario files); ValueError when it
    is not TOML."""
    # Imported here: a scenario is parsed in Rust, and most processes never need tomllib.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except RecursionError:
        # tomllib descends one Python call per nested array or inline table: a few hundred levels
        # exhaust the interpreter's stack (the Rust reader of scenarios has a limit of its own).
        raise ValueError(
            "arrays or inline tables nested too deeply (more levels than the TOML reader follows)"
        ) from None
