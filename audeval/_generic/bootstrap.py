"""Bootstrap confidence intervals over files (SPEC section 8).

Files are resampled with replacement;
the statistics of a resample are the sum of its files' statistics
(additivity, SPEC section 2).
All resamples are summed at once:
the per-file counts form a ``(files, labels x columns)`` array
(the family's declared schema: additive columns and label blocks,
or the per-file counts its ``file_counts`` derives from the table)
and the resamples a ``(n_boot, files)`` multinomial count matrix,
so their sums are one matrix product,
and the family's ``reduce`` turns all of them into metric values in one call.
A metric the family does not reduce on arrays
(reports, a user's function of a table, a mapping over all files)
is called on a statistics table per resample.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import copy
import dataclasses
import numbers
import warnings

import numpy as np
import pandas as pd

from audeval._core.protocol import Family
from audeval._generic.resample import _Arrays, _storage, _table_labels, resampled_files
from audeval._generic.registry import family_of, reduce, split_options, statistics_of
from audeval._core.intervals import expand_ranges
from audeval._core.tables import label_index
from audeval._core.warnings import warn


MIN_FILES = 3
"""Fewer files give no confidence interval (NaN bounds and a warning)."""


class BootstrapWarning(UserWarning):
    """A bootstrap confidence interval could not be estimated."""


@dataclasses.dataclass(frozen=True)
class BootstrapResult:
    """Metric value with its percentile bootstrap confidence interval.

    ``value``, ``low``, ``high`` and ``standard_error``
    have the type the metric returns
    (a float, or a dict per label, or a Series/DataFrame).
    """

    value: object
    """The metric over all files (the direct call)."""
    low: object
    """Lower bound: the :math:`(1 - c) / 2` quantile of the resampled metrics."""
    high: object
    """Upper bound: the :math:`(1 + c) / 2` quantile of the resampled metrics."""
    standard_error: object
    """Standard deviation of the resampled metrics."""
    confidence: float
    """Confidence level :math:`c`."""
    n_boot: int
    """Number of resamples."""
    n_files: int
    """Number of files resampled."""
    distribution: np.ndarray
    """Metric of every resample, shape ``(n_boot,) + shape of the metric``."""

    @property
    def confidence_interval(self) -> tuple[object, object]:
        """``(low, high)``."""
        return self.low, self.high

    def __repr__(self) -> str:
        def show(x):
            return f"{x:.4g}" if isinstance(x, numbers.Real) else repr(x)

        return (
            f"BootstrapResult(value={show(self.value)}, "
            f"low={show(self.low)}, high={show(self.high)}, "
            f"confidence={self.confidence}, n_boot={self.n_boot}, n_files={self.n_files})"
        )


# -------------------------------------------------------------------------
# Values of any shape
# -------------------------------------------------------------------------


def _to_array(value: object) -> np.ndarray:
    if isinstance(value, Mapping):
        return np.asarray(list(value.values()), dtype=np.float64)
    if isinstance(value, (pd.Series, pd.DataFrame)):
        return value.to_numpy(dtype=np.float64, na_value=np.nan)
    return np.asarray(value, dtype=np.float64)


def _like(template: object, array: np.ndarray) -> object:
    if isinstance(template, Mapping):
        return {key: float(v) for key, v in zip(template.keys(), array)}
    if isinstance(template, pd.Series):
        return pd.Series(array, index=template.index, name=template.name)
    if isinstance(template, pd.DataFrame):
        return pd.DataFrame(array, index=template.index, columns=template.columns)
    if np.ndim(array) == 0:
        return float(array)
    return array


# -------------------------------------------------------------------------
# Resample tables
# -------------------------------------------------------------------------


RESAMPLE = "resample"


def _restore(values: np.ndarray, dtype) -> np.ndarray:
    dtype = np.dtype(dtype) if not isinstance(dtype, np.dtype) else dtype
    if dtype.kind == "m":
        return np.rint(values).astype(np.int64).view("m8[ns]")
    if dtype.kind in "iu":
        return np.rint(values).astype(dtype)
    return values.astype(dtype, copy=False)


def _check_columns(stats: pd.DataFrame) -> list:
    if not isinstance(stats, pd.DataFrame):
        raise TypeError(f"statistics must be a DataFrame; got {type(stats).__name__}.")
    if "file" not in (stats.index.names or []):
        raise ValueError(
            f"statistics must have an index level 'file'; got {list(stats.index.names)}."
        )
    bad = [
        c
        for c, dtype in zip(stats.columns, stats.dtypes)  # (no column taken out to read its dtype)
        if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype))
    ]
    if bad:
        raise ValueError(f"statistics columns {bad} are neither numbers nor durations.")
    return list(stats.columns)


class _Pooled:
    """Resamples summed over their files into one pseudo-file (one row per label).

    The per-file statistics are a ``(files, labels x columns)`` array,
    so the sums of all resamples are one product with the count matrix.
    """

    def __init__(self, stats: pd.DataFrame, files: pd.Index, by_label: bool):
        self.columns = _check_columns(stats)
        self.attrs = stats.attrs
        self.dtypes = {
            c: stats[c].dtype.subtype if isinstance(stats[c].dtype, pd.SparseDtype) else stats[c].dtype
            for c in self.columns
        }
        file_codes = files.get_indexer(pd.Index(stats.index.get_level_values("file"), dtype=object))
        self.n_files = len(files)
        if by_label:
            labels, row_codes = _table_labels(stats)
            self.rows = pd.MultiIndex.from_arrays(
                [pd.Index([RESAMPLE] * len(labels), dtype=object), label_index(labels)],
                names=["file", "label"],
            )
        else:  # index ["file"]
            row_codes = np.zeros(len(stats), dtype=np.int64)
            self.rows = pd.Index([RESAMPLE], dtype=object, name="file")
        n_rows, n_columns = len(self.rows), len(self.columns)
        # (files, rows x columns) as a sparse matrix of the values the table holds:
        # memory in proportion to the table, never to files x labels
        file_codes = np.asarray(file_codes, np.int64)
        row_codes = np.asarray(row_codes, np.int64)
        entries_file, entries_cell, entries_value = [], [], []
        for k, column in enumerate(self.columns):
            array = stats[column].array
            if isinstance(array.dtype, pd.SparseDtype):
                where = np.asarray(array.sp_index.indices, dtype=np.int64)
                value = _storage(array.sp_values)
            else:
                value = _storage(np.asarray(array))
                where = np.flatnonzero(value)
                value = value[where]
            entries_file.append(file_codes[where])
            entries_cell.append(row_codes[where] * n_columns + k)
            entries_value.append(value)
        from scipy import sparse

        def joined(parts, dtype):
            return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)

        self.values = sparse.csr_matrix(
            (
                joined(entries_value, np.float64),
                (joined(entries_file, np.int64), joined(entries_cell, np.int64)),
            ),
            shape=(self.n_files, n_rows * n_columns),
        )
        self.values.sum_duplicates()

    def tables(self, counts: np.ndarray):
        """Statistics table of every resample (rows of ``counts``)."""
        n_rows, n_columns = len(self.rows), len(self.columns)
        transposed = self.values.T.tocsr()
        chunk = 64  # resamples summed at once: memory independent of n_boot
        for first in range(0, len(counts), chunk):
            part = np.asarray(counts[first : first + chunk], dtype=np.float64)
            if self.values.shape[1] and self.values.shape[0]:
                sums = np.asarray(transposed @ part.T).T
            else:
                sums = np.zeros((len(part), self.values.shape[1]))
            for flat in sums:
                block = flat.reshape(n_rows, n_columns)
                table = pd.DataFrame(
                    {c: _restore(block[:, k], self.dtypes[c]) for k, c in enumerate(self.columns)},
                    index=self.rows,
                )
                table.attrs = copy.deepcopy(self.attrs)
                yield table


class _Multiset:
    """Resamples as tables of their files, a file drawn twice appearing twice.

    For families whose metrics depend on more than the sums over files
    (diarization: a label mapping per file).
    The files of a resample are renamed 0, 1, ... in the order of the draw.
    """

    def __init__(self, stats: pd.DataFrame, files: pd.Index):
        self.columns = _check_columns(stats)
        self.stats = stats
        index = stats.index
        self.file_level = list(index.names).index("file")
        file_codes = files.get_indexer(pd.Index(index.get_level_values("file"), dtype=object))
        self.n_files = len(files)
        self.order = np.argsort(file_codes, kind="stable")
        self.length = np.bincount(file_codes, minlength=self.n_files).astype(np.int64)
        self.first = np.cumsum(self.length) - self.length
        self.values = {c: stats[c].to_numpy() for c in self.columns}

    def tables(self, counts: np.ndarray):
        index = self.stats.index
        arange = np.arange(self.n_files, dtype=np.int64)
        for row in counts:
            drawn = np.repeat(arange, row)
            new_file, item = expand_ranges(self.first[drawn], self.first[drawn] + self.length[drawn])
            rows = self.order[item]
            files = pd.Index(np.arange(len(drawn)), name="file")
            if isinstance(index, pd.MultiIndex):
                levels = list(index.levels)
                codes = [np.asarray(c)[rows] for c in index.codes]
                levels[self.file_level] = files
                codes[self.file_level] = new_file
                new_index = pd.MultiIndex(
                    levels=levels, codes=codes, names=index.names, verify_integrity=False
                )
            else:
                new_index = files.take(new_file)
            table = pd.DataFrame({c: v[rows] for c, v in self.values.items()}, index=new_index)
            table.attrs = copy.deepcopy(self.stats.attrs)
            yield table


def table_resamples(family: Family, stats: pd.DataFrame, files: pd.Index) -> _Pooled | _Multiset:
    """Resamples as statistics tables, for metrics without an array reduction."""
    rest = [name for name in family.index if name != "file"]
    if family.pooled and rest in ([], ["label"]) and list(stats.index.names) == list(family.index):
        return _Pooled(stats, files, by_label=bool(rest))
    return _Multiset(stats, files)


# -------------------------------------------------------------------------
# Bootstrap
# -------------------------------------------------------------------------


def _check(n_boot, confidence) -> tuple[int, float]:
    if isinstance(n_boot, bool) or not isinstance(n_boot, numbers.Integral) or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer; got {n_boot!r}.")
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        raise TypeError(f"confidence must be a float in (0, 1); got {confidence!r}.")
    if not 0 < confidence < 1:  # type: ignore[operator]  # a numbers.Real (typeshed declares no comparison)
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}.")
    return int(n_boot), float(confidence)


def _generator(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, numbers.Integral) and not isinstance(seed, bool)):
        return np.random.default_rng(seed)  # type: ignore[arg-type]  # an Integral or None (numpy's stubs do not know numbers.Integral)
    raise TypeError(f"seed must be an int, a numpy Generator or None; got {seed!r}.")


def resample_counts(n_files: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """``(n_boot, n_files)`` counts: how often each file is in each resample.

    Each row is a multinomial draw of ``n_files`` from ``n_files`` equally likely files
    (drawn as file indices and counted, which is the same distribution and faster).
    """
    draws = rng.integers(0, n_files, size=(n_boot, n_files))
    offset = (np.arange(n_boot, dtype=np.int64) * n_files)[:, None]
    counts = np.bincount((draws + offset).ravel(), minlength=n_boot * n_files)
    return counts.reshape(n_boot, n_files)


def bootstrap(
    metric: Callable,
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: int | np.random.Generator | None = 0,
    family: str | None = None,
    **options,
) -> BootstrapResult:
    r"""Percentile bootstrap confidence interval of a metric over files.

    The files are resampled with replacement ``n_boot`` times.
    The statistics of a resample are the sum of the statistics of its files
    (a file drawn twice counts twice),
    and the metric of a resample is the metric function
    applied to those pooled statistics,
    so every metric that accepts a statistics table can be bootstrapped:
    ``metric(resample_statistics, None, **metric_options)``.
    Where the metric's family reduces it on arrays (its declared ``reduce``),
    all resamples are computed at once from the per-file counts
    (the same numbers, without a table per resample).
    Every file of the inputs is a resampling unit,
    also one without events (listed in ``files_duration``
    or by a reader in ``attrs["files"]``).
    The interval is given by the percentiles

    .. math::

        \left[q_{(1 - c) / 2},\ q_{(1 + c) / 2}\right]

    of the resampled metrics (NaN resamples left out),
    where :math:`c` is ``confidence``.
    ``value`` is the metric over all files,
    identical to the direct call.

    The resampling unit is the file, as files are the independent units
    of an evaluation (events within a file are not).
    With fewer than 3 files no interval is estimated:
    ``low``, ``high`` and ``standard_error`` are NaN
    and a :class:`BootstrapWarning` is issued.

    Args:
        metric: a metric function of audeval (e.g. :func:`audeval.event_fscore`)
            or any function ``f(statistics, None, **options)``
            of a family's statistics table (then pass ``family``)
        truth: truth (audformat segmented index),
            or a statistics table of the metric's family
        prediction: prediction, ``None`` when ``truth`` is a statistics table
        labels: labels to evaluate (as for the metric)
        n_boot: number of resamples
        confidence: confidence level in (0, 1)
        seed: seed of the random generator (or a ``numpy.random.Generator``);
            the same seed gives the same interval; ``None``: fresh entropy
        family: metric family, if it cannot be told from ``metric``
        **options: options of the metric and of its statistics function
            (``average``, tolerances, ...)

    Returns:
        the value, the interval, the standard error and the resampled values

    Raises:
        TypeError, ValueError: on invalid arguments or input

    Examples:
        >>> import audformat
        >>> import audeval
        >>> files = [f"f{i}" for i in range(4)]
        >>> truth = pd.Series(
        ...     ["a", "a", "a", "a"],
        ...     index=audformat.segmented_index(files, [0.0] * 4, [1.0] * 4),
        ... )
        >>> prediction = pd.Series(
        ...     ["a", "a", "a", "a"],
        ...     index=audformat.segmented_index(files, [0.0, 0.0, 0.0, 2.0], [1.0] * 3 + [3.0]),
        ... )
        >>> result = audeval.bootstrap(audeval.event_fscore, truth, prediction, n_boot=200, seed=1)
        >>> result.value, result.low, result.high
        (0.75, 0.25, 1.0)

    """
    n_boot, confidence = _check(n_boot, confidence)
    rng = _generator(seed)
    fam = family_of(metric, family)
    statistics_options, metric_options = split_options(fam, metric, options)
    stats = statistics_of(fam, truth, prediction, labels, statistics_options, metric)
    labels = None if labels is None else list(labels)

    value = reduce(metric, stats, labels, metric_options, fam)
    template = _to_array(value)
    _check_columns(stats)
    files = resampled_files(
        stats, fam, (truth, prediction), statistics_options.get("files_duration")
    )
    n_files = len(files)

    if n_files < MIN_FILES:
        warn(
            f"bootstrap over files needs at least {MIN_FILES} files; got {n_files}: "
            "the confidence interval is NaN.",
            BootstrapWarning,
        )
        nan = np.full(template.shape, np.nan)
        return BootstrapResult(
            value,
            _like(value, nan),
            _like(value, nan),
            _like(value, nan),
            confidence,
            n_boot,
            n_files,
            np.full((0,) + template.shape, np.nan),
        )

    arrays = _Arrays.of(fam, metric, stats, files, labels, metric_options, template, value)
    distribution = np.empty((n_boot,) + template.shape, dtype=np.float64)
    # resamples in chunks so that the count matrix stays small
    chunk = max(1, min(n_boot, 2**22 // max(n_files, 1)))
    done = 0
    tables = None
    while done < n_boot:
        size = min(chunk, n_boot - done)
        counts = resample_counts(n_files, size, rng)
        if arrays is not None:
            distribution[done : done + size] = arrays(counts)
        else:
            if tables is None:
                tables = table_resamples(fam, stats, files)
            for k, table in enumerate(tables.tables(counts)):
                replicate = _to_array(reduce(metric, table, labels, metric_options, fam))
                if replicate.shape != template.shape:
                    raise ValueError(
                        "the metric returned values of different shapes for resamples; "
                        "pass labels=[...] so that every resample has the same labels."
                    )
                distribution[done + k] = replicate
        done += size

    alpha = (1 - confidence) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices give NaN
        low = np.nanquantile(distribution, alpha, axis=0)
        high = np.nanquantile(distribution, 1 - alpha, axis=0)
        standard_error = np.nanstd(distribution, axis=0, ddof=1)
    return BootstrapResult(
        value,
        _like(value, low),
        _like(value, high),
        _like(value, standard_error),
        confidence,
        n_boot,
        n_files,
        distribution,
    )


__all__ = ["BootstrapResult", "BootstrapWarning", "bootstrap"]
