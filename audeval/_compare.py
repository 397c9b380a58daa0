"""Paired comparison of systems on the same files (issue 28): ``audeval.compare``.

Every system is evaluated on the same files, and files are the resampling unit:

* ``method="bootstrap"``: one ``(resamples, files)`` count matrix is drawn
  and applied to every system (paired: a resample holds the same files for all),
  each system's resampled values come from its family's array reduction
  (the matrix product of :mod:`audeval._resample`), else from a table per resample;
* ``method="permutation"``: paired approximate randomization between two systems:
  the per-file statistics of a file are swapped between the two systems or not;
  for a family reduced on arrays a chunk of swaps is one product of the 0/1 swap matrix
  with the per-file differences of the two systems' counts
  (else both tables side by side as ``2 n`` files and a swap a 0/1 count row over them).
  All ``2 ** n`` swaps when ``2 ** n <= n_resamples`` (exact), else random swaps;
  the p-value follows :func:`scipy.stats.permutation_test` (two-sided, its tie tolerance,
  the observed statistic counted once more for random swaps), which the tests check.
  scipy's function itself is not called: it draws paired permutations one resample
  at a time in a Python loop (10,000 swaps of 1,168 files took ~1 s per pair,
  most of it there), and its statistic would have to turn index arrays back into counts.

:func:`scipy.stats.bootstrap` is not used for the bootstrap:
it draws its own resamples per call (one statistic would have to return every system,
computed from resampled index arrays turned back into counts), and one NaN resample
(a metric undefined on a resample, e.g. an F-score of a resample without events)
makes its percentile interval NaN (checked with scipy 1.17);
here NaN resamples are left out as in :func:`audeval.bootstrap`,
and BCa is computed from the same paired resamples with a jackknife on count rows
(:func:`scipy.stats.norm` for its quantiles).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import copy
import numbers
import warnings

import numpy as np
import pandas as pd
import scipy.stats

from audeval._bootstrap import (
    MIN_FILES,
    BootstrapWarning,
    _check_columns,
    _generator,
    _to_array,
    resample_counts,
    table_resamples,
)
from audeval._protocol import Counts, is_table, table_family
from audeval._registry import family_of, reduce, split_options, statistics_of
from audeval._resample import _Arrays, _Lazy, resampled_files
from audeval._warnings import warn


METHODS = ("bootstrap", "permutation")
INTERVALS = ("percentile", "bca")
CORRECTIONS = ("holm", "bonferroni", "bh")
CHUNK_CELLS = 2**22
"""Count-matrix cells (resamples x files) summed at once: memory independent of ``n_resamples``."""


# -------------------------------------------------------------------------
# Sources: the per-file statistics of one system and its metric on count rows
# -------------------------------------------------------------------------


def _pick(value: object, component: object) -> tuple[float, int | None]:
    """The number of a metric's value that is compared, and its position in the value's array."""
    array = _to_array(value)
    if array.ndim == 0 and component is None:
        return value, None
    if component is None:
        raise ValueError(
            f"the metric returned {len(array.ravel())} numbers ({_short(value)}): "
            "compare needs one number per system; pass component= (the position or key "
            "of the number to compare), or an option that makes the metric return one number "
            "(e.g. average='micro')."
        )
    if isinstance(value, Mapping):
        keys = list(value)
        if component not in keys:
            raise ValueError(f"component must be one of {keys}; got {component!r}.")
        return value[component], keys.index(component)
    if isinstance(value, pd.Series):
        keys = list(value.index)
        if component not in keys:
            raise ValueError(f"component must be one of {keys}; got {component!r}.")
        return value[component], keys.index(component)
    if array.ndim != 1:
        raise ValueError(f"component cannot select one number of {_short(value)}.")
    if isinstance(component, bool) or not isinstance(component, numbers.Integral):
        raise TypeError(f"component must be an int position for a tuple value; got {component!r}.")
    if not -len(array) <= component < len(array):
        raise ValueError(f"component must be a position in 0..{len(array) - 1}; got {component!r}.")
    return value[component], int(component) % len(array)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class _Table:
    """A system's statistics table and its metric on count rows over its files."""

    def __init__(self, family, metric, stats, files, labels, metric_options, component, value=None):
        self.family = family
        self.metric = metric
        self.stats = stats
        self.files = files
        self.labels = labels
        self.metric_options = metric_options
        self.component = component
        full = reduce(metric, stats, labels, metric_options, family) if value is None else value
        self.full = full
        self.value, self.position = _pick(full, component)
        self.arrays = _Arrays.of(
            family, metric, stats, files, labels, metric_options, _to_array(full), full
        )
        self.tables = None

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        """The compared number for every row of ``counts`` (``(rows, files)``)."""
        if self.arrays is not None:
            out = np.asarray(self.arrays(counts), dtype=np.float64)
        else:
            if self.tables is None:
                self.tables = table_resamples(self.family, self.stats, self.files)
            shape = _to_array(self.full).shape
            out = np.empty((len(counts),) + shape)
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                for k, table in enumerate(self.tables.tables(counts)):
                    replicate = _to_array(
                        reduce(self.metric, table, self.labels, self.metric_options, self.family)
                    )
                    out[k] = replicate if replicate.shape == shape else np.nan
        return out if self.position is None else out[:, self.position]

    def renamed(self, union: pd.Index, offset: int) -> pd.DataFrame:
        """The table with its files named by position in ``union`` plus ``offset``."""
        index = self.stats.index
        if isinstance(index, pd.MultiIndex):
            k = index.names.index("file")
            level = index.levels[k]
            names = union.get_indexer(pd.Index(level, dtype=object)) + offset
            new_index = index.set_levels(pd.Index(names, dtype=np.int64), level=k)
        else:
            new_index = pd.Index(
                union.get_indexer(pd.Index(index, dtype=object)) + offset, name="file"
            )
        out = self.stats.set_axis(new_index, axis=0)
        out.attrs = copy.deepcopy(self.stats.attrs)
        return out

    def paired(self, other: _Table, union: pd.Index) -> _Table:
        """Both systems' tables side by side as ``2 n`` files (self first)."""
        n = len(union)
        table = pd.concat([self.renamed(union, 0), other.renamed(union, n)])
        table.attrs = copy.deepcopy(self.stats.attrs)
        files = pd.Index(np.arange(2 * n, dtype=np.int64), dtype=object)
        return _Table(
            self.family, self.metric, table, files, self.labels, self.metric_options, self.component
        )

    def same(self, other: _Table) -> bool:
        return self.stats.equals(other.stats) and list(self.files) == list(other.files)


