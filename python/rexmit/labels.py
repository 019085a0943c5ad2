"""Names and units on figures: the one place that turns key paths and metric columns into what a
paper prints.

Owns four rules, used by :mod:`rexmit.report` and the reproduction recipes:

- **axis labels with units**: a metric column (``flow.bulk.goodput_bps``) or a varied key path
  (``topology.links[1].errors[0].rate``) becomes a name and a unit (``Goodput (Mb/s)``,
  ``Burst error rate``); a metric's name and unit are the registry's
  (:data:`rexmit.metric_registry.METRICS`);
- **readable scales**: values in SI units (bit/s, s, B) are shown in the prefix that keeps the
  largest value between 1 and 1000 (Mb/s, ms, MB), or in the unit a sweep file or recipe asks
  for, and matplotlib's ``1e6`` offsets are switched off;
- **legend names as the papers give them**: TCP variants (Tahoe, Reno, NewReno, SACK,
  Westwood+ ...), SACK vs NR-SACK, SCTP vs CMT;
- **a colour-blind-safe palette**: Okabe & Ito's eight colours ("Color Universal Design",
  2008), which stay distinct under the common colour-vision deficiencies.

A sweep file's ``[labels]`` table (docs/sweeps.md) overrides the defaults: :func:`check_labels`
validates it. Not here: drawing (:mod:`rexmit.report`), and the results themselves.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rexmit.metric_registry import METRICS

#: Okabe-Ito, in the order lines take them (yellow last: faint on white).
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]

#: Display units per SI base unit: (unit, factor from the base unit), largest first.
_PREFIXES: dict[str, list[tuple[str, float]]] = {
    "bit/s": [("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3), ("b/s", 1.0)],
    "s": [("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)],
    "B": [("GB", 1e9), ("MB", 1e6), ("kB", 1e3), ("B", 1.0)],
}
#: Units a sweep file or recipe may ask for, with their base unit and factor.
UNITS: dict[str, tuple[str, float]] = {
    **{u: (base, f) for base, units in _PREFIXES.items() for u, f in units},
    "us": ("s", 1e-6),
    "min": ("s", 60.0),
    "KB": ("B", 1e3),
    "KiB": ("B", 1024.0),
    "MiB": ("B", 1024.0**2),
    "GiB": ("B", 1024.0**3),
    "%": ("", 0.01),
    "": ("", 1.0),
}

_ERROR_RATES = {"burst": "Burst error rate", "uniform": "Packet error rate", "gilbert_elliott": "Error rate"}
# Key-path leaves (the last name of a varied key) -> name; "errors[i].rate" is handled apart.
_PARAMS = {
    "rate": "Rate",
    "delay": "One-way link delay",
    "recovery": "Loss recovery",
    "cc": "Congestion control",
    "send_buffer": "Send buffer",
    "recv_buffer": "Receive buffer",
    "nr_sack": "Acknowledgements",
    "packets": "Queue (packets)",
    "bytes": "Queue",
    "mean_delay": "Mean reordering delay",
    "probability": "Reordering probability",
    "enabled": "Enabled",
    "seed": "Seed",
}
# Distributions of message apps: a key ending in interarrival.value, size.mean, ...
_DISTRIBUTIONS = {
    "interarrival": ("Interarrival time", "s"),
    "size": ("Message size", "B"),
    "response_size": ("Response size", "B"),
}
_BOUNDS = {"mean": "Mean", "min": "Smallest", "max": "Largest"}
# Values of a key-path leaf as the papers name them.
_VALUES: dict[str, dict[str, str]] = {
    "recovery": {"tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno", "sack": "SACK"},
    "cc": {
        "reno": "Reno",
        "aimd": "AIMD",
        "scalable": "Scalable TCP",
        "highspeed": "HighSpeed TCP",
        "cubic": "CUBIC",
        "westwood": "Westwood+",
        "bbr": "BBR",
        "vegas": "Vegas",
        "veno": "Veno",
        "illinois": "Illinois",
        "htcp": "H-TCP",
        "hybla": "Hybla",
        "yeah": "YeAH",
        "bic": "BIC",
        "lp": "TCP-LP",
        "ledbat": "LEDBAT",
        "dctcp": "DCTCP",
    },
    "nr_sack": {"false": "SACK", "true": "NR-SACK"},
    "profile": {"rfc": "RFC defaults", "linux": "Linux"},
}
# Switches whose two values are two mechanisms the papers name (seed 000, 002, 004).
_SWITCHES: dict[str, dict[str, str]] = {
    "sctp.cmt.enabled": {"true": "CMT", "false": "SCTP (one path)"},
    "sctp.rack.enabled": {"true": "RACK", "false": "dupthresh"},
    "sctp.thin.all": {"true": "all modifications", "false": "lksctp"},
}
_INDEX = re.compile(r"\[\d+\]")


@dataclass(frozen=True)
class Label:
    """A quantity on a figure: its ``name``, the SI ``base`` unit of the stored values (``bit/s``,
    ``s``, ``B`` or ``""``) and the ``unit`` to show (None: chosen from the values)."""

    name: str
    base: str = ""
    unit: str | None = None

    def scaled(self, values: Sequence[float | None] = ()) -> tuple[str, float]:
        """The axis text and the factor to multiply the stored values by: ``("Goodput (Mb/s)",
        1e-6)``."""
        unit = self.unit if self.unit is not None else _auto_unit(self.base, values)
        factor = UNITS[unit][1] if unit in UNITS else 1.0
        return (f"{self.name} ({unit})" if unit else self.name), 1.0 / factor


def _auto_unit(base: str, values: Sequence[float | None]) -> str:
    if base not in _PREFIXES:
        return base
    finite = [abs(v) for v in values if v is not None and v == v and v != 0]
    top = max(finite, default=0.0)
    for unit, factor in _PREFIXES[base]:
        if top >= factor:
            return unit
    return _PREFIXES[base][-1][0]


def base_unit(metric: str) -> str:
    """The SI unit of a metric column: the registry's (:data:`rexmit.metric_registry.METRICS`), else
    from its name: ``*_bps`` bit/s, ``*_s`` seconds, byte counts B."""
    leaf = metric.rsplit(".", 1)[-1]
    if leaf in METRICS:
        return METRICS[leaf].unit
    if leaf.endswith("_bps"):
        return "bit/s"
    if leaf.endswith("_s"):
        return "s"
    if leaf.startswith(("bytes", "rtxq_bytes", "tx_bytes", "rx_bytes")) or leaf.endswith("_bytes"):
        return "B"
    return ""


def metric_label(metric: str, labels: Mapping[str, Any] | None = None) -> Label:
    """The label of a result column: the sweep file's ``[labels]`` entry if any, else the
    vocabulary above (``flow.bulk.goodput_bps`` -> Goodput in bit/s), else the metric's name
    in words."""
    entry = (labels or {}).get(metric)
    leaf = metric.rsplit(".", 1)[-1]
    known = METRICS.get(leaf)
    default = known.label if known is not None else leaf.replace("_", " ").capitalize()
    return _with_entry(Label(default, base_unit(metric)), entry)


def series_label(series: str) -> tuple[Label, str]:
    """A time series' quantity and what it belongs to: ``bulk:cwnd`` -> (Congestion window in
    bytes, ``bulk``), ``queue_packets:R1->R2`` -> (Queue (packets), ``R1->R2``)."""
    parts = series.split(":", 1)
    if len(parts) == 2:
        for i in (1, 0):
            known = METRICS.get(parts[i])
            if known is not None and "series" in known.places:
                return Label(known.label, known.unit), parts[1 - i]
    leaf = parts[-1]
    return Label(leaf.replace("_", " ").capitalize(), base_unit(leaf)), parts[0] if len(parts) == 2 else ""


def param_label(key: str, base: Mapping[str, Any] | None = None, labels: Mapping[str, Any] | None = None) -> Label:
    """The label of a varied key path; ``base`` (the base scenario) names error rates by their
    model's kind: ``topology.links[1].errors[0].rate`` of a burst model is the Burst error rate."""
    entry = (labels or {}).get(key)
    leaf = _INDEX.sub("", key.rsplit(".", 1)[-1])
    parts = key.split(".")
    parent = _INDEX.sub("", parts[-2]) if len(parts) > 1 else ""
    if leaf == "rate" and parent == "errors":
        model = _lookup(base, parts[:-1], None)
        default = Label(_ERROR_RATES.get(str(model.get("kind")) if isinstance(model, Mapping) else "", "Error rate"))
    elif leaf in ("value", "mean", "min", "max") and parent in _DISTRIBUTIONS:
        name, unit = _DISTRIBUTIONS[parent]
        default = Label(name if leaf == "value" else f"{_BOUNDS[leaf]} {name[0].lower()}{name[1:]}", unit)
    elif leaf == "rate" and _INDEX.sub("", parts[0]) == "apps":
        default = Label("Sending rate", "bit/s")
    elif leaf in ("rate", "delay") and "bottleneck" in parts:
        default = Label(
            "Bottleneck rate" if leaf == "rate" else "Bottleneck one-way delay", "bit/s" if leaf == "rate" else "s"
        )
    elif leaf in ("send_buffer", "recv_buffer", "bytes"):
        default = Label(_PARAMS[leaf], "B")
    elif leaf in ("delay", "mean_delay"):
        default = Label(_PARAMS[leaf], "s")
    elif leaf == "rate":
        default = Label("Link rate", "bit/s")
    else:
        default = Label(_PARAMS.get(leaf) or leaf.replace("_", " ").capitalize())
    return _with_entry(default, entry)


