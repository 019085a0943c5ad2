"""Every field of the example scenarios, with every default written out, replaced by values a
careless user or a script bug gives (zero, negative, huge, NaN, the wrong type, a missing key):
validation either accepts the scenario or raises ScenarioError naming the key path, never
another exception, never serde's "did not match any variant" (issue 17's rule, applied to
every key instead of a table of chosen cases). A sample of the accepted ones also runs briefly.
Found this way in session 13: a burst size or scripted entry of the wrong form, aimd_a above
1000 named as cc.a, and an SCTP send buffer of 2^63 bytes that a bulk source filled forever."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterator
from typing import Any

import pytest

import rexmit
from rexmit import _core

EXAMPLES = ["thin_stream.toml", "tcp_seed001.toml", "sctp_cmt_dual_dumbbell.toml", "lossy_chain.toml"]
#: Replacement values; None deletes the key.
VALUES: list[Any] = [0, -1, 2**64, 1e308, math.nan, "", "x", "-1ms", True, [], None]


def expanded(text: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_core.convert(_core.with_defaults(text, "toml", "toml"), "toml", "json"))
    return data


def leaves(d: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(d, dict):
        for k, v in d.items():
            yield from leaves(v, path + (k,))
    elif isinstance(d, list) and d and all(isinstance(x, (dict, list)) for x in d):
        for i, v in enumerate(d):
            yield from leaves(v, path + (i,))
    else:
        yield path


def mutated(base: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    d = copy.deepcopy(base)
    target = d
    for p in path[:-1]:
        target = target[p]
    if value is None:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return d


def key_path(path: tuple[Any, ...]) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_field_mutated_is_accepted_or_named(examples, name):
    base = expanded((examples / name).read_text())
    wrong: list[str] = []
    accepted: list[dict[str, Any]] = []
    cases = 0
    for path in leaves(base):
        for value in VALUES:
            data = mutated(base, path, value)
            try:
                text = json.dumps(data, allow_nan=True)
            except (TypeError, ValueError):
                continue
            cases += 1
            try:
                _core.validate(text, "json")
            except rexmit.ScenarioError as e:
                msg = str(e)
                # The error names a key path: the mutated key, one of its parents, or the key a
                # cross-field rule names (e.g. apps[0].warmup for a shorter stop_time).
                head = msg.split(":", 1)[0]
                names_key = bool(head) and " " not in head or f"`{path[-1]}`" in msg
                if "did not match any variant" in msg or " at line 1 column " in msg or not names_key:
                    wrong.append(f"{key_path(path)} = {value!r}: {msg[:200]}")
            except BaseException as e:  # a panic or any other exception is the defect
                wrong.append(f"{key_path(path)} = {value!r}: {type(e).__name__}: {str(e)[:200]}")
            else:
                accepted.append(data)
    assert cases > 100, cases
    assert not wrong, "\n".join(wrong[:20])
    # A sample of the accepted mutations runs (2 s, with a memory guard): no exception.
    for data in accepted[:: max(1, len(accepted) // 12)]:
        data["stop_time"] = "2s"
        for app in data.get("apps", []):
            app["start"] = "0s"
            if "warmup" in app:
                app["warmup"] = "1s"
            app.pop("stop", None)
        data.setdefault("limits", {})["max_memory"] = "2GiB"
        data.get("metrics", {}).pop("pcap", None)
        try:
            rexmit.run(rexmit.Scenario.from_dict(data))
        except rexmit.ScenarioError:
            pass  # a mutation that only conflicts once the run's stop time changed
