"""The structure statistics table: per-file sums in, per-file values out.

Structure metrics average per-file values (SPEC section 5),
so the table holds, per file, every sum that a file's value needs:
boundary counts and hits per window, the per-file median deviations,
and the contingency sums of the frame clusterings
(pair counts, cluster counts, entropies, mutual information
and its expectation).
Rows are files, so tables of disjoint sets of whole files add up
by concatenation, and a metric of a table of several files is
the mean over its rows of the per-file values.

Every metric computes its table (or takes one) and reduces it here:
the direct call and the call on a table run the same code.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval._core.ratios import divide
from audeval._core.ratios import fscore
from audeval._structure import boundaries as _boundaries
from audeval._structure import frames as _frames
from audeval._structure.options import Settings
from audeval._structure.options import window_column
from audeval._structure.prepare import Prepared
from audeval._core.validation import NS_PER_SECOND


GROUPS = frozenset({"boundary", "deviation", "pairs", "entropy", "emi"})
"""Column groups; a metric computes only the groups it reduces."""

BOUNDARY_COLUMNS = ("truth_boundaries", "prediction_boundaries")
DEVIATION_COLUMNS = ("truth_to_prediction_deviation", "prediction_to_truth_deviation")
BASE_COLUMNS = ("duration", "frames", "truth_clusters", "prediction_clusters")
PAIR_COLUMNS = ("pairs", "truth_pairs", "prediction_pairs", "all_pairs")
ENTROPY_COLUMNS = (
    "mutual_information",
    "truth_entropy",
    "prediction_entropy",
    "truth_given_prediction",
    "prediction_given_truth",
)
EMI_COLUMNS = ("expected_mutual_information",)

COLUMNS = (
    *BASE_COLUMNS,
    *BOUNDARY_COLUMNS,
    *DEVIATION_COLUMNS,
    *PAIR_COLUMNS,
    *ENTROPY_COLUMNS,
    *EMI_COLUMNS,
)
"""Columns of every table of :func:`structure_statistics` (besides ``hits_at_<window>``)."""


# -------------------------------------------------------------------------
# Statistics
# -------------------------------------------------------------------------


def _per_file(file: np.ndarray, values: np.ndarray, n_files: int) -> np.ndarray:
    return np.bincount(file, weights=values, minlength=n_files)


def _boundary_columns(prep: Prepared, options: Settings, groups: frozenset) -> dict:
    n_files = prep.n_files
    t, p = _boundaries.boundaries(prep, options.trim, options.pad)
    out: dict[str, np.ndarray] = {}
    if "boundary" in groups:
        out["truth_boundaries"] = _boundaries.boundary_counts(t, n_files)
        out["prediction_boundaries"] = _boundaries.boundary_counts(p, n_files)
        for window, ns in zip(options.windows, options.windows_ns):
            out[window_column(ns)] = _boundaries.hits(t, p, window, prep.compat, n_files)
    if "deviation" in groups:
        t_to_p, p_to_t = _boundaries.deviation_scores(t, p, prep.compat, n_files)
        out["truth_to_prediction_deviation"] = t_to_p
        out["prediction_to_truth_deviation"] = p_to_t
    return out


def _entropies(table: _frames.Contingency, n_files: int) -> dict:
    """MI and entropies in nats, conditional entropies in bits, per file."""
    f, nij, a, b, n = table.file, table.count, table.a, table.b, table.n
    with np.errstate(divide="ignore", invalid="ignore"):
        nf = n[f]
        p_ij = nij / nf
        mi = _per_file(f, p_ij * np.log(nf * nij / (a * b)), n_files)
        n_t = n[table.truth_file]
        h_t = -_per_file(
            table.truth_file, table.truth_size / n_t * np.log(table.truth_size / n_t), n_files
        )
        n_p = n[table.prediction_file]
        h_p = -_per_file(
            table.prediction_file,
            table.prediction_size / n_p * np.log(table.prediction_size / n_p),
            n_files,
        )
        h_t_given_p = -_per_file(f, p_ij * np.log2(nij / b), n_files)
        h_p_given_t = -_per_file(f, p_ij * np.log2(nij / a), n_files)
    return {
        "mutual_information": mi,
        "truth_entropy": h_t,
        "prediction_entropy": h_p,
        "truth_given_prediction": h_t_given_p,
        "prediction_given_truth": h_p_given_t,
    }


def _clustering_columns(prep: Prepared, options: Settings, groups: frozenset) -> dict:
    n_files = prep.n_files
    frames = options.frame_size is not None
    table = _frames.contingency(prep, options.frame_size)
    unit = 1.0 if frames else 0.0

    def pairs(x):
        return x * (x - unit) / 2.0

    out: dict[str, np.ndarray] = {
        "frames": table.n.astype(np.int64),
        "truth_clusters": np.bincount(table.truth_file, minlength=n_files).astype(np.int64),
        "prediction_clusters": np.bincount(table.prediction_file, minlength=n_files).astype(
            np.int64
        ),
    }
    if "pairs" in groups:
        out["pairs"] = _per_file(table.file, pairs(table.count), n_files)
        out["truth_pairs"] = _per_file(table.truth_file, pairs(table.truth_size), n_files)
        out["prediction_pairs"] = _per_file(
            table.prediction_file, pairs(table.prediction_size), n_files
        )
        out["all_pairs"] = pairs(table.n)
    if "entropy" in groups:
        out.update(_entropies(table, n_files))
    if "emi" in groups:
        out["expected_mutual_information"] = (
            _frames.expected_mutual_information(table, n_files)
            if frames
            else np.full(n_files, np.nan)
        )
    return out


def statistics_table(prep: Prepared, options: Settings, groups: frozenset = GROUPS) -> pd.DataFrame:
    """The per-file statistics of the column ``groups`` (all: the public table)."""
    columns: dict[str, np.ndarray] = {
        "duration": prep.extent.astype("m8[ns]"),
    }
    if groups & {"boundary", "deviation"}:
        columns.update(_boundary_columns(prep, options, groups))
    if groups & {"pairs", "entropy", "emi"}:
        columns.update(_clustering_columns(prep, options, groups))
    order = [c for c in COLUMNS if c in columns]
    hits = [c for c in columns if c.startswith("hits_at_")]
    position = order.index("prediction_boundaries") + 1 if hits else len(order)
    order[position:position] = hits
    return pd.DataFrame(
        {c: columns[c] for c in order}, index=pd.Index(prep.files, name="file")
    )


# -------------------------------------------------------------------------
# Reductions: per-file values from the table
# -------------------------------------------------------------------------


def _column(table: pd.DataFrame, name: str) -> np.ndarray:
    if name not in table.columns:
        raise ValueError(
            f"the statistics table lacks the column {name!r}: "
            "pass a table from structure_statistics."
        )
    values = table[name].to_numpy()
    if values.dtype.kind == "m":
        return values.astype("m8[ns]").view(np.int64)
    return values


def hits_column(table: pd.DataFrame, window_ns: int | None) -> str:
    """The hits column of a window (``None``: the table's only window, else 0.5 s)."""
    available = [c for c in table.columns if isinstance(c, str) and c.startswith("hits_at_")]
    if window_ns is None:
        if len(available) == 1:
            return available[0]
        window_ns = NS_PER_SECOND // 2
        if window_column(window_ns) not in available:
            raise ValueError(
                f"the statistics table has the windows {available}: pass window= to choose one."
            )
    name = window_column(window_ns)
    if name not in available:
        raise ValueError(
            f"the statistics table has no column {name!r} (it has {available}): "
            f"pass window={window_ns / NS_PER_SECOND:g} to structure_statistics "
            "and compute the metric from that table."
        )
    return name


def detection_values(table: pd.DataFrame, column: str, beta: float) -> tuple:
    """Precision, recall, F-measure per file."""
    return _boundaries.detection_values(
        _column(table, column),
        _column(table, "truth_boundaries"),
        _column(table, "prediction_boundaries"),
        beta,
    )


def deviation_values(table: pd.DataFrame) -> tuple:
    """Truth-to-prediction and prediction-to-truth median deviations per file (s)."""
    return tuple(np.asarray(_column(table, c), dtype=np.float64) for c in DEVIATION_COLUMNS)


def _pair_values(c: Mapping, beta: float, which: frozenset) -> dict:
    s_ij, s_a, s_b, s_n = (c[k] for k in ("pairs", "truth_pairs", "prediction_pairs", "all_pairs"))
    out = {}
    if "pairwise" in which:
        precision = divide(s_ij, s_b)
        recall = divide(s_ij, s_a)
        out["pairwise_precision"] = precision
        out["pairwise_recall"] = recall
        out["pairwise_f_measure"] = fscore(precision, recall, beta=beta, propagate_nans=True)
    if "rand" in which:
        out["rand_index"] = divide(s_n + 2 * s_ij - s_a - s_b, s_n)
    if "ari" in which:
        expected = divide(s_a * s_b, s_n, 0.0)
        ari = divide(s_ij - expected, (s_a + s_b) / 2.0 - expected)
        k_t, k_p, n = c["truth_clusters"], c["prediction_clusters"], c["frames"]
        special = (k_t == k_p) & ((k_t <= 1) | (k_t == n))
        out["adjusted_rand_index"] = np.where(special, 1.0, ari)
    return out


def _information_values(c: Mapping, which: frozenset) -> dict:
    """MI, AMI, NMI; AMI and NMI 1.0 for identical trivial clusterings."""
    k_t, k_p, n = c["truth_clusters"], c["prediction_clusters"], c["frames"]
    mi, h_t, h_p = c["mutual_information"], c["truth_entropy"], c["prediction_entropy"]
    single = (k_t == k_p) & (k_t <= 1)
    # every frame its own cluster on both sides: E[MI] = MI = H, an exact 0 / 0
    singletons = (k_t == k_p) & (k_t == n) & (n >= 2)
    nmi = mi / np.maximum(np.sqrt(h_t * h_p), 1e-10)
    out = {
        "mutual_information": mi,
        "normalized_mutual_information": np.where(single, 1.0, nmi),
    }
    if "ami" in which:
        emi = c["expected_mutual_information"]
        ami = divide(mi - emi, np.maximum(h_t, h_p) - emi)
        ami = np.where(single | singletons, 1.0, ami)
        out["adjusted_mutual_information"] = np.where(np.isnan(emi), np.nan, ami)
    return out


def _entropy_values(c: Mapping, beta: float, which: frozenset) -> dict:
    k_t, k_p = c["truth_clusters"], c["prediction_clusters"]
    h_t_given_p, h_p_given_t = c["truth_given_prediction"], c["prediction_given_truth"]
    h_t, h_p = c["truth_entropy"], c["prediction_entropy"]
    out = {}
    for key, z_t, z_p in (
        ("nce", np.log2(np.maximum(k_t, 1)), np.log2(np.maximum(k_p, 1))),
        ("v", h_t / np.log(2), h_p / np.log(2)),
    ):
        if key not in which:
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            under = np.where(z_t > 0, 1.0 - h_t_given_p / z_t, 0.0)
            over = np.where(z_p > 0, 1.0 - h_p_given_t / z_p, 0.0)
        names = (
            ("nce_over", "nce_under", "nce_f_measure")
            if key == "nce"
            else ("v_precision", "v_recall", "v_measure")
        )
        out[names[0]] = over
        out[names[1]] = under
        out[names[2]] = fscore(over, under, beta=beta, propagate_nans=True)
    return out


CLUSTERING_GROUPS = {
    "pairwise": frozenset({"pairs"}),
    "rand": frozenset({"pairs"}),
    "ari": frozenset({"pairs"}),
    "mi": frozenset({"entropy"}),
    "ami": frozenset({"entropy", "emi"}),
    "nce": frozenset({"entropy"}),
    "v": frozenset({"entropy"}),
}
"""Statistics groups that each group of clustering values needs."""


def clustering_values(
    table: pd.DataFrame, beta: float, which: frozenset = frozenset(CLUSTERING_GROUPS)
) -> dict[str, np.ndarray]:
    """Per-file clustering values of the groups ``which``.

    ``pairwise``, ``rand``, ``ari``, ``mi`` (MI and NMI), ``ami`` (also MI and NMI),
    ``nce``, ``v``.
    Files without truth (``duration`` 0) have every value 0.0.
    """
    needed = set(BASE_COLUMNS)
    for key in which:
        for group in CLUSTERING_GROUPS[key]:
            needed |= set({"pairs": PAIR_COLUMNS, "entropy": ENTROPY_COLUMNS, "emi": EMI_COLUMNS}[group])
    c = {name: _column(table, name) for name in needed}
    c["frames"] = np.asarray(c["frames"], dtype=np.float64)
    out: dict[str, np.ndarray] = {}
    if which & {"pairwise", "rand", "ari"}:
        out.update(_pair_values(c, beta, which))
    if which & {"mi", "ami"}:
        out.update(_information_values(c, which))
    if which & {"nce", "v"}:
        out.update(_entropy_values(c, beta, which))
    no_truth = c["duration"] == 0
    out = {k: np.array(v, dtype=np.float64) for k, v in out.items()}  # never views of the table
    for values in out.values():
        values[no_truth] = 0.0
    return out


def mean(values: np.ndarray, empty: float) -> float:
    """Mean over files ignoring NaN; NaN if every file is NaN; ``empty`` if there is no file."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return float(empty)
    if np.isnan(values).all():
        return float("nan")
    return float(np.nanmean(values))
