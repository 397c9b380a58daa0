"""Intervals, p-values and corrections of a comparison (bootstrap and paired swaps)."""

from __future__ import annotations

from collections.abc import Callable
import warnings

import numpy as np

from audeval._generic.compare.arrays import CHUNK_CELLS, _read_keys, _reduced
from audeval._generic.resample import _Arrays

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
    import scipy.stats  # (on first use: scipy.stats loads scipy.special and scipy.optimize)

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
        import scipy.stats

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
    if read is None or any(key not in arrays.values for key in read):  # type: ignore[union-attr]  # read is not None: arrays are _Arrays

        def generic(swap):
            a = pair(np.concatenate([1.0 - swap, swap], axis=1))
            b = pair(np.concatenate([swap, 1.0 - swap], axis=1))
            return b - a

        return generic, n

    delta = {key: v[n:] - v[:n] for key, v in arrays.values.items()}  # type: ignore[union-attr]  # read is not None: arrays are _Arrays
    total_first = {key: v[:n].sum(axis=0) for key, v in arrays.values.items()}  # type: ignore[union-attr]  # read is not None: arrays are _Arrays
    total_second = {key: v[n:].sum(axis=0) for key, v in arrays.values.items()}  # type: ignore[union-attr]  # read is not None: arrays are _Arrays
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
    direct = float(second.value) - float(first.value)
    if not np.isclose(observed, direct, rtol=1e-9, atol=1e-12):
        raise ValueError(
            f"the statistics of the two systems cannot be swapped file by file: with nothing "
            f"swapped their difference is {observed!r}, not {direct!r} "
            "(do their tables differ in labels? pass labels=[...])."
        )
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


def _intervals(distribution, observed, jackknife, confidence, interval):
    if distribution.shape[0] == 0:
        nan = np.full(distribution.shape[1], np.nan)
        return nan, nan.copy()
    if interval == "bca":
        return _bca(distribution, observed, jackknife, confidence)
    return _percentile(distribution, confidence)

