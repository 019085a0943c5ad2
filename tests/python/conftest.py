import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


@pytest.fixture
def examples() -> Path:
    return EXAMPLES


def rexmit_cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run the installed `rexmit` command (the console script next to this Python)."""
    exe = Path(sys.executable).parent / "rexmit"
    return subprocess.run([str(exe), *args], capture_output=True, text=True, check=check)


def tshark_or_skip() -> str:
    path = shutil.which("tshark")
    if path is None:
        if os.environ.get("REXMIT_REQUIRE_TSHARK") == "1":
            pytest.fail("tshark is required (REXMIT_REQUIRE_TSHARK=1) but not installed")
        pytest.skip("tshark not installed")
    return path


def emulation_or_skip() -> None:
    """Skip (saying why) when this machine cannot emulate; REXMIT_REQUIRE_EMULATION=1 (set by
    `make test`) makes that a failure instead."""
    from rexmit import emulation

    why = emulation.unavailable()
    if why is None:
        return
    if os.environ.get("REXMIT_REQUIRE_EMULATION") == "1":
        pytest.fail(f"REXMIT_REQUIRE_EMULATION=1 but {why}")
    pytest.skip(why)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `slow` (a minute or more each, by CI's --durations) go first, the others
    keeping their order: with `make test`'s workers (pytest -n) they then run beside the quick
    ones instead of one after another at the end."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