def _lookup(data: Mapping[str, Any] | None, parts: Sequence[str], missing: Any) -> Any:
    """The value at a key path's parts in a scenario (``links[1]`` indexes a list)."""
    node: Any = data
    for part in parts:
        m = re.fullmatch(r"([^\[]+)((?:\[\d+\])*)", part)
        if m is None or not isinstance(node, Mapping) or m.group(1) not in node:
            return missing
        node = node[m.group(1)]
        for i in re.findall(r"\[(\d+)\]", m.group(2)):
            if not isinstance(node, list) or int(i) >= len(node):
                return missing
            node = node[int(i)]
    return node


def _with_entry(default: Label, entry: Any) -> Label:
    if entry is None:
        return default
    if isinstance(entry, str):
        return Label(entry, default.base, default.unit)
    return Label(entry.get("name", default.name), default.base, entry.get("unit", default.unit))


def value_text(value: Any) -> str:
    """A parameter value as a sweep table stores it, as text: ``true``, ``0.01``, ``4Mbps``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def value_name(key: str, value: Any, labels: Mapping[str, Any] | None = None) -> str | None:
    """The paper's name of a parameter value (``apps[0].tcp.cc = westwood`` -> ``Westwood+``),
    from the sweep file's ``values`` table or the vocabulary; None when it has none."""
    entry = (labels or {}).get(key)
    text = value_text(value)
    if isinstance(entry, Mapping) and text in entry.get("values", {}):
        return str(entry["values"][text])
    for suffix, names in _SWITCHES.items():
        if key.endswith(suffix):
            return names.get(text)
    leaf = _INDEX.sub("", key.rsplit(".", 1)[-1])
    return _VALUES.get(leaf, {}).get(text)


