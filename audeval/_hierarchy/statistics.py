"""Per-file statistics of the hierarchy metrics, and their reduction."""

from __future__ import annotations

import numpy as np
import pandas as pd

from audeval._hierarchy import counts as _counts
from audeval._hierarchy.inputs import prepare
from audeval._hierarchy.inputs import validate
from audeval._hierarchy.options import HIERARCHY
from audeval._hierarchy.options import Settings
from audeval._hierarchy.options import settings
from audeval._core.ratios import fscore


COLUMNS = ("duration",) + tuple(
    f"{measure}_{direction}_{part}"
    for measure in _counts.MEASURES
    for direction in ("precision", "recall")
    for part in ("score", "queries")
)
"""Columns of every table of :func:`hierarchy_statistics`."""


def _exclude_self_labels(g: np.ndarray, self_t: np.ndarray, self_p: np.ndarray) -> np.ndarray:
    """mir_eval leaves the query frame out of its own results."""
    r = np.arange(g.shape[0])[:, None, None]
    e = np.arange(g.shape[1])[None, :, None]
    return g - ((self_t[None, None, :] >= r) & (self_p[None, None, :] >= e))


def _frames(axis, n_files: int) -> tuple[np.ndarray, np.ndarray]:
    """``file, position`` of every frame of every file."""
    n = axis.n.astype(np.int64)
    file = np.repeat(np.arange(n_files), n)
    start = np.cumsum(n) - n
    return file, np.arange(int(n.sum()), dtype=np.int64) - np.repeat(start, n)


def _t_columns(axis, at, options: Settings, n_files: int) -> dict:
    options.check_window()
    if options.window is not None and not axis.frames:  # exact: an integral over the query point
        sums = _counts.windowed_scores(axis, n_files, options.window_units, options.monotonic, at)  # type: ignore[arg-type]  # window is not None here
    else:
        if options.window is not None:  # counts change within an atom: one query per frame
            file, pos = _frames(axis, n_files)
            weight = np.ones(len(file))
            held = _counts.holding(at, n_files, file, pos)
        else:  # counts are constant on atoms
            file, pos = at.file, at.start
            weight = at.length.astype(np.float64)
            held = (at.truth, at.prediction)
        g = _counts.interval_counts(axis, held, file, pos, options.window_units, options.monotonic)
        if options.compat:
            g = g - (g > 0)
        sums = _counts.scores(g, file, weight, n_files, (False, True))
    return {
        f"{name}_{key}": values
        for name, transitive in (("t_reduced", False), ("t_full", True))
        for key, values in sums[transitive].items()
    }


def _l_columns(axis, at, options: Settings, n_files: int) -> dict:
    weight = at.length.astype(np.float64)
    g, self_t, self_p = _counts.label_counts(axis, at, weight, options.monotonic)
    if options.compat:
        g = _exclude_self_labels(g, self_t, self_p)
    sums = _counts.scores(g, at.file, weight, n_files, (True,))
    return {f"l_{key}": values for key, values in sums[True].items()}


def statistics_table(
    truth, prediction, options: Settings, files_duration, which=frozenset({"t", "l"})
) -> pd.DataFrame:
    """Per-file statistics of the measures ``which`` (``"t"``, ``"l"``)."""
    t_side, p_side, files = validate(truth, prediction, files_duration)
    n_files = len(files)
    axis = prepare(t_side, p_side, n_files, options.frame_size, options.compat)
    columns = {"duration": axis.extent.astype("m8[ns]")}
    at = _counts.atoms(axis, n_files)
    if "t" in which:
        columns.update(_t_columns(axis, at, options, n_files))
    if "l" in which:
        columns.update(_l_columns(axis, at, options, n_files))
    for name in list(columns):
        if name.endswith("_queries") and not np.isnan(columns[name]).any():
            columns[name] = np.rint(columns[name]).astype(np.int64)
    ordered = {c: columns[c] for c in COLUMNS if c in columns}
    return pd.DataFrame(ordered, index=pd.Index(files, name="file"))


def gate(metric, truth, prediction, options, which) -> pd.DataFrame:
    """The statistics table of a metric call: computed from hierarchies (the measures ``which``),
    or given and checked against the options the caller gave."""
    if prediction is not None:
        return statistics_table(truth, prediction, settings(options), options.files_duration, which)
    return HIERARCHY.table(metric, truth, prediction, None, options)


def _column(table: pd.DataFrame, name: str) -> np.ndarray:
    if name not in table.columns:
        raise ValueError(
            f"the statistics table lacks the column {name!r}: "
            "pass a table from hierarchy_statistics."
        )
    return np.asarray(table[name].to_numpy(), dtype=np.float64)


def values(table: pd.DataFrame, measure: str, beta: float) -> tuple[np.ndarray, ...]:
    """Precision, recall, F-measure per file (0 where no query counts, as mir_eval)."""
    out = []
    for direction in ("precision", "recall"):
        score = _column(table, f"{measure}_{direction}_score")
        queries = _column(table, f"{measure}_{direction}_queries")
        with np.errstate(divide="ignore", invalid="ignore"):
            out.append(np.where(queries > 0, score / queries, np.where(np.isnan(queries), np.nan, 0.0)))
    precision, recall = out
    return precision, recall, fscore(precision, recall, beta=beta, propagate_nans=True)


def mean(values: np.ndarray) -> float:
    """Mean over files; 0.0 without files (mir_eval's 0 / 0 convention)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return 0.0
    return float(np.mean(values))
