"""Every metric of audeval for every ordered pair of raters."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import inspect
import numbers

import numpy as np
import pandas as pd

from audeval._core import options as _options
from audeval._generic import registry as _registry
from audeval._agreement import as_mapping


def _scalar(value: object, metric: Callable, truth: object, prediction: object) -> float:
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    name = getattr(metric, "__name__", repr(metric))
    raise TypeError(
        f"agreement_matrix needs a metric that returns one number; {name}({truth!r}, "
        f"{prediction!r}) returned {type(value).__name__} (pass e.g. average='micro')."
    )


def _per_file(metric: Callable, mapping: dict, pair: tuple, labels, options: dict) -> pd.Series:
    """The metric of every file: the agreement metrics natively, the others from their table."""
    truth, prediction = mapping[pair[0]], mapping[pair[1]]
    if "per_file" in inspect.signature(metric).parameters:
        return metric(truth, prediction, labels, per_file=True, **options)
    family = _registry.family_of(metric)
    statistics_options, metric_options = _registry.split_options(family, metric, options)
    table = family.compute(truth, prediction, labels, statistics_options)
    files = table.index.get_level_values("file")
    values = {}
    for file in pd.unique(files):  # on request only: one reduction per file
        value = metric(table[files == file], None, **metric_options)
        values[file] = _scalar(value, metric, *pair)
    return pd.Series(values, dtype="float64")


def agreement_matrix(
    annotations: Mapping[object, pd.Series],
    metric: Callable | None = None,
    labels: Sequence[object] | None = None,
    *,
    per_file: bool = False,
    **options,
) -> pd.DataFrame:
    """A metric for every ordered pair of raters.

    Row ``i``, column ``j`` holds ``metric(annotations[i], annotations[j], **options)``:
    rater ``i`` as truth, rater ``j`` as prediction
    (asymmetric metrics such as error rates differ across the diagonal).
    The diagonal is NaN.
    Any metric of audeval that takes ``(truth, prediction)`` and returns a number works
    (:func:`audeval.event_fscore`, :func:`audeval.segment_error_rate`,
    :func:`audeval.cohen_kappa`, ...).

    Args:
        annotations: mapping rater -> Series, or an audformat Database
        metric: metric function; ``None``: :func:`audeval.event_fscore`
        labels: passed to the metric
        per_file: one block per file (rows ``(file, rater)``);
            the agreement metrics compute it at once, other metrics
            reduce their statistics table file by file
        **options: options of the metric (tolerances, ``average``, ...)

    Returns:
        DataFrame rater x rater (rows: truth, columns: prediction)

    Raises:
        TypeError: if the metric does not return a number
        ValueError: on invalid input

    Examples:
        >>> import audformat
        >>> from audeval import agreement_matrix, cohen_kappa
        >>> def rater(starts, ends, labels):
        ...     index = audformat.segmented_index(["f"] * len(starts), starts, ends)
        ...     return pd.Series(labels, index=index)
        >>> raters = {
        ...     "r1": rater([0.0, 2.0], [2.0, 4.0], ["a", "b"]),
        ...     "r2": rater([0.0, 3.0], [3.0, 4.0], ["a", "b"]),
        ...     "r3": rater([0.0, 2.0], [2.0, 4.0], ["a", "b"]),
        ... }
        >>> agreement_matrix(raters, metric=cohen_kappa)
             r1   r2   r3
        r1  NaN  0.5  1.0
        r2  0.5  NaN  0.5
        r3  1.0  0.5  NaN

    """
    mapping = as_mapping(annotations)
    per_file = _options.check_bool(per_file, "per_file")
    if metric is None:
        from audeval._events import event_fscore

        metric = event_fscore
    if not callable(metric):
        raise TypeError(f"metric must be a metric function; got {type(metric).__name__}.")
    raters = list(mapping)
    names = pd.Index(raters, dtype=object)
    if not per_file:
        out = pd.DataFrame(np.nan, index=names, columns=names)
        for i, truth in enumerate(raters):
            for j, prediction in enumerate(raters):
                if i != j:
                    value = metric(mapping[truth], mapping[prediction], labels, **options)
                    out.iloc[i, j] = _scalar(value, metric, truth, prediction)
        return out
    blocks = {}
    for truth in raters:
        columns = {
            prediction: _per_file(metric, mapping, (truth, prediction), labels, options)
            for prediction in raters
            if prediction != truth
        }
        block = pd.DataFrame(columns).reindex(columns=names)
        block.index.name = "file"
        blocks[truth] = block
    out = pd.concat(blocks, names=["rater", "file"]).swaplevel(0, 1).sort_index(level=0, sort_remaining=False)
    return out
