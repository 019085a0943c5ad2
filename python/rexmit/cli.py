"""The ``rexmit`` command line: ``rexmit run``, ``rexmit validate``, ``rexmit sweep``, ``rexmit report``, ``rexmit plot``, ``rexmit script``."""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rexmit import _core
from rexmit.scenario import InputFileError, Scenario

EXIT_BAD_SCENARIO = 2
EXIT_PARTIAL = 3
EXIT_INTERRUPTED = 130
EXIT_UNAVAILABLE = 4


class _ProgressBar:
    """A tqdm bar over simulated time that appears only once a run has taken a second."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Any = None

    def __call__(self, now_s: float, stop_s: float, events: int, wall_s: float) -> bool:
        if not self.enabled or wall_s < 1.0:
            return True
        if self.bar is None:
            from tqdm import tqdm  # type: ignore[import-untyped]

            self.bar = tqdm(
                total=stop_s,
                unit="sim-s",
                desc="simulating",
                file=sys.stderr,
                bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} sim-s [{elapsed}<{remaining}{postfix}]",
            )
        self.bar.n = now_s
        self.bar.set_postfix_str(f"{events / max(wall_s, 1e-9) / 1e6:.2f} M events/s", refresh=True)
        return True

    def close(self, stop_s: float | None = None) -> None:
        if self.bar is not None:
            if stop_s is not None:
                self.bar.n = stop_s
                self.bar.refresh()
            self.bar.close()


class UsageError(ValueError):
    """A command-line argument that cannot work (reported in one line, exit code 2)."""


def _out_dir(out: str) -> Path:
    """``--out``: a directory that exists or can be created, checked before any work."""
    if not out.strip():
        raise UsageError("--out: empty path; name a directory, e.g. --out results/run1")
    p = Path(out)
    if p.exists() and not p.is_dir():
        raise UsageError(f"--out {out}: is an existing file, not a directory")
    for parent in p.parents:
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"--out {out}: {parent} is a file, so no directory can be made under it")
            break
    return p


def _load(path: str, seed: int | None) -> Scenario:
    p = Path(path)
    try:
        s = Scenario.load(p)
    except _core.ScenarioError:
        # A sweep file is never a valid scenario (its [base] is no scenario key): say what it is.
        if p.is_file() and _looks_like_sweep(p):
            raise UsageError(
                f"{path}: this is a sweep file (it has a [base] scenario); use `rexmit sweep`, or `rexmit validate` to check it"
            ) from None
        raise
    if seed is not None:
        s.data["seed"] = seed
        s.validate()
    return s


def _looks_like_sweep(p: Path) -> bool:
    from rexmit.scenario import parse_toml_loosely, read_text_file

    try:
        return "base" in parse_toml_loosely(read_text_file(p, "scenario"))
    except ValueError:
        return False


def _cmd_validate(args: argparse.Namespace) -> int:
    p = Path(args.scenario)
    if p.is_file() and _looks_like_sweep(p):
        from rexmit.sweep import Sweep, SweepError

        try:
            sweep = Sweep.load(p)
            runs = sweep.plan()
        except SweepError as e:
            print(f"error: {args.scenario}: {e}", file=sys.stderr)
            return EXIT_BAD_SCENARIO
        points = len({r.point for r in runs})
        print(
            f"{args.scenario}: ok (sweep: {points} points x {sweep.replications} replications = {len(runs)} runs, every point validated)"
        )
        return 0
    s = _load(args.scenario, None)
    s.validate()
    print(
        f"{args.scenario}: ok ({len(s.data.get('apps', []))} apps, stop_time {s.data['stop_time']}, seed {s.data['seed']})"
    )
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    from rexmit.results import run

    return _run_and_report(args, run)


def _cmd_emulate(args: argparse.Namespace) -> int:
    from rexmit import emulation

    why = emulation.unavailable()
    if why is not None:
        print(f"error: cannot emulate on this machine: {why}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    return _run_and_report(args, emulation.emulate)


#: Above this many packet transmissions (about 3 minutes at 10 M/s) a run says so before it starts.
LONG_RUN_WORK = 2e9


def _run_and_report(args: argparse.Namespace, runner: Any) -> int:
    _out_dir(args.out)
    s = _load(args.scenario, args.seed)
    bar = _ProgressBar(enabled=not args.quiet and sys.stderr.isatty() or args.progress)
    work = _core.work_estimate(s.to_json(), "json")
    if work > LONG_RUN_WORK and not args.quiet:
        hint = "" if bar.enabled else "; add --progress for a progress bar with ETA"
        print(
            f"note: the links could carry up to {work:.2g} packet transmissions over stop_time (about {work / 1e7 / 60:.0f} min at 10 M packets/s){hint}; Ctrl-C stops the run and keeps partial results",
            file=sys.stderr,
        )
    try:
        result = runner(s, out_dir=args.out, progress=bar)
    except KeyboardInterrupt as e:
        bar.close()
        partial = getattr(e, "partial_results", None)
        print("interrupted: a single run cannot resume; run the same command again to start it over", file=sys.stderr)
        if partial is not None:
            Path(args.out).mkdir(parents=True, exist_ok=True)
            (Path(args.out) / "partial_results.json").write_text(partial)
            print(f"partial results in {Path(args.out) / 'partial_results.json'}", file=sys.stderr)
        return EXIT_INTERRUPTED
    bar.close(result.summary["end_time_s"])
    summ = result.summary
    if not args.quiet:
        print(
            f"simulated {summ['end_time_s']:.3f} s in {summ['wall_time_s']:.3f} s wall: {summ['events']} events, {summ['packet_hops']} packet hops"
        )
        for f in result.flows:
            print(_flow_line(f))
        if result.emulation is not None:
            late = result.emulation["lateness"]
            print(
                f"  emulator lateness: mean {late['mean_s'] * 1e3:.3f} ms, p99 {late['p99_s'] * 1e3:.3f} ms, max {late['max_s'] * 1e3:.3f} ms over {late['events']} events"
            )
            for f in result.flows:
                if f.get("stack") == "linux":
                    print(
                        f"  {f['name']:<16} linux  goodput {f['goodput_bps'] / 1e6:9.3f} Mb/s  retransmissions {int(f['retransmissions'])}  timeouts {f['timeouts']:.0f}"
                    )
        print(f"results in {Path(args.out).resolve()}")
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if result.partial:
        print(f"error: run stopped early, results are partial: {result.partial}", file=sys.stderr)
        return EXIT_PARTIAL
    return 0


def _flow_line(f: dict[str, Any]) -> str:
    """One line per flow: UDP throughput; TCP and SCTP goodput, retransmissions, timeouts and
    failure."""
    name = f"  {f['name']:<16}"
    if f.get("throughput_bps") is not None:
        return f"{name} rx {int(f.get('rx_packets', 0)):>9} pkts  throughput {f['throughput_bps'] / 1e6:9.3f} Mb/s"
    if f.get("goodput_bps") is None:
        return f"{name} {f.get('kind', '')}"
    rtx = f.get("retransmissions", 0) or 0
    fail = f" FAILED ({int(f['failure'])})" if f.get("failure") else ""
    return f"{name} {f.get('kind', ''):<13} goodput {f['goodput_bps'] / 1e6:9.3f} Mb/s  retransmissions {int(rtx):>7}  timeouts {int(f.get('timeouts', 0) or 0):>5}{fail}"


def _cmd_show_schema(args: argparse.Namespace) -> int:
    s = _load(args.scenario, None)
    full = _core.with_defaults(s.to_json(), "json", args.format)
    print(full if args.format == "toml" else json.dumps(json.loads(full), indent=2))
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from rexmit.ci_target import describe
    from rexmit.sweep import Sweep, SweepError, finished_ids, run_sweep

    _out_dir(args.out)
    try:
        spec = Sweep.load(args.sweep)
        if args.plugin:
            from rexmit.plugins import resolve_sources

            spec.plugins += [p for p in resolve_sources(args.plugin) if p not in spec.plugins]
        if args.ci_target or args.ci_metric or args.ci_min or args.ci_max:
            table = dict(spec.ci.to_dict()) if spec.ci is not None else {}
            for key, value in (
                ("target", args.ci_target),
                ("metrics", args.ci_metric),
                ("min_replications", args.ci_min),
                ("max_replications", args.ci_max),
            ):
                if value is not None:
                    table[key] = value
            spec.set_ci(table).check()
        result = run_sweep(
            spec,
            args.out,
            jobs=args.jobs,
            cluster=args.cluster,
            progress=False if args.quiet else (True if args.progress else None),
            views=args.views,
        )
    except (SweepError, _core.ScenarioError) as e:
        print(f"error: {args.sweep}: {e}", file=sys.stderr)
        return EXIT_BAD_SCENARIO
    except KeyboardInterrupt:
        print(
            f"interrupted: {len(finished_ids(args.out))} finished runs are saved in {args.out}; run the same command again to resume",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    if not args.quiet:
        print(f"sweep: {result.total} runs ({result.ran} run now, {result.skipped} already finished)")
        print(f"results in {result.out.resolve()}: results.parquet (one row per run), runs/, series/, scenarios/")
        if result.ci is not None:
            print(describe(result.ci) + " (ci.json)")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from rexmit.report import report
    from rexmit.sweep import SweepError
    from rexmit.view_pages import FlowViews

    try:
        path = report(
            args.dir, metrics=args.metric or None, x=args.x, views=FlowViews(args.views) if args.views else None
        )
    except (SweepError, FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_SCENARIO
    print(f"report in {path.resolve()} (figures in {(path.parent / 'figures').resolve()})")
    return 0


def _cmd_plot(args: argparse.Namespace) -> int:
    from rexmit.plot import NoTraceError, plot_flow

    try:
        path = plot_flow(
            args.dir, args.flow, args.kind, t_from=args.t_from, t_to=args.t_to, format=args.format, out=args.out
        )
    except (NoTraceError, KeyError, ValueError) as e:
        print(f"error: {e.args[0] if e.args else e}", file=sys.stderr)
        return EXIT_BAD_SCENARIO
    print(f"{args.kind} of {args.flow} in {path.resolve()}")
    return 0


def _recipe_names() -> list[str]:
    from rexmit.recipes import RECIPES

    return list(RECIPES)


def _cmd_script(args: argparse.Namespace) -> int:
    from rexmit import script

    code = script.EXIT_PASSED
    for path in args.files:
        r = script.run(path, trace=args.trace)
        for line in r.trace:
            print(line)
        if not r.passed:
            print(r.report, end="", file=sys.stderr)
        code = max(code, r.exit_code)
    return code


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from rexmit.reproduce import RECIPES, reproduce

    if args.name not in RECIPES:
        print(f"error: no reproduction named {args.name!r} (available: {', '.join(sorted(RECIPES))})", file=sys.stderr)
        return EXIT_BAD_SCENARIO
    out = _out_dir(args.out) if args.out is not None else Path(f"results/{args.name}")
    from rexmit.ci_target import CiError

    try:
        claims = reproduce(
            args.name,
            out,
            quick=args.quick,
            jobs=args.jobs,
            ci_target=args.ci_target,
            ci_min=args.ci_min,
            replications=args.replications,
        )
    except CiError as e:  # a bad --ci-target, --ci-min or --replications, found before any run
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_SCENARIO
    for c in claims:
        if c.sanity:
            continue
        verdict = "reproduced" if c.holds else ("needs the full run" if c.holds is None else "NOT reproduced")
        paper = f" (paper: {c.paper})" if c.paper else ""
        print(f"[{verdict}] {c.id}: {c.text}: {c.numbers}{paper}")
    for c in claims:
        if c.sanity:
            print(f"[sanity check {'holds' if c.holds else 'FAILS'}] {c.id}: {c.text}: {c.numbers}")
    print(f"reports: {', '.join(str(p) for p in sorted(out.glob('*/report.html')))}")
    print(_score_line(args.name, claims))
    return 0


def _score_line(name: str, claims: list[Any]) -> str:
    """``NAME: 7/9 claims reproduced (2 need the full run); 1 sanity check apart``: sanity
    checks are not counted (issue 19 §4)."""
    from rexmit.reproduce import score

    s = score(claims)
    line = f"{name}: {s['held']}/{s['counted']} claims reproduced"
    if s["undecided"]:
        line += f" ({s['undecided']} need{'s' if s['undecided'] == 1 else ''} the full run)"
    if s["sanity"]:
        line += f"; {s['sanity']} sanity check{'s' if s['sanity'] > 1 else ''} apart, not counted"
    return line


def version_text() -> str:
    """``rexmit 0.1.0 (git 1a2b3c4)``: the version and the git revision the extension was built
    from ("unknown" when it was built outside a git checkout)."""
    return f"rexmit {_core.__version__} (git {getattr(_core, '__git_revision__', 'unknown')})"


def _run_arguments(p: argparse.ArgumentParser, scenario_help: str) -> argparse.ArgumentParser:
    """The arguments of ``run`` and ``emulate``."""
    p.add_argument("scenario", help=scenario_help)
    p.add_argument("--out", "-o", required=True, help="output directory")
    p.add_argument("--seed", type=int, help="override the scenario's seed")
    p.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
    p.add_argument("--progress", action="store_true", help="show the progress bar even when stderr is not a terminal")
    _plugin_argument(p)
    return p


def _plugin_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--plugin",
        action="append",
        metavar="FILE.py",
        help="import this Python file (or module) first: the congestion controllers it registers can be named in the scenario (repeatable; docs/plugins.md)",
    )


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``only``, the parser of that command alone (``main`` asks
    for the one it was given: building every command's parser takes longer than a short run's
    work, and ``reproduce``'s help imports the recipes, pyarrow with them)."""
    p = argparse.ArgumentParser(
        prog="rexmit", description="Packet-level simulator of TCP and SCTP loss recovery and buffer management."
    )
    p.add_argument("--version", action="version", version=version_text())
    sub = p.add_subparsers(dest="command", required=True)

    if only in (None, "run"):
        _run_arguments(sub.add_parser("run", help="run a scenario file"), "scenario TOML file").set_defaults(
            func=_cmd_run
        )

    if only in (None, "emulate"):
        e = sub.add_parser(
            "emulate",
            help="run a scenario with its [emulation] real_hosts as real Linux hosts (needs root and /dev/net/tun)",
        )
        _run_arguments(e, "scenario TOML file with an [emulation] table").set_defaults(func=_cmd_emulate)

    if only in (None, "validate"):
        v = sub.add_parser("validate", help="check a scenario file without running it")
        v.add_argument("scenario")
        _plugin_argument(v)
        v.set_defaults(func=_cmd_validate)

    if only in (None, "normalize"):
        n = sub.add_parser("normalize", help="print a scenario with every default filled in")
        n.add_argument("scenario")
        n.add_argument("--format", choices=["toml", "json"], default="toml")
        _plugin_argument(n)
        n.set_defaults(func=_cmd_show_schema)

    if only in (None, "sweep"):
        w = sub.add_parser("sweep", help="run a parameter sweep (parallel, resumable)")
        w.add_argument("sweep", help="sweep TOML file (see docs/sweeps.md)")
        w.add_argument("--out", "-o", required=True, help="results directory; running again there resumes")
        w.add_argument("--jobs", "-j", type=int, help="local worker processes (default: the number of CPUs)")
        w.add_argument("--cluster", help="run on the Dask scheduler at this address (tcp://host:port) instead")
        w.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
        w.add_argument(
            "--progress", action="store_true", help="show the progress bar even when stderr is not a terminal"
        )
        w.add_argument(
            "--views",
            metavar="FLOW",
            help="trace FLOW in the first replication of every point for `rexmit report DIR --views FLOW` (which then runs nothing again)",
        )
        w.add_argument(
            "--ci-target",
            metavar="PCT",
            help="add replications per point until every --ci-metric's 95%% CI half-width is below PCT of its mean (e.g. 2%%); overrides the file's [ci] target",
        )
        w.add_argument(
            "--ci-metric",
            action="append",
            metavar="COLUMN",
            help="result column the CI target applies to (repeatable; default the file's [ci] or [report] metrics)",
        )
        w.add_argument("--ci-min", type=int, metavar="N", help="replications every point gets first (default 3)")
        w.add_argument("--ci-max", type=int, metavar="N", help="most replications of a point (default 64)")
        _plugin_argument(w)
        w.set_defaults(func=_cmd_sweep)

    if only in (None, "report"):
        rp = sub.add_parser("report", help="write figures and report.html for a run or sweep directory")
        rp.add_argument("dir", help="output directory of `rexmit run` or `rexmit sweep`")
        rp.add_argument(
            "--metric", "-m", action="append", help="sweep metric to plot, e.g. flow.cbr0.throughput_bps (repeatable)"
        )
        rp.add_argument("--x", help="sweep parameter for the x axis (default: the first varied one)")
        rp.add_argument(
            "--views",
            metavar="FLOW",
            help="sweep: link FLOW's time-sequence and cwnd pages in the first replication of every point (traced by `rexmit sweep --views FLOW`, else run again traced)",
        )
        rp.set_defaults(func=_cmd_report)

    if only in (None, "plot"):
        pl = sub.add_parser(
            "plot", help="draw a traced flow ([[metrics.trace]]): time-sequence graph, cwnd, rtxq or RTT"
        )
        pl.add_argument("dir", help="output directory of `rexmit run`")
        pl.add_argument("--flow", required=True, help="the traced app's name")
        pl.add_argument(
            "--kind",
            choices=["tsg", "cwnd", "rtxq", "rtt"],
            default="tsg",
            help="tsg (time-sequence graph, default), cwnd, rtxq or rtt",
        )
        pl.add_argument("--from", dest="t_from", type=float, help="start of the time window (s)")
        pl.add_argument("--to", dest="t_to", type=float, help="end of the time window (s)")
        pl.add_argument(
            "--format",
            choices=["png", "svg", "html"],
            default="png",
            help="png, svg or html (interactive, works offline)",
        )
        pl.add_argument("--out", "-o", help="output file (default DIR/plots/FLOW_KIND.FORMAT)")
        pl.set_defaults(func=_cmd_plot)

    if only in (None, "script"):
        sc = sub.add_parser(
            "script",
            help="run packetdrill-style scripts against the TCP/SCTP cores (docs/scripts.md); exit 1 if one fails, 2 if one is malformed",
        )
        sc.add_argument("files", nargs="+", metavar="FILE.pkt")
        sc.add_argument("--trace", action="store_true", help="print every packet in and out")
        sc.set_defaults(func=_cmd_script)

    if only in (None, "reproduce"):
        rp = sub.add_parser("reproduce", help="run a seed paper's experiments and check its claims")
        # Only `rexmit reproduce --help` shows this help: only then are the recipes imported.
        rp.add_argument(
            "name",
            help="one of: " + ", ".join(sorted(_recipe_names()))
            if only == "reproduce"
            else "a seed paper's reproduction",
        )
        rp.add_argument("--out", "-o", help="output directory (default results/NAME)")
        rp.add_argument("--quick", action="store_true", help="a reduced version that runs in about a minute")
        rp.add_argument("--jobs", type=int, help="worker processes (default: CPU count)")
        rp.add_argument(
            "--ci-target",
            metavar="PCT",
            help="replications by confidence interval: add runs to a point, up to the recipe's count, while a report metric's 95%% CI half-width exceeds PCT of its mean (e.g. 5%%)",
        )
        rp.add_argument(
            "--ci-min", type=int, metavar="N", help="with --ci-target: replications every point runs first (default 3)"
        )
        rp.add_argument(
            "--replications",
            type=int,
            metavar="N",
            help="every sweep runs at least N replications per point (the paper's count, e.g. 30); sweeps with more keep theirs; not with --quick",
        )
        rp.set_defaults(func=_cmd_reproduce)
    return p


