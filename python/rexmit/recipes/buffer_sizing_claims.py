"""Seed 003's claims (§III point iii, §IV), each with a stable id, from the figures' curves:
per (a, b) and buffer kind, utilisation against buffer size."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rexmit.recipes.buffer_sizing_plan import KNEE, MSS
from rexmit.recipes.buffer_sizing_plan import requirement as _requirement
from rexmit.recipes.common import Claim


def _mb(size: float | None) -> str:
    return "none" if size is None else f"{size / 1e6:g} MB"


@dataclass
class Curve:
    """One line of a figure: per buffer size (bytes), utilisation, goodput and max rtx queue."""

    sizes: list[float]
    utilization: list[float]
    goodput: list[float]
    rtxq_max: list[float]

    def best(self) -> float:
        return max(self.utilization)

    def at(self, size: float) -> float:
        return self.utilization[self.sizes.index(size)]

    def knee(self) -> float | None:  # None only for a curve without points
        """The smallest buffer whose utilisation is within 1% of the best."""
        return next((s for s, u in zip(self.sizes, self.utilization) if u >= KNEE * self.best()), None)


def _fmt_curve(c: Curve) -> str:
    return " ".join(f"{s / 1e6:g}MB→{u:.3f}" for s, u in zip(c.sizes, c.utilization))


def _knee_claim(
    curves: dict[tuple[str, str], dict[tuple[float, float], Curve]],
    settings: list[tuple[float, float]],
    recovery: str,
    claim_id: str,
    text: str,
) -> Claim:
    """Whether the grid sizes bracketing the model's buffer show the knee there."""
    ok, nums = True, []
    for a, b in settings:
        need = _requirement(a, b).send_buffer_bytes(recovery)
        for kind in ("send", "recv"):
            c = curves[(recovery, kind)][(a, b)]
            below = [s for s in c.sizes if s < need]
            above = [s for s in c.sizes if s >= need]
            if not below or not above:
                ok = False
                nums.append(f"a={a:g} {kind}: the grid does not bracket the model's {need / 1e6:.1f} MB")
                continue
            lo, hi = below[-1], above[0]
            ok &= c.at(hi) >= KNEE * c.best() and c.at(lo) < 0.97 * c.best()
            nums.append(
                f"a={a:g} b={b:g} {kind}: model {need / 1e6:.1f} MB; {lo / 1e6:g}MB→{c.at(lo):.3f}, {hi / 1e6:g}MB→{c.at(hi):.3f} (best {c.best():.3f}, simulated knee {(c.knee() or math.nan) / 1e6:g} MB)"
            )
    return Claim(claim_id, text, ok, "; ".join(nums))


