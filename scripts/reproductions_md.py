#!/usr/bin/env python3
"""Write docs/reproductions.md from the full reproductions in results/NAME (scripts/reproduce_all.sh):
per seed paper, every claim with rexmit's numbers and the verdict, the replications and
simulated time of each sweep, the wall time of the run, and a summary line. Claims the recipes
mark ``sanity`` (true by construction or by definition, or checks of the set-up) are listed
apart, with the reason they give, and not counted. Each claim shows its stable id and, where the
paper prints one, the paper's number beside rexmit's.
Causes of claims that do not hold are kept by hand in docs/reproductions_causes.md and
included verbatim. A paper with no claims.json under --results keeps its section from the
existing --out file (with the revision it was run at), so one recipe can be rerun alone
(`bash scripts/reproduce_all.sh rack-sctp`).

    python scripts/reproductions_md.py [--results DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# Seed papers in the order of ../shared/seeds/INDEX.md, with their recipe names.
PAPERS = [
    ("seed 000", "nr-sack", "NR-SACK / CMT (send-buffer blocking, RtxQ_Util)"),
    ("seed 001", "tcp-sack", "TCP variants under burst and uniform errors (Tahoe … Westwood+)"),
    ("seed 002", "rack-sctp", "RACK for SCTP (tail-loss probes, burst mitigation)"),
    ("seed 003", "buffer-sizing", "Send and receive buffer requirements (analytical model)"),
    ("seed 004", "thin-streams", "Thin-stream retransmission modifications for SCTP"),
]


def git_revision() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def sweeps(run_dir: Path) -> list[dict[str, Any]]:
    out = []
    for spec in sorted(run_dir.glob("*/sweep.json")):
        d = json.loads(spec.read_text())
        out.append(
            {
                "name": spec.parent.name,
                "replications": d.get("replications"),
                "stop_time": (d.get("base") or {}).get("stop_time"),
                "points": _points(d),
            }
        )
    return out


def _points(d: dict[str, Any]) -> int:
    n = 1
    for v in (d.get("grid") or {}).values():
        n *= len(v) if isinstance(v, list) else 1
    return n


def run_revision(run_dir: Path) -> str:
    """The git revision (short) a run's claims.json records, or ""."""
    f = run_dir / "claims.json"
    if not f.is_file():
        return ""
    doc = json.loads(f.read_text())
    rev = doc.get("git_revision") if isinstance(doc, dict) else None
    return (rev[:7] + ("+dirty" if rev.endswith("+dirty") else "")) if rev else ""


REVISION_LINE = "Run at revision "


def previous(out: Path) -> dict[str, tuple[list[str], str]]:
    """Each paper's section and summary line in an existing record, by seed ("seed 002"); a
    section without its own revision line gets the one of the record's header."""
    if not out.is_file():
        return {}
    text = out.read_text().split("\n")
    header_rev = next(
        (
            line.split(" at revision ")[1].split(",")[0].strip()
            for line in text
            if " at revision " in line and line.startswith("Full reproductions")
        ),
        "",
    )
    found: dict[str, tuple[list[str], str]] = {}
    for seed, _, _ in PAPERS:
        start = next((i for i, line in enumerate(text) if line.startswith(f"## {seed}: ")), None)
        summary = next((line[2:] for line in text if line.startswith(f"- {seed}: ")), None)
        if start is None or summary is None:
            continue
        end = next((i for i in range(start + 1, len(text)) if text[i].startswith("## ")), len(text))
        lines = text[start:end]
        if not any(line.startswith(REVISION_LINE) for line in lines) and header_rev:
            lines = lines[:4] + [f"{REVISION_LINE}{header_rev}.", ""] + lines[4:]
        found[seed] = (lines, summary)
    return found


def verdict(holds: bool | None) -> str:
    return "holds" if holds else ("needs the full run" if holds is None else "**does not hold**")


def paper_section(seed: str, name: str, title: str, run_dir: Path) -> tuple[list[str], str]:
    lines = [f"## {seed}: {name} — {title}", ""]
    claims_file = run_dir / "claims.json"
    if not claims_file.is_file():
        shown = claims_file.relative_to(ROOT) if claims_file.is_relative_to(ROOT) else claims_file
        lines += [f"Not run in full yet (no `{shown}`).", ""]
        return lines, f"{seed} ({name}): not run"
    doc = json.loads(claims_file.read_text())
    claims = doc["claims"] if isinstance(doc, dict) else doc
    wall = (run_dir / "wall_s").read_text().strip() if (run_dir / "wall_s").is_file() else "?"
    counted = [c for c in claims if not c.get("sanity")]
    held = sum(1 for c in counted if c["holds"])
    sanity = [c for c in claims if c.get("sanity")]
    summary = (
        f"{seed}: {held}/{len(counted)} claims hold"
        + (f" (+ {len(sanity)} sanity checks)" if sanity else "")
        + f"; full run {wall} s"
    )
    lines += [f"**{summary}.**", ""]
    if run_revision(run_dir):
        lines += [f"{REVISION_LINE}{run_revision(run_dir)}.", ""]
    lines += ["Sweeps (replications × points, simulated time per run):", ""]
    for s in sweeps(run_dir):
        lines.append(f"- `{s['name']}`: {s['replications']} × {s['points']}, {s['stop_time']}")
    lines += ["", "| # | claim (as the paper states it) | paper | rexmit | verdict |", "|---|---|---|---|---|"]
    for i, c in enumerate(counted, 1):
        lines.append(
            f"| {i} | {c['text']} (`{c.get('id', '?')}`) | {c.get('paper') or ''} | {c.get('numbers', '')} | {verdict(c['holds'])} |"
        )
    if sanity:
        lines += ["", "Sanity checks (cannot fail, or check the set-up; not counted):", ""]
        for c in sanity:
            lines.append(
                f"- `{c.get('id', '?')}`: {c['text']} — {'holds' if c['holds'] else 'FAILS'}; {c.get('why') or ''}. rexmit: {c.get('numbers', '')}"
            )
    lines.append("")
    return lines, summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=str(ROOT / "results"))
    ap.add_argument("--out", default=str(ROOT / "docs" / "reproductions.md"))
    args = ap.parse_args(argv)
    results = Path(args.results)
    kept = previous(Path(args.out))
    sections, summaries, revs = [], [], []
    for seed, name, title in PAPERS:
        if not (results / name / "claims.json").is_file() and seed in kept:
            lines, summary = kept[seed]
        else:
            lines, summary = paper_section(seed, name, title, results / name)
        sections += lines
        summaries.append(summary)
        rev = next((line[len(REVISION_LINE) :].rstrip(".") for line in lines if line.startswith(REVISION_LINE)), "")
        if rev and rev not in revs:
            revs.append(rev)
    causes = ROOT / "docs" / "reproductions_causes.md"
    out = [
        "<!-- written by scripts/reproductions_md.py from results/*/claims.json (make reproduce-all) -->",
        "# Every paper claim on record",
        "",
        f"Full reproductions (`make reproduce-all`) at revision {', '.join(revs) or git_revision()}, on this project's 2-core machine. "
        "Numbers are means over the replications (the recipes' tables); the per-point confidence intervals are in each "
        "sweep's report.html under results/NAME.",
        "",
        *[f"- {s}" for s in summaries],
        "",
        *sections,
    ]
    if causes.is_file():
        out += [causes.read_text().rstrip(), ""]
    Path(args.out).write_text("\n".join(out) + "\n")
    print("\n".join(summaries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