class _FileValues:
    """Per-file values (``audeval.separation`` tables): the mean or median over files."""

    def __init__(self, values: np.ndarray, files: pd.Index, how: str, value: float):
        self.values = np.asarray(values, dtype=np.float64)
        self.files = files
        self.how = how
        self.value = value
        self.valid = ~np.isnan(self.values)
        self.order = np.argsort(np.where(self.valid, self.values, np.inf), kind="stable")

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        counts = np.asarray(counts, dtype=np.float64)
        weight = counts * self.valid
        total = weight.sum(axis=1)
        with np.errstate(all="ignore"):
            if self.how == "mean":
                return (weight @ np.where(self.valid, self.values, 0.0)) / total
            # weighted median: the middle one or two of the sorted multiset
            sorted_values = self.values[self.order]
            cumulative = np.cumsum(weight[:, self.order], axis=1)
            low = np.argmax(cumulative > ((total - 1) // 2)[:, None], axis=1)
            high = np.argmax(cumulative > (total // 2)[:, None], axis=1)
            out = (sorted_values[low] + sorted_values[high]) / 2
        return np.where(total > 0, out, np.nan)

    def paired(self, other: _FileValues, union: pd.Index) -> _FileValues:
        n = len(union)
        values = np.full(2 * n, np.nan)
        values[union.get_indexer(self.files)] = self.values
        values[n + union.get_indexer(other.files)] = other.values
        files = pd.Index(np.arange(2 * n, dtype=np.int64), dtype=object)
        return _FileValues(values, files, self.how, np.nan)

    def same(self, other: _FileValues) -> bool:
        return list(self.files) == list(other.files) and np.array_equal(
            self.values, other.values, equal_nan=True
        )


def _separation_sources(predictions: Mapping, options: dict) -> dict[str, _FileValues]:
    from audeval.separation import aggregate

    how = options.pop("how", "mean")
    column = options.pop("column", None)
    unknown = sorted(set(options) - {"level"})
    if unknown:
        raise TypeError(f"unknown options {unknown} for audeval.separation.aggregate (column=, how=).")
    level = options.pop("level", "all")
    if level != "all":
        raise ValueError(f"level must be 'all' for compare (one number per system); got {level!r}.")
    out = {}
    for name, table in predictions.items():
        per_file = aggregate(table, how=how, level="file")
        if "source" in per_file.index.names:
            per_file = getattr(per_file.groupby(level="file", sort=False), how)()
        numeric = list(per_file.columns)
        if column is None:
            if len(numeric) != 1:
                raise ValueError(
                    f"predictions[{name!r}] has the score columns {numeric}: pass column= one of them."
                )
            column = numeric[0]
        if column not in numeric:
            raise ValueError(f"column must be one of {numeric}; got {column!r}.")
        value = float(aggregate(table, how=how, level="all")[column].iloc[0])
        files = pd.Index(per_file.index, dtype=object)
        out[name] = _FileValues(per_file[column].to_numpy(dtype=np.float64), files, how, value)
    return out


# -------------------------------------------------------------------------
# Checks
# -------------------------------------------------------------------------


def _check_choice(value, name, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}; got {value!r}.")
    return value


def _check_arguments(predictions, baseline, n_resamples, confidence) -> list:
    if not isinstance(predictions, Mapping):
        raise TypeError(
            "predictions must be a mapping system name -> prediction; "
            f"got {type(predictions).__name__}."
        )
    names = list(predictions)
    if len(names) < 2:
        raise ValueError(f"predictions must hold at least two systems; got {names}.")
    if baseline is not None and baseline not in predictions:
        raise ValueError(f"baseline must be one of the systems {names}; got {baseline!r}.")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer; got {n_resamples!r}.")
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or not 0 < confidence < 1:
        raise ValueError(f"confidence must be a float in (0, 1); got {confidence!r}.")
    return names


# -------------------------------------------------------------------------
# Intervals, tests, corrections
# -------------------------------------------------------------------------


def _percentile(distribution: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = (1 - confidence) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns give NaN
        low = np.nanquantile(distribution, alpha, axis=0)
        high = np.nanquantile(distribution, 1 - alpha, axis=0)
    return low, high


def _bca(distribution, observed, jackknife, confidence) -> tuple[np.ndarray, np.ndarray]:
    """BCa bounds per column (Efron 1987); a degenerate column gets its percentile bounds."""
    low, high = _percentile(distribution, confidence)
    alpha = (1 - confidence) / 2
    z = scipy.stats.norm.ppf([alpha, 1 - alpha])
    for k in range(distribution.shape[1]):  # (systems or pairs, not files)
        column = distribution[:, k]
        column = column[~np.isnan(column)]
        jack = jackknife[:, k]
        jack = jack[~np.isnan(jack)]
        if not len(column) or len(jack) < 2 or np.isnan(observed[k]):
            continue
        below = (np.sum(column < observed[k]) + 0.5 * np.sum(column == observed[k])) / len(column)
        if not 0 < below < 1:
            continue
        z0 = scipy.stats.norm.ppf(below)
        deviation = jack.mean() - jack
        denominator = 6.0 * np.sum(deviation**2) ** 1.5
        a = np.sum(deviation**3) / denominator if denominator > 0 else 0.0
        levels = scipy.stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
        if not np.all(np.isfinite(levels)):
            continue
        low[k], high[k] = np.quantile(column, levels)
    return low, high


def _bootstrap_p(difference: np.ndarray, observed: np.ndarray) -> np.ndarray:
    r"""Two-sided p-value of a paired bootstrap: the resampled differences centred on the observed one
    are the null distribution, ``(1 + #{|d* - d| >= |d|}) / (B + 1)``."""
    valid = ~np.isnan(difference)
    extreme = (np.abs(difference - observed) >= np.abs(observed)) & valid
    n = valid.sum(axis=0)
    with np.errstate(all="ignore"):
        p = (1.0 + extreme.sum(axis=0)) / (1.0 + n)
    return np.where(np.isnan(observed), np.nan, p)


def _adjust(p: np.ndarray, correction: str | None) -> np.ndarray:
    r"""Adjusted p-values over the tests (NaN left out): Holm's step-down,
    Bonferroni, or Benjamini-Hochberg (:func:`scipy.stats.false_discovery_control`)."""
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    valid = ~np.isnan(p)
    m = int(valid.sum())
    if correction is None or m == 0:
        return p.copy() if correction is None else out
    values = p[valid]
    if correction == "bonferroni":
        adjusted = np.minimum(values * m, 1.0)
    elif correction == "bh":
        adjusted = scipy.stats.false_discovery_control(values, method="bh")
    else:  # holm: (m - i) p_(i), made monotone
        order = np.argsort(values, kind="stable")
        scaled = np.minimum((m - np.arange(m)) * values[order], 1.0)
        adjusted = np.empty(m)
        adjusted[order] = np.maximum.accumulate(scaled)
    out[valid] = adjusted
    return out


def _swap_statistic(first, second) -> tuple[Callable, int]:
    """``f(swap) -> d``: the difference ``second - first`` after swapping the files where
    ``swap`` (``(rows, n)`` of 0/1) is 1, and ``n``, the number of files.

    For a family reduced on arrays, the swapped sums are
    :math:`T_1 + s (V_2 - V_1)` and :math:`T_2 - s (V_2 - V_1)`
    (:math:`V_k` the per-file counts, :math:`T_k` their totals): one product per chunk of swaps.
    Otherwise both systems' tables side by side as ``2 n`` files, swaps as 0/1 count rows.
    """
    union = first.files.append(second.files[~second.files.isin(first.files)])
    n = len(union)
    pair = first.paired(second, union)
    arrays = getattr(pair, "arrays", None)
    read = _read_keys(arrays) if isinstance(arrays, _Arrays) else None
    if read is None or any(key not in arrays.values for key in read):

        def generic(swap):
            a = pair(np.concatenate([1.0 - swap, swap], axis=1))
            b = pair(np.concatenate([swap, 1.0 - swap], axis=1))
            return b - a

        return generic, n

    delta = {key: v[n:] - v[:n] for key, v in arrays.values.items()}
    total_first = {key: v[:n].sum(axis=0) for key, v in arrays.values.items()}
    total_second = {key: v[n:].sum(axis=0) for key, v in arrays.values.items()}
    slices, offset = {}, 0
    for key in read:
        slices[key] = slice(offset, offset + delta[key].shape[1])
        offset += delta[key].shape[1]
    matrix = np.hstack([delta[key] for key in read]) if read else np.zeros((n, 0))

    def on_arrays(swap):
        moved = swap @ matrix

        def summed(totals, sign):
            def of(key):
                part = moved[:, slices[key]] if key in slices else swap @ delta[key]
                return (totals[key] + sign * part).reshape((len(swap),) + arrays.shapes[key])

            return of

        second_values = _reduced(arrays, pair.position, summed(total_second, -1.0))
        return second_values - _reduced(arrays, pair.position, summed(total_first, 1.0))

    return on_arrays, n


def _permutation_p(first, second, n_resamples: int, rng: np.random.Generator) -> float:
    r"""Two-sided p-value of paired approximate randomization of ``second - first``.

    The conventions of :func:`scipy.stats.permutation_test` (``permutation_type="samples"``):
    exact over all :math:`2^n` swaps when :math:`2^n \le` ``n_resamples`` (the observed
    difference is one of them), else ``n_resamples`` random swaps and the observed one counted
    once more; :math:`p = \min(1, 2 \min(P(D \le d), P(D \ge d)))` with scipy's relative
    tolerance for ties. scipy itself is not called: its paired permutations are drawn
    one resample at a time (a Python loop), here all swaps of a chunk at once.
    """
    if first.same(second):
        return 1.0  # every swap gives the same two systems: difference 0 throughout
    statistic, n = _swap_statistic(first, second)
    observed = float(statistic(np.zeros((1, n)))[0])
    if np.isnan(observed):
        return np.nan
    exact = n < 63 and 2**n <= n_resamples
    total = 2**n if exact else n_resamples
    gamma = abs(np.finfo(np.float64).eps * 100 * observed)
    less = greater = 0
    chunk = max(1, CHUNK_CELLS // max(n, 1))
    done = 0
    while done < total:
        size = min(chunk, total - done)
        if exact:
            codes = np.arange(done, done + size, dtype=np.int64)
            swap = ((codes[:, None] >> np.arange(n, dtype=np.int64)) & 1).astype(np.float64)
        else:
            swap = (rng.random((size, n)) < 0.5).astype(np.float64)
        null = statistic(swap)
        less += int(np.count_nonzero(null <= observed + gamma))
        greater += int(np.count_nonzero(null >= observed - gamma))
        done += size
    adjustment = 0 if exact else 1
    p_less = (less + adjustment) / (total + adjustment)
    p_greater = (greater + adjustment) / (total + adjustment)
    return float(np.clip(2 * min(p_less, p_greater), 0.0, 1.0))


# -------------------------------------------------------------------------
# compare
# -------------------------------------------------------------------------


def compare(
    metric: Callable,
    truth: pd.Series | pd.DataFrame | None,
    predictions: Mapping[str, object],
    labels: Sequence[object] | None = None,
    *,
    baseline: str | None = None,
    method: str = "bootstrap",
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    interval: str = "percentile",
    correction: str | None = "holm",
    pairwise: bool = False,
    component: object = None,
    seed: int | np.random.Generator | None = 0,
    **options,
) -> pd.DataFrame:
    r"""Compare systems on the same files: values, paired intervals and significance tests.

    Every system is evaluated with ``metric`` on the same ``truth``;
    ``value`` is the direct metric, identical to calling it.
    Files are the resampling unit (events within a file are not independent),
    and the comparison is paired: a bootstrap resample draws the same files for every system,
    and a permutation swaps a file's statistics between two systems.

    Bootstrap (``method="bootstrap"``): ``B = n_resamples`` resamples of the files
    with replacement; :math:`\theta^*_{s,b}` is system :math:`s` on resample :math:`b`
    and :math:`d^*_{s,b} = \theta^*_{s,b} - \theta^*_{0,b}` its difference to the baseline.
    The intervals are the percentiles :math:`[q_{(1-c)/2}, q_{(1+c)/2}]`
    of the resampled values (``interval="percentile"``)
    or their bias-corrected and accelerated version (``interval="bca"``,
    acceleration from the jackknife over files). The two-sided p-value of
    :math:`H_0: \delta = 0` centres the resampled differences on the observed :math:`d`:

    .. math::

        p = \frac{1 + \#\{b : |d^*_b - d| \ge |d|\}}{1 + B}

    Permutation (``method="permutation"``, paired approximate randomization):
    each file's statistics are swapped between the system and the baseline or not,
    the statistic is the difference :math:`d` of the two metrics,
    and the two-sided p-value is that of :func:`scipy.stats.permutation_test`,
    :math:`\min(1, 2 \min(P(D \le d), P(D \ge d)))`,
    exact over all :math:`2^n` swaps when :math:`2^n \le` ``n_resamples``
    (else ``(1 + #) / (1 + n_resamples)`` from random swaps).
    The intervals are the bootstrap's in both methods.

    ``p_adjusted`` corrects the p-values of all tests of the result:
    Holm's step-down :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1) p_{(j)})`
    (``"holm"``), ``"bonferroni"``, ``"bh"`` (Benjamini-Hochberg), or ``None``.

    Args:
        metric: a registered metric of audeval (events, segments, scores incl.
            :func:`audeval.psds`, diarization, detection, structure, hierarchy),
            or :func:`audeval.separation.aggregate` for tables of
            :func:`audeval.separation.evaluate` (then ``truth=None``,
            options ``column=`` and ``how="mean"|"median"``)
        truth: truth of all systems (as for the metric); ``None`` when the predictions
            are statistics tables or separation tables
        predictions: system name -> prediction (Series, score table,
            operating points, or a statistics table of the metric's family)
        labels: labels to evaluate (as for the metric)
        baseline: the system the others are compared with (default: the first)
        method: ``"bootstrap"`` or ``"permutation"``
        n_resamples: number of bootstrap resamples and of random swaps
        confidence: confidence level of the intervals in (0, 1)
        interval: ``"percentile"`` or ``"bca"``
        correction: ``"holm"``, ``"bonferroni"``, ``"bh"`` or ``None``
        pairwise: one row per ordered pair of systems instead of one per system
        component: for a metric returning several numbers (a tuple, or one per label),
            the position or key of the number to compare
        seed: seed of the random generator (or a ``numpy.random.Generator``)
        **options: options of the metric and of its statistics function

    Returns:
        one row per system (index ``system``): ``value``, ``low``, ``high``,
        ``difference`` (to the baseline), ``difference_low``, ``difference_high``,
        ``p_value``, ``p_adjusted`` (NaN for the baseline);
        with ``pairwise=True`` one row per ordered pair (index ``system``, ``other``):
        ``difference`` (system minus other), its interval, ``p_value`` and ``p_adjusted``
        (corrected over the unordered pairs).
        ``attrs["compare"]`` records the method, resamples, files and baseline

    Raises:
        TypeError, ValueError: on invalid arguments or input

    Examples:
        >>> import audformat
        >>> import audeval
        >>> files = [f"f{i}" for i in range(6)]
        >>> truth = pd.Series(["a"] * 6, index=audformat.segmented_index(files, [0.0] * 6, [1.0] * 6))
        >>> good = truth.copy()
        >>> starts, ends = [0.0] * 3 + [2.0] * 3, [1.0] * 3 + [3.0] * 3
        >>> bad = pd.Series(["a"] * 6, index=audformat.segmented_index(files, starts, ends))
        >>> result = audeval.compare(
        ...     audeval.event_fscore, truth, {"bad": bad, "good": good}, method="permutation"
        ... )
        >>> result.loc["good", ["value", "difference", "p_value"]].tolist()
        [1.0, 0.5, 0.25]

        Three files differ; the difference is 0.5 or more in 1 of their 8 swaps
        (none swapped), so :math:`p = 2 \cdot 1/8`, exact over all :math:`2^6` swaps.

    """
    names = _check_arguments(predictions, baseline, n_resamples, confidence)
    _check_choice(method, "method", METHODS)
    _check_choice(interval, "interval", INTERVALS)
    if correction is not None:
        _check_choice(correction, "correction", CORRECTIONS)
    if not isinstance(pairwise, bool):
        raise TypeError(f"pairwise must be True or False; got {pairwise!r}.")
    n_resamples = int(n_resamples)
    confidence = float(confidence)
    rng = _generator(seed)
    baseline = names[0] if baseline is None else baseline

    sources = _sources(metric, truth, predictions, labels, component, options)
    union = sources[names[0]].files
    for name in names[1:]:
        files = sources[name].files
        new = files[~files.isin(union)]
        if len(new):
            union = union.append(new)
    n_files = len(union)
    values = np.array([float(sources[name].value) for name in names])

    # pairs: (system, other) of the rows, and the unordered tests
    if pairwise:
        rows = [(i, j) for i in range(len(names)) for j in range(len(names)) if i != j]
    else:
        b = names.index(baseline)
        rows = [(i, b) for i in range(len(names))]

    distribution, jackknife = _resample(sources, names, union, n_resamples, interval, rng)
    low, high = _intervals(distribution, values, jackknife, confidence, interval)
    first = np.array([i for i, _ in rows])
    second = np.array([j for _, j in rows])
    differences = distribution[:, first] - distribution[:, second]
    observed = np.array([sources[names[i]].value - sources[names[j]].value for i, j in rows], dtype=np.float64)
    jack_differences = None if jackknife is None else jackknife[:, first] - jackknife[:, second]
    difference_low, difference_high = _intervals(
        differences, observed, jack_differences, confidence, interval
    )

    tested = np.array([i != j for i, j in rows])
    p = np.full(len(rows), np.nan)
    if method == "bootstrap":
        p[tested] = _bootstrap_p(differences[:, tested], observed[tested])
    else:
        done: dict = {}
        for k, (i, j) in enumerate(rows):
            if i == j:
                continue
            key = (min(i, j), max(i, j))
            if key not in done:  # the test of (a, b) is the test of (b, a)
                done[key] = _permutation_p(
                    sources[names[key[0]]], sources[names[key[1]]], n_resamples, rng
                )
            p[k] = done[key]
    if distribution.shape[0] == 0:
        difference_low[:] = difference_high[:] = np.nan
        if method == "bootstrap":
            p[:] = np.nan
    # correction over the distinct tests (an unordered pair is one test)
    keys = [(min(i, j), max(i, j)) for i, j in rows]
    distinct = {key: k for k, key in enumerate(keys) if key[0] != key[1]}
    adjusted_distinct = _adjust(np.array([p[k] for k in distinct.values()]), correction)
    by_key = dict(zip(distinct, adjusted_distinct))
    p_adjusted = np.array([by_key.get(key, np.nan) for key in keys])
    if correction is None:
        p_adjusted[:] = np.nan

    if pairwise:
        index = pd.MultiIndex.from_tuples(
            [(names[i], names[j]) for i, j in rows], names=["system", "other"]
        )
        result = pd.DataFrame(
            {
                "difference": observed,
                "difference_low": difference_low,
                "difference_high": difference_high,
                "p_value": p,
                "p_adjusted": p_adjusted,
            },
            index=index,
        )
    else:
        result = pd.DataFrame(
            {
                "value": values,
                "low": low,
                "high": high,
                "difference": observed,
                "difference_low": difference_low,
                "difference_high": difference_high,
                "p_value": p,
                "p_adjusted": p_adjusted,
            },
            index=pd.Index(names, name="system"),
        )
        result["value"] = [sources[name].value for name in names]  # the direct values themselves
        b = names.index(baseline)
        result.iloc[b, result.columns.get_indexer(["difference_low", "difference_high"])] = 0.0
    if correction is None:
        result = result.drop(columns="p_adjusted")
    result.attrs["compare"] = {
        "metric": getattr(metric, "__name__", str(metric)),
        "method": method,
        "n_resamples": n_resamples,
        "confidence": confidence,
        "interval": interval,
        "correction": correction,
        "baseline": None if pairwise else baseline,
        "n_files": n_files,
        "exact": method == "permutation" and 2**n_files <= n_resamples,
    }
    return result


def _sources(metric, truth, predictions, labels, component, options) -> dict:
    """One source per system: its per-file statistics and its metric on count rows."""
    from audeval.separation import aggregate

    if metric is aggregate:
        if truth is not None:
            raise TypeError("truth must be None for audeval.separation.aggregate (tables of evaluate).")
        if labels is not None or component is not None:
            raise TypeError("labels and component do not apply to audeval.separation.aggregate.")
        return _separation_sources(predictions, dict(options))
    family = family_of(metric)
    statistics_options, metric_options = split_options(family, metric, options)
    labels = None if labels is None else list(labels)
    out = {}
    for name, prediction in predictions.items():
        if is_table(prediction) and table_family(prediction) == family.name:
            if truth is not None:
                raise TypeError(
                    f"predictions[{name!r}] is a statistics table: pass truth=None "
                    "(a table holds the truth already)."
                )
            stats = statistics_of(family, prediction, None, labels, statistics_options, metric)
            inputs = (prediction,)
        else:
            if truth is None:
                raise TypeError(f"truth is None, but predictions[{name!r}] is no statistics table.")
            stats = statistics_of(family, truth, prediction, labels, statistics_options, metric)
            inputs = (truth, prediction)
        _check_columns(stats)
        files = resampled_files(stats, family, inputs, statistics_options.get("files_duration"))
        out[name] = _Table(family, metric, stats, files, labels, metric_options, component)
    return out


class _Recorded(_Lazy):
    """A lazy mapping that records the keys a reduction reads."""

    def __init__(self, make: dict, read: set):
        super().__init__(make)
        self._read = read

    def __getitem__(self, key):
        self._read.add(key)
        return super().__getitem__(key)


def _reduced(arrays: _Arrays, position: int | None, summed: Callable) -> np.ndarray:
    """The family's ``reduce`` of the sums ``summed(key)`` (each computed when it is read)."""
    columns = _Lazy({k: (lambda k=k: summed(k)) for k in arrays.values if not isinstance(k, tuple)})
    blocks = _Lazy({k[1]: (lambda k=k: summed(k)) for k in arrays.values if isinstance(k, tuple)})
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        out = np.asarray(
            arrays.family.reduce(Counts(columns, arrays.labels, blocks, arrays.recorded), arrays.options),
            dtype=np.float64,
        )
    return out if position is None else out[:, position]


def _read_keys(arrays: _Arrays) -> list | None:
    """The columns and blocks the family's ``reduce`` reads for this metric (one probe call)."""
    columns_read: set = set()
    blocks_read: set = set()
    n_files = len(next(iter(arrays.values.values()))) if arrays.values else 0
    ones = np.ones((1, n_files))

    def summed(name):
        return (ones @ arrays.values[name]).reshape((1,) + arrays.shapes[name])

    columns = _Recorded(
        {n: (lambda n=n: summed(n)) for n in arrays.values if not isinstance(n, tuple)}, columns_read
    )
    blocks = _Recorded(
        {n[1]: (lambda n=n: summed(n)) for n in arrays.values if isinstance(n, tuple)}, blocks_read
    )
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            arrays.family.reduce(Counts(columns, arrays.labels, blocks, arrays.recorded), arrays.options)
    except Exception:  # (the resamples call it again and raise there, if at all)
        return None
    return sorted(columns_read, key=str) + [("block", prefix) for prefix in sorted(blocks_read, key=str)]


class _Stacked:
    """The per-file counts that the systems' reductions read, side by side in one
    ``(files, columns)`` matrix over the union of files: every chunk of resamples
    is summed for all systems in one matrix product, then each system's ``reduce`` runs."""

    def __init__(self, sources: dict, names: list, union: pd.Index):
        self.sources = sources
        self.members: dict = {}
        self.full: dict = {}
        parts, offset = [], 0
        for name in names:
            arrays = getattr(sources[name], "arrays", None)
            if not isinstance(arrays, _Arrays):
                continue
            read = _read_keys(arrays)
            if read is None or any(key not in arrays.values for key in read):
                continue
            where = union.get_indexer(sources[name].files)
            full = {}
            for key, values in arrays.values.items():  # on the union of files
                full[key] = np.zeros((len(union), values.shape[1]))
                full[key][where] = values
            entries = {}
            for key in read:
                parts.append(full[key])
                entries[key] = slice(offset, offset + full[key].shape[1])
                offset += full[key].shape[1]
            self.members[name] = entries
            self.full[name] = full
        self.matrix = np.hstack(parts) if parts else np.zeros((len(union), 0))

    def __call__(self, counts: np.ndarray) -> dict:
        """The compared number of every stacked system on every row of ``counts``."""
        sums = counts @ self.matrix
        out = {}
        for name, entries in self.members.items():
            source = self.sources[name]
            arrays = source.arrays
            full = self.full[name]

            def of(key, entries=entries, arrays=arrays, full=full):
                part = sums[:, entries[key]] if key in entries else counts @ full[key]  # (unread: computed)
                return part.reshape((len(counts),) + arrays.shapes[key])

            out[name] = _reduced(arrays, source.position, of)
        return out


def _resample(sources, names, union, n_resamples, interval, rng):
    """Paired resamples ``(B, systems)`` (the same files for every system) and the jackknife."""
    n_files = len(union)
    where = {name: union.get_indexer(sources[name].files) for name in names}
    identity = {
        name: len(w) == n_files and bool(np.array_equal(w, np.arange(n_files))) for name, w in where.items()
    }
    stacked = _Stacked(sources, names, union) if n_files >= MIN_FILES else None

    def evaluate(counts, out, rows):
        done = stacked(counts)
        for k, name in enumerate(names):
            if name in done:
                out[rows, k] = done[name]
            else:
                out[rows, k] = sources[name](counts if identity[name] else counts[:, where[name]])

    if n_files < MIN_FILES:
        warn(
            f"the bootstrap over files needs at least {MIN_FILES} files; got {n_files}: "
            "the intervals (and the bootstrap's p-values) are NaN.",
            BootstrapWarning,
        )
        return np.zeros((0, len(names))), None
    distribution = np.empty((n_resamples, len(names)))
    chunk = max(1, min(n_resamples, CHUNK_CELLS // n_files))
    done = 0
    while done < n_resamples:
        size = min(chunk, n_resamples - done)
        counts = resample_counts(n_files, size, rng).astype(np.float64)
        evaluate(counts, distribution, slice(done, done + size))
        done += size
    jackknife = None
    if interval == "bca":
        jackknife = np.empty((n_files, len(names)))
        chunk = max(1, min(n_files, CHUNK_CELLS // n_files))
        for first in range(0, n_files, chunk):
            rows = np.arange(first, min(n_files, first + chunk))
            counts = np.ones((len(rows), n_files))
            counts[np.arange(len(rows)), rows] = 0.0
            evaluate(counts, jackknife, rows)
    return distribution, jackknife


def _intervals(distribution, observed, jackknife, confidence, interval):
    if distribution.shape[0] == 0:
        nan = np.full(distribution.shape[1], np.nan)
        return nan, nan.copy()
    if interval == "bca":
        return _bca(distribution, observed, jackknife, confidence)
    return _percentile(distribution, confidence)


__all__ = ["compare"]
