"""Output of the command line: a computed :class:`Result` as table, markdown, CSV or JSON."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import json
import shutil
import sys

import numpy as np
import pandas as pd

from audeval._cli.argtypes import _non_negative_int


FORMATS = ("table", "csv", "json", "markdown")
TOTAL = "TOTAL"
# counts: shown without decimals when they are whole numbers
COUNT_COLUMNS = frozenset(
    {
        "n_truth",
        "n_prediction",
        "tp",
        "fp",
        "fn",
        "tn",
        "substitutions",
        "deletions",
        "insertions",
        "substituted",
        "substituting",
        "speakers",
    }
)


class Result:
    """What a subcommand computed: titled tables and one table for machines."""

    def __init__(
        self,
        title: str,
        summary: pd.DataFrame,
        per_file: pd.DataFrame | None = None,
        combined: pd.DataFrame | None = None,
        columns: Sequence[str] | None = None,
        extra: Sequence[tuple[str, pd.DataFrame]] = (),
        counts: Sequence[str] = (),
    ) -> None:
        self.title = title
        self.counts = tuple(counts)  # columns written as integers in csv and json
        self.extra = list(extra)  # titled tables shown between the per-file table and the summary
        self.summary = summary
        self.per_file = per_file
        self.combined = combined if combined is not None else summary
        self.columns = columns  # shown in table and markdown unless --all-columns

    def n_rows(self) -> int:
        """Rows of the tables shown in table and markdown output."""
        return sum(len(table) for _, table in self.sections())

    def sections(self, all_columns: bool = True) -> list[tuple[str, pd.DataFrame]]:
        sections = []
        if self.per_file is not None:
            sections.append(("Per file", self.per_file))
        sections.extend(self.extra)
        sections.append((self.title, self.summary))
        if all_columns or self.columns is None:
            return sections
        return [(title, table[[c for c in self.columns if c in table.columns]]) for title, table in sections]


def _add_output(parser: argparse.ArgumentParser, *, per_file: bool = True) -> None:
    group = parser.add_argument_group("output")
    if per_file:
        group.add_argument(
            "--per-file",
            action="store_true",
            help="also give the results of every file",
        )
    group.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="output format (default: table); csv and json give one long table",
    )
    group.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="write the output to PATH instead of stdout",
    )
    group.add_argument(
        "--decimals",
        type=_non_negative_int,
        metavar="N",
        help="round to N decimals (default: 3 for table and markdown, full precision otherwise)",
    )
    group.add_argument(
        "--all-columns",
        action="store_true",
        help="show every column in table and markdown output (csv and json always have all)",
    )
    group.add_argument(
        "--no-progress",
        action="store_true",
        help="never show a progress bar (shown on a terminal when reading or scoring many files)",
    )


def with_file_level(summary: pd.DataFrame, name: str = TOTAL) -> pd.DataFrame:
    """``summary`` indexed by ``label`` as rows of file ``name``."""
    out = summary.copy()
    out.index = pd.MultiIndex.from_arrays(
        [pd.Index([name] * len(out), dtype=object), pd.Index(list(out.index), dtype=object)],
        names=["file", out.index.name or "label"],
    )
    return out


def _integer_valued(values: pd.Series) -> bool:
    if not pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype):
        return False
    finite = values.to_numpy(dtype=float, na_value=np.nan)
    finite = finite[np.isfinite(finite)]
    return bool(len(finite)) and bool(np.all(finite == np.round(finite)))


def _formatted(table: pd.DataFrame, decimals: int) -> pd.DataFrame:
    """Cells as text: counts without decimals, other numbers rounded, NaN blank."""
    out = {}
    for column in table.columns:
        values = table[column]
        if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(
            values.dtype
        ):
            count = column in COUNT_COLUMNS or pd.api.types.is_integer_dtype(values.dtype)
            digits = 0 if count and _integer_valued(values) else decimals
            out[column] = [
                "" if pd.isna(v) else ("inf" if v == np.inf else "-inf" if v == -np.inf else f"{v:.{digits}f}")
                for v in values.to_numpy(dtype=float, na_value=np.nan)
            ]
        else:
            out[column] = ["" if _isna(v) else str(v) for v in values]
    return pd.DataFrame(out, index=table.index, columns=table.columns)


def _integer_counts(table: pd.DataFrame, counts: Sequence[str]) -> pd.DataFrame:
    """``table`` with its ``counts`` columns as nullable integers (empty where NaN).

    The family reports keep counts as float (NaN in the ``macro`` row);
    CSV and JSON write them as the integers they are (``1``, not ``1.0``).
    A column with a value that is not a whole number is left as it is.
    """
    names = [c for c in counts if c in table.columns]
    if not names:
        return table
    out = table.copy()
    for name in names:
        values = out[name].to_numpy(dtype=np.float64, na_value=np.nan)
        missing = np.isnan(values)
        whole = np.where(missing, 0.0, values)
        if np.isfinite(whole).all() and np.array_equal(whole, np.round(whole)):
            out[name] = pd.arrays.IntegerArray(whole.astype(np.int64), missing)
    return out


def _isna(value: object) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _index_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The index as leading columns (for csv, json and markdown)."""
    names = [n if n is not None else "" for n in table.index.names]
    out = table.copy()
    out.index = out.index.set_names(names)
    return out.reset_index()


def _markdown(table: pd.DataFrame, decimals: int) -> str:
    frame = _index_frame(_formatted(table, decimals))
    n_index = table.index.nlevels
    numeric = [False] * n_index + [
        pd.api.types.is_numeric_dtype(table[c].dtype) for c in table.columns
    ]
    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---:" if right else "---" for right in numeric) + "|"
    rows = [
        "| " + " | ".join(str(v).replace("|", "\\|") for v in record) + " |"
        for record in frame.itertuples(index=False)
    ]
    return "\n".join([header, rule, *rows])


def _table_text(table: pd.DataFrame, decimals: int) -> str:
    width = shutil.get_terminal_size((120, 24)).columns if sys.stdout.isatty() else 120
    text = _formatted(table, decimals)
    return text.to_string(line_width=max(width, 60), justify="right")


def render(
    result: Result, format: str, decimals: int | None, all_columns: bool = False
) -> str:
    """The text of ``result`` in ``format``."""
    if format == "table":
        digits = 3 if decimals is None else decimals
        parts = [
            f"{title}\n\n{_table_text(table, digits)}"
            for title, table in result.sections(all_columns)
        ]
        return "\n\n".join(parts) + "\n"
    if format == "markdown":
        digits = 3 if decimals is None else decimals
        parts = [
            f"### {title}\n\n{_markdown(table, digits)}"
            for title, table in result.sections(all_columns)
        ]
        return "\n\n".join(parts) + "\n"
    table = result.combined
    if decimals is not None:
        table = table.round(decimals)
    table = _integer_counts(table, result.counts)
    frame = _index_frame(table)
    if format == "csv":
        return frame.to_csv(index=False, lineterminator="\n")
    records = json.loads(frame.to_json(orient="records", double_precision=15))
    return json.dumps(records, indent=2) + "\n"


__all__ = ["COUNT_COLUMNS", "FORMATS", "TOTAL", "Result", "render", "with_file_level"]