def tcp_variant(recovery: str | None, cc: str | None) -> str:
    """A TCP sender as seed 001 names it: the recovery with Reno's window (``SACK``), else the
    congestion control, with the recovery when it is not NewReno (``Westwood+``, ``CUBIC/SACK``)."""
    rec = _VALUES["recovery"].get(recovery or "", recovery or "")
    if cc in (None, "reno"):
        return rec or "Reno"
    name = _VALUES["cc"].get(cc, cc)
    return name if recovery in (None, "newreno") else f"{name}/{rec}"


def line_names(
    keys: Sequence[str],
    rows: Sequence[Sequence[Any]],
    zip_table: Mapping[str, Sequence[Any]] | None = None,
    labels: Mapping[str, Any] | None = None,
) -> list[str]:
    """Legend entries for lines keyed by the values of ``keys`` (one tuple per line in ``rows``).
    A sweep file's ``labels.zip`` names the rows of its ``zip_table``; a TCP recovery and
    congestion control of the same app make one variant name (:func:`tcp_variant`); a value
    with a name of its own is shown by it, any other as ``Name = value``. Zipped keys that do
    not tell the lines apart are left out (``tahoe_recover_guard`` beside the variant)."""
    zip_table = zip_table or {}
    zipped = [k for k in keys if k in zip_table]
    parts: list[list[tuple[str, str]]] = [[] for _ in rows]  # per line: (key, text)
    done: set[str] = set()
    zip_names = (labels or {}).get("zip")
    if zip_names and zipped:
        idx = [list(keys).index(k) for k in zipped]
        named = {tuple(value_text(zip_table[k][r]) for k in zipped): name for r, name in enumerate(zip_names)}
        for p, row in zip(parts, rows):
            texts = tuple(value_text(row[i]) for i in idx)
            p.append(("zip", named.get(texts, ", ".join(texts))))
        done.update(zipped)
    for i, key in enumerate(keys):
        if key in done:
            continue
        cc_key = key[: -len("recovery")] + "cc"
        if key.endswith(".tcp.recovery") and cc_key in keys:
            j = list(keys).index(cc_key)
            done.update({key, cc_key})
            for p, row in zip(parts, rows):
                p.append((key, tcp_variant(row[i], row[j])))
            continue
        done.add(key)
        name = param_label(key, labels=labels).name
        for p, row in zip(parts, rows):
            text = value_name(key, row[i], labels)
            p.append((key, text if text is not None else f"{name} = {_quantity_text(row[i])}"))
    for key in reversed(zipped):  # drop the zipped parts the lines do not need, last first
        trial = [[(k, t) for k, t in p if k != key] for p in parts]
        if trial[0] and len({tuple(trial_p) for trial_p in trial}) == len({tuple(p) for p in parts}):
            parts = trial
    return [", ".join(t for _, t in p) for p in parts]