#: Every command of :func:`build_parser`, in its order.
COMMANDS = ("run", "emulate", "validate", "normalize", "sweep", "report", "plot", "script", "reproduce")


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        # The `rexmit` program: what is imported by now lives until the process exits, so the
        # garbage collector need not traverse it again, during the run or at exit (issue 18).
        gc.freeze()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(only=argv[0] if argv and argv[0] in COMMANDS else None).parse_args(argv)
    if getattr(args, "plugin", None):
        from rexmit.plugins import load_plugins, resolve_sources

        try:
            load_plugins(resolve_sources(args.plugin))
        except ImportError as e:
            print(f"error: --plugin {e}", file=sys.stderr)
            return EXIT_BAD_SCENARIO
    try:
        return int(args.func(args))
    except _core.ScenarioError as e:
        # Commands without a scenario argument (reproduce, report, sweep) name no file.
        where = getattr(args, "scenario", None)
        print(f"error: {where}: {e}" if where else f"error: {e}", file=sys.stderr)
        return EXIT_BAD_SCENARIO
    except (FileNotFoundError, InputFileError, UsageError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_SCENARIO
    except (IsADirectoryError, NotADirectoryError, PermissionError, FileExistsError) as e:
        # An output path that turned out unusable while writing.
        print(f"error: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return EXIT_BAD_SCENARIO
    except KeyboardInterrupt:
        # Reproductions run sweeps: their finished runs are saved and reused.
        print("interrupted: finished runs are saved; run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    except _core.EmulationUnavailable as e:
        print(f"error: cannot emulate on this machine: {e}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    except _core.EmulationError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except _core.PluginError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
