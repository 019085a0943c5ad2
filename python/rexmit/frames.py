"""DataFrames for notebooks: results as pandas or polars tables.

Owns the conversion of the Arrow tables rexmit reads and writes (``flows``, ``links``, ``nodes``,
time series, per-flow tables, a sweep's runs and summary) into pandas and polars DataFrames.
Neither library is a dependency of rexmit: each is imported on first use, and a missing one is
an ImportError that says how to install it (``pip install 'rexmit[dataframes]'``). Not here:
reading results (:mod:`rexmit.results`, :mod:`rexmit.sweep`); DuckDB needs nothing from rexmit,
as it reads the Parquet files where they are (docs/dataframes.md).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

_PACKAGES = {"pandas": "pandas>=1.5", "polars": "polars>=0.20"}


def optional_module(name: str) -> ModuleType:
    """Import an optional dependency, or raise an ImportError saying how to install it."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise ImportError(
            f"{name} is not installed, and rexmit needs it to make {name} DataFrames: pip install '{_PACKAGES.get(name, name)}' (or pip install 'rexmit[dataframes]' for pandas and polars)"
        ) from e


def to_pandas(table: Any) -> Any:
    """A ``pyarrow.Table`` as a ``pandas.DataFrame`` (column names kept, e.g. ``flow.bulk.goodput_bps``)."""
    optional_module("pandas")
    return table.to_pandas()


def to_polars(table: Any) -> Any:
    """A ``pyarrow.Table`` as a ``polars.DataFrame`` (zero-copy where the types allow)."""
    return optional_module("polars").from_arrow(table)


__all__ = ["optional_module", "to_pandas", "to_polars"]