def _quantity_text(value: Any) -> str:
    """``"25ms"`` -> ``25 ms``, ``"4Mbps"`` -> ``4 Mb/s``; other values as text."""
    text = value_text(value)
    m = re.fullmatch(r"([0-9.eE+-]+)\s*([A-Za-zµ/]+)", text)
    if m is None or (m.group(2) not in UNITS and m.group(2) not in _RATE_SUFFIXES):
        return text  # "64K" is a name, not a quantity
    unit = _RATE_SUFFIXES.get(m.group(2), m.group(2))
    return f"{m.group(1)} {unit}"


_RATE_SUFFIXES = {"bps": "b/s", "kbps": "kb/s", "Mbps": "Mb/s", "Gbps": "Gb/s"}
_ENTRY_KEYS = {"name", "unit", "values"}


def check_labels(table: Any, parameters: Sequence[str], zip_rows: int) -> dict[str, Any]:
    """A sweep file's ``[labels]`` table, validated: each key is a varied key path or a result
    column (``flow.``/``link.``/``node.``/``summary.``), or ``zip`` (a list naming the zip rows);
    each value a name or a table of ``name``, ``unit`` (one of :data:`UNITS`, of the metric's
    kind) and, for a parameter, ``values`` (value -> legend name). Raises ValueError naming the
    offending key."""
    if not isinstance(table, Mapping):
        raise ValueError(f"labels: must be a table of key path = name, got {table!r}")
    out: dict[str, Any] = {}
    for key, entry in table.items():
        where = f"labels.{key!r}" if "." in key or "[" in key else f"labels.{key}"
        if key == "zip":
            if not isinstance(entry, list) or not all(isinstance(x, str) for x in entry):
                raise ValueError(f"{where}: must be a list of names, one per zip row")
            if len(entry) != zip_rows:
                raise ValueError(f"{where}: {len(entry)} names for {zip_rows} zip rows")
            out[key] = list(entry)
            continue
        is_param = key in parameters
        if not is_param and not key.startswith(("flow.", "link.", "node.", "summary.")):
            raise ValueError(
                f"{where}: neither a varied parameter ({', '.join(parameters) or 'none'}) nor a result column (flow.*, link.*, node.*, summary.*)"
            )
        if isinstance(entry, str):
            out[key] = entry
            continue
        if not isinstance(entry, Mapping):
            raise ValueError(f"{where}: must be a name or a table of name, unit, values; got {entry!r}")
        unknown = sorted(set(entry) - _ENTRY_KEYS)
        if unknown:
            raise ValueError(f"{where}.{unknown[0]}: unknown key (allowed: {', '.join(sorted(_ENTRY_KEYS))})")
        if "name" in entry and not isinstance(entry["name"], str):
            raise ValueError(f"{where}.name: must be text, got {entry['name']!r}")
        if "unit" in entry:
            _check_unit(where, entry["unit"], param_label(key).base if is_param else base_unit(key))
        if "values" in entry:
            if not is_param:
                raise ValueError(f"{where}.values: names values of a varied parameter; {key} is a result column")
            if not isinstance(entry["values"], Mapping) or not all(
                isinstance(v, str) for v in entry["values"].values()
            ):
                raise ValueError(f"{where}.values: must be a table of value = name (text)")
        out[key] = dict(entry)
    return out


def _check_unit(where: str, unit: Any, base: str) -> None:
    if not isinstance(unit, str) or unit not in UNITS:
        raise ValueError(f"{where}.unit: {unit!r} is not a unit (allowed: {', '.join(u for u in UNITS if u)})")
    if base and UNITS[unit][0] != base:
        allowed = [u for u, (b, _) in UNITS.items() if b == base]
        raise ValueError(f"{where}.unit: {unit!r} does not measure {base} (allowed: {', '.join(allowed)})")


def plain_numbers(fig: Any) -> None:
    """No offsets or scientific multipliers on linear axes (``1e6`` above the ticks): values are
    scaled to their unit instead."""
    from matplotlib.ticker import ScalarFormatter

    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            formatter = axis.get_major_formatter()
            if isinstance(formatter, ScalarFormatter):
                formatter.set_useOffset(False)
                formatter.set_scientific(False)


__all__ = [
    "PALETTE",
    "UNITS",
    "Label",
    "metric_label",
    "param_label",
    "series_label",
    "value_name",
    "value_text",
    "tcp_variant",
    "line_names",
    "check_labels",
    "base_unit",
    "plain_numbers",
]
