"""Paired comparison of systems on the same files (issue 28): ``audeval.compare``.

Every system is evaluated on the same files, and files are the resampling unit:

* ``method="bootstrap"``: one ``(resamples, files)`` count matrix is drawn
  and applied to every system (paired: a resample holds the same files for all),
  each system's resampled values come from its family's array reduction
  (the matrix product of :mod:`audeval._generic.resample`), else from a table per resample;
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
import numbers

import numpy as np
import pandas as pd

from audeval._generic.bootstrap import _check_columns, _generator
from audeval._generic.compare.arrays import _resample
from audeval._generic.compare.inference import _adjust, _bootstrap_p, _intervals, _permutation_p
from audeval._generic.compare.sources import _separation_sources, _Table
from audeval._core.protocol import is_table, table_family
from audeval._generic.registry import family_of, split_options, statistics_of
from audeval._generic.resample import resampled_files


METHODS = ("bootstrap", "permutation")
INTERVALS = ("percentile", "bca")
CORRECTIONS = ("holm", "bonferroni", "bh")


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
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or not 0 < confidence < 1:  # type: ignore[operator]  # a numbers.Real (typeshed declares no comparison)
        raise ValueError(f"confidence must be a float in (0, 1); got {confidence!r}.")
    return names


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
    strata: Mapping[object, object] | pd.Series | None = None,
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
        strata: file -> stratum (e.g. a domain or a recording condition):
            the bootstrap draws each stratum's files from that stratum only,
            as many as it has; every file must be named
        seed: seed of the random generator (or a ``numpy.random.Generator``)
        **options: options of the metric and of its statistics function

    Returns:
        one row per system (index ``system``): ``value``, ``low``, ``high``,
        ``difference`` (to the baseline), ``difference_low``, ``difference_high``,
        ``p_value``, ``p_adjusted`` (the baseline's row: difference 0 with interval [0, 0],
        p-values NaN);
        with ``pairwise=True`` one row per ordered pair (index ``system``, ``other``):
        ``difference`` (system minus other), its interval, ``p_value`` and ``p_adjusted``
        (corrected over the unordered pairs).
        ``attrs["compare"]`` records the method, resamples, files, strata and baseline,
        and whether the permutation test was exact

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
    union = _union(sources, names)
    values = np.array([float(sources[name].value) for name in names])
    # the rows: (system, other) index pairs; the baseline's row compares it with itself
    if pairwise:
        rows = [(i, j) for i in range(len(names)) for j in range(len(names)) if i != j]
    else:
        rows = [(i, names.index(baseline)) for i in range(len(names))]
    first, second = np.array([i for i, _ in rows]), np.array([j for _, j in rows])

    codes = _strata(strata, union)
    distribution, jackknife = _resample(sources, names, union, n_resamples, interval, rng, codes)
    low, high = _intervals(distribution, values, jackknife, confidence, interval)
    differences = distribution[:, first] - distribution[:, second]
    observed = np.array([sources[names[i]].value - sources[names[j]].value for i, j in rows], dtype=np.float64)
    jack_differences = None if jackknife is None else jackknife[:, first] - jackknife[:, second]
    difference_low, difference_high = _intervals(differences, observed, jack_differences, confidence, interval)
    p = _p_values(method, rows, [sources[name] for name in names], differences, observed, n_resamples, rng)
    columns = {
        "difference": observed,
        "difference_low": np.where(first == second, 0.0, difference_low),
        "difference_high": np.where(first == second, 0.0, difference_high),
        "p_value": p,
        "p_adjusted": _corrected(p, rows, correction),
    }
    if pairwise:
        index = pd.MultiIndex.from_tuples([(names[i], names[j]) for i, j in rows], names=["system", "other"])
        result = pd.DataFrame(columns, index=index)
    else:
        result = pd.DataFrame({"value": values, "low": low, "high": high, **columns}, index=pd.Index(names, name="system"))
        result["value"] = [sources[name].value for name in names]  # the direct values themselves
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
        "n_files": len(union),
        "strata": None if codes is None else int(codes.max()) + 1,
        "exact": method == "permutation" and 2 ** len(union) <= n_resamples,
    }
    return result


def _strata(strata, union: pd.Index) -> np.ndarray | None:
    """A stratum code per file of ``union`` (``None``: no strata)."""
    if strata is None:
        return None
    if isinstance(strata, Mapping):
        strata = pd.Series(dict(strata), dtype=object)
    if not isinstance(strata, pd.Series):
        raise TypeError(f"strata must be a mapping or Series file -> stratum; got {type(strata).__name__}.")
    position = pd.Index(strata.index, dtype=object).get_indexer(union)
    if (position < 0).any():
        missing = list(union[position < 0][:5])
        raise ValueError(
            f"strata must name every file; {int((position < 0).sum())} are missing, first: {missing}."
        )
    codes, _ = pd.factorize(strata.to_numpy(dtype=object)[position])
    if (codes < 0).any():
        raise ValueError("strata must not be missing (NaN) for a file.")
    return codes


def _union(sources: dict, names: list) -> pd.Index:
    """The files of all systems: the first system's in its order, then the others' new ones."""
    union = sources[names[0]].files
    for name in names[1:]:
        files = sources[name].files
        new = files[~files.isin(union)]
        if len(new):
            union = union.append(new)
    return union


def _p_values(method, rows, sources, differences, observed, n_resamples, rng) -> np.ndarray:
    """The p-value of every row (NaN for a system against itself); a permutation test
    of an unordered pair is run once (the test of (a, b) is the test of (b, a))."""
    p = np.full(len(rows), np.nan)
    tested = np.array([i != j for i, j in rows])
    if method == "bootstrap":
        if len(differences):
            p[tested] = _bootstrap_p(differences[:, tested], observed[tested])
        return p
    done: dict = {}
    for k, (i, j) in enumerate(rows):  # (pairs of systems, not files)
        if i == j:
            continue
        key = (min(i, j), max(i, j))
        if key not in done:
            done[key] = _permutation_p(sources[key[0]], sources[key[1]], n_resamples, rng)
        p[k] = done[key]
    return p


def _corrected(p: np.ndarray, rows: list, correction: str | None) -> np.ndarray:
    """Adjusted p-values over the distinct tests (an unordered pair is one test)."""
    keys = [(min(i, j), max(i, j)) for i, j in rows]
    distinct = {key: k for k, key in enumerate(keys) if key[0] != key[1]}
    adjusted = _adjust(np.array([p[k] for k in distinct.values()]), correction)
    by_key = dict(zip(distinct, adjusted))
    return np.array([by_key.get(key, np.nan) for key in keys], dtype=np.float64)


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
            inputs: tuple = (prediction,)
        else:
            if truth is None:
                raise TypeError(f"truth is None, but predictions[{name!r}] is no statistics table.")
            stats = statistics_of(family, truth, prediction, labels, statistics_options, metric)
            inputs = (truth, prediction)
        _check_columns(stats)
        files = resampled_files(stats, family, inputs, statistics_options.get("files_duration"))
        out[name] = _Table(family, metric, stats, files, labels, metric_options, component)
    return out


__all__ = ["compare"]
