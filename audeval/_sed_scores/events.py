"""From frame scores to events: thresholds per class, optional median filter, merged runs."""

from __future__ import annotations

from collections.abc import Mapping
import numbers

import numpy as np
import pandas as pd

from audeval._core.options import check_duration
from audeval._sed_scores.inputs import _check_consecutive, _frames


def _thresholds(threshold, classes: list) -> np.ndarray:
    if isinstance(threshold, Mapping):
        missing = [c for c in classes if c not in threshold]
        if missing:
            raise ValueError(f"threshold has no value for classes {missing}.")
        unknown = [c for c in threshold if c not in classes]
        if unknown:
            raise ValueError(
                f"threshold names classes that scores lacks: {unknown}; scores has {classes}."
            )
        values = [threshold[c] for c in classes]
    else:
        values = [threshold] * len(classes)
    for value in values:
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or np.isnan(value):  # type: ignore[call-overload]  # a numbers.Real (numpy's stubs do not know it)
            raise TypeError(f"threshold must be a float or a mapping class -> float; got {value!r}.")
    return np.asarray(values, dtype=np.float64)


def _window(median_filter, start, end, file) -> int:
    """Odd window length in frames of a median filter given in seconds."""
    ns = check_duration(median_filter, "median_filter")
    length = end - start
    if len(length) and (length != length[0]).any():
        raise ValueError("median_filter needs frames of one length; the score table mixes lengths.")
    hop = int(length[0]) if len(length) else 1
    frames = max(1, int(round(ns / hop)))  # type: ignore[operator]  # called with a median_filter only (the caller checks None)
    return frames if frames % 2 else frames + 1


def _median(active: np.ndarray, file: np.ndarray, width: int) -> np.ndarray:
    """Majority vote over ``width`` frames per file and class (scipy's ``reflect`` edges)."""
    n = len(file)
    half = width // 2
    first = np.maximum.accumulate(np.where(np.r_[True, file[1:] != file[:-1]], np.arange(n), 0))
    last = np.minimum.accumulate(np.where(np.r_[file[1:] != file[:-1], True], np.arange(n), n)[::-1])[::-1]
    votes = np.zeros(active.shape, dtype=np.int64)
    position = np.arange(n)
    for offset in range(-half, half + 1):  # the window, not the frames
        j = position + offset
        j = np.where(j < first, 2 * first - j - 1, j)
        j = np.where(j > last, 2 * last - j + 1, j)
        j = np.clip(j, first, last)
        votes += active[j]
    return votes > half


def scores_to_events(
    scores: pd.DataFrame,
    *,
    threshold: float | Mapping[object, float] = 0.5,
    median_filter: float | pd.Timedelta | None = None,
) -> pd.Series:
    r"""Events of a score table: runs of frames whose score exceeds a threshold.

    A frame is active for a class where its score is :math:`> \theta_c`
    (``threshold``, one value or one per class: the rule of :func:`fscore_at`);
    with ``median_filter`` (seconds) the activity is smoothed by a median
    (majority vote) over the odd number of frames nearest to that duration,
    edges mirrored as ``scipy.ndimage.median_filter``;
    consecutive active frames of a class form one event from the start of the first
    to the end of the last.

    Args:
        scores: score table (segmented index of consecutive frames, a column per class)
        threshold: decision threshold, or a mapping class -> threshold
        median_filter: length of the median filter in seconds (frames of one length);
            ``None``: no filter

    Returns:
        events with a segmented index, sorted by file and start,
        labels categorical in column order

    Raises:
        TypeError, ValueError: invalid scores or options
            (a ``threshold`` mapping must name every class of ``scores`` and no other)

    Examples:
        >>> import audformat
        >>> from audeval import scores_to_events
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.6, 0.3, 0.7], "b": [0.1] * 4}, index=index)
        >>> scores_to_events(scores)
        file  start            end
        f     0 days 00:00:00  0 days 00:00:02    a
              0 days 00:00:03  0 days 00:00:04    a
        dtype: category
        Categories (2, object): ['a', 'b']

    """
    frame, codes, start, end = _frames(scores, "scores")
    _check_consecutive(frame, codes, start, end, "scores")
    classes = list(scores.columns)
    values = frame[classes].to_numpy(dtype=np.float64)
    if np.isnan(values).any():
        raise ValueError("scores holds NaN scores.")
    active = values > _thresholds(threshold, classes)
    if median_filter is not None:
        active = _median(active, codes, _window(median_filter, start, end, codes))
    n = len(codes)
    new_file = np.r_[True, codes[1:] != codes[:-1]]
    end_file = np.r_[codes[1:] != codes[:-1], True]
    previous = np.vstack([np.zeros((1, len(classes)), bool), active[:-1]]) & ~new_file[:, None]
    following = np.vstack([active[1:], np.zeros((1, len(classes)), bool)]) & ~end_file[:, None]
    onset_frame, onset_class = np.nonzero(active & ~previous)
    offset_frame, offset_class = np.nonzero(active & ~following)
    order_on = np.lexsort((onset_frame, onset_class))
    order_off = np.lexsort((offset_frame, offset_class))
    first, label = onset_frame[order_on], onset_class[order_on]
    last = offset_frame[order_off]
    files = frame.index.get_level_values("file")
    order = np.lexsort((label, start[first], codes[first])) if n else np.zeros(0, dtype=np.int64)
    first, last, label = first[order], last[order], label[order]
    index = pd.MultiIndex.from_arrays(
        [files[first], pd.to_timedelta(start[first], unit="ns"), pd.to_timedelta(end[last], unit="ns")],
        names=["file", "start", "end"],
    )
    values = pd.Categorical.from_codes(label, categories=pd.Index(classes, dtype=object))
    return pd.Series(values, index=index)