def claims(
    curves: dict[tuple[str, str], dict[tuple[float, float], Curve]], settings: list[tuple[float, float]]
) -> list[Claim]:
    claims = []
    kinds = ("send", "recv")

    # §IV: "As far as regards TCP NewReno, the model prediction is very accurate"; §V: the model
    # "nicely predicts the minimum internal buffers size ... to achieve maximum link utilization".
    claims.append(
        _knee_claim(
            curves,
            settings,
            "newreno",
            "buffer-sizing/newreno-knee-at-model-size",
            "NewReno: goodput reaches its maximum at the first buffer size above the model's Q ≥ U_N (Eq. 3), and is ≥ 3% lower at the size below it",
        )
    )
    claims.append(
        _knee_claim(
            curves,
            settings,
            "sack",
            "buffer-sizing/sack-knee-at-model-size",
            "SACK: goodput reaches its maximum at the first buffer size above the model's Q ≥ U_1 (§III.B), and is ≥ 3% lower at the size below it",
        )
    )

    # §IV: "the goodput strongly depends on the internal buffers" (NewReno).
    drops = {
        (a, b, kind): 1 - curves[("newreno", kind)][(a, b)].utilization[0] / curves[("newreno", kind)][(a, b)].best()
        for a, b in settings
        for kind in kinds
    }
    claims.append(
        Claim(
            "buffer-sizing/newreno-goodput-depends-on-buffers",
            "NewReno: goodput strongly depends on the buffers (the smallest buffer tried loses ≥ 10% of the best utilisation)",
            all(d >= 0.10 for d in drops.values()),
            "; ".join(f"a={a:g} {kind}: {_fmt_curve(curves[('newreno', kind)][(a, b)])}" for a, b, kind in drops),
        )
    )

    # §IV: "the use of the SACK option greatly reduces buffer size requirements".
    ok, nums = True, []
    for a, b in settings:
        q = _requirement(a, b)
        for kind in kinds:
            nr, sk = curves[("newreno", kind)][(a, b)].knee(), curves[("sack", kind)][(a, b)].knee()
            ok &= nr is not None and sk is not None and sk < nr
            nums.append(
                f"a={a:g} {kind}: simulated knee SACK {_mb(sk)} vs NewReno {_mb(nr)} (model {q.sack_bytes / 1e6:.1f} vs {q.newreno_bytes / 1e6:.1f} MB)"
            )
    claims.append(
        Claim(
            "buffer-sizing/sack-needs-smaller-buffers",
            "SACK greatly reduces the buffer needed for maximum goodput (smaller simulated knee than NewReno, as the model predicts)",
            ok,
            "; ".join(nums),
        )
    )

    # §IV: "the impact of the buffer size has a small impact on the goodput performance" (SACK).
    spread = {
        (a, b, kind): 1 - min(c.utilization) / c.best()
        for a, b in settings
        for kind in kinds
        for c in [curves[("sack", kind)][(a, b)]]
    }
    claims.append(
        Claim(
            "buffer-sizing/sack-buffer-size-small-impact",
            "SACK: the buffer size has a small impact on goodput (≤ 5% between the smallest and the best buffer tried)",
            all(s <= 0.05 for s in spread.values()),
            "; ".join(f"a={a:g} {kind}: {_fmt_curve(curves[('sack', kind)][(a, b)])}" for a, b, kind in spread),
        )
    )

    # §III point iii: the largest number of unacknowledged packets is U_N (NewReno) / U_1 (SACK).
    ok, nums = True, []
    for recovery in ("newreno", "sack"):
        for a, b in settings:
            q = _requirement(a, b)
            predicted = q.newreno_packets if recovery == "newreno" else q.sack_packets
            for kind in kinds:
                seen = curves[(recovery, kind)][(a, b)].rtxq_max[-1] / MSS
                ok &= abs(seen - predicted) <= 0.02 * predicted
                nums.append(f"{recovery} a={a:g} {kind}: {seen:.0f} vs {predicted:.0f}")
    claims.append(
        Claim(
            "buffer-sizing/max-unacked-matches-model",
            "with the largest buffer, the most unacknowledged data matches the model's U (Eq. 3 at n = a(C RTTm + B); SACK's U_1) within 2%",
            ok,
            "; ".join(nums),
        )
    )

    # §III point iii: the retransmission and the out-of-order buffer need the same size Q.
    ok, nums = True, []
    for r in ("newreno", "sack"):
        for a, b in settings:
            send, recv = curves[(r, "send")][(a, b)], curves[(r, "recv")][(a, b)]
            ok &= send.knee() is not None and send.knee() == recv.knee()
            gap = max(abs(x - y) for x, y in zip(send.utilization, recv.utilization))
            nums.append(
                f"{r} a={a:g}: knee send {(send.knee() or math.nan) / 1e6:g} MB, recv {(recv.knee() or math.nan) / 1e6:g} MB (largest utilisation difference {gap:.3f})"
            )
    claims.append(
        Claim(
            "buffer-sizing/send-and-recv-buffers-same-size",
            "the retransmission (send) and the out-of-order (receive) buffer need the same size (same simulated knee)",
            ok,
            "; ".join(nums),
        )
    )
    return claims
