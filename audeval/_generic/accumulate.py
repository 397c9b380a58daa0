"""Accumulate statistics over validation batches (SPEC section 2).

Every registered family (:mod:`audeval._generic.registry`) has a statistics function
returning an additive table, and every metric of the family accepts such a table
in place of ``truth`` with ``prediction=None``.
:class:`Accumulator` collects the tables of validation batches
(:func:`audeval.sum_statistics`) and reduces their sum with the metric itself,
routing options as the family declares them.
Nothing here counts events or seconds itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from audeval._generic.bootstrap import bootstrap
from audeval._core.protocol import Parts, frame_of_parts
from audeval._generic.registry import (
    Batches,
    empty_statistics,
    family_of,
    reduce,
    split_options,
)
from audeval._generic.sum import _sortable_union, sum_statistics


class Accumulator:
    r"""Accumulate statistics over batches and compute metrics from their sum.

    For model-validation loops:
    :meth:`update` computes the statistics of a batch
    with the family's statistics function
    (e.g. :func:`audeval.event_statistics`),
    :meth:`compute` reduces the summed table
    with the metric function itself
    (``metric(statistics, None, **metric_options)``),
    so the result is identical to calling the metric
    on all batches at once,
    as long as every file is in one batch only
    (a file seen twice raises ``ValueError``).
    Each batch is evaluated with the durations of its own files;
    files of ``files_duration`` that no batch held
    are evaluated as files without events when the sum is taken
    (as a direct call on all batches evaluates them:
    pass the durations of the files to evaluate only).

    Options that the family's statistics function takes
    (tolerances, ``matching``, ``compat``, ``files_duration``, ``uem``,
    detection's ``positive_labels``, ...)
    are used in :meth:`update`,
    the others (``average``, ``zero_division``, ...)
    are passed to the metric in :meth:`compute`.
    ``files_duration`` and ``uem`` are looked up per batch by file,
    so an update costs in proportion to its batch;
    event batches are validated in :meth:`update`
    and matched all at once when reduced.
    A label that must occur (``positive_labels``) is checked over all batches
    when reduced, and a warning about the inputs that the direct call issues once
    (files without ``files_duration``) is issued once, when reduced,
    with the direct call's numbers.

    Args:
        metric: a metric function (e.g. :func:`audeval.event_fscore`),
            or a family name
            (``"event"``, ``"segment"``, ``"diarization"``, ``"detection"``)
            to pass the metric to :meth:`compute` later
        labels: labels to evaluate, as for the metric;
            ``None``: the labels of each batch,
            summed as :func:`sum_statistics` does
            (for non-categorical labels that is the sorted union,
            as in a one-shot call)
        family: the metric family, if it cannot be told from ``metric``
        **options: options of the statistics function and of the metric

    Raises:
        TypeError: on an unknown option
        ValueError: on an unknown family

    Examples:
        >>> import audformat
        >>> import audeval
        >>> def events(files, starts, ends, labels):
        ...     index = audformat.segmented_index(files, starts, ends)
        ...     return pd.Series(labels, index=index)
        >>> accumulator = audeval.Accumulator(
        ...     audeval.event_fscore, average="macro", onset_tolerance=0.2, offset_tolerance=0.2
        ... )
        >>> accumulator.update(
        ...     events(["f1"], [0.0], [1.0], ["a"]), events(["f1"], [0.1], [1.1], ["a"])
        ... )
        Accumulator(event_fscore, files=1)
        >>> accumulator.update(
        ...     events(["f2"], [0.0], [1.0], ["b"]), events(["f2"], [2.0], [3.0], ["b"])
        ... )
        Accumulator(event_fscore, files=2)
        >>> accumulator.compute()
        0.5
        >>> accumulator.compute(audeval.event_error_rate)
        1.0
        >>> accumulator.report()[["n_truth", "tp", "fscore"]]
               n_truth   tp  fscore
        label
        a          1.0  1.0     1.0
        b          1.0  0.0     0.0
        micro      2.0  1.0     0.5
        macro      NaN  NaN     0.5

    """

    def __init__(
        self,
        metric: Callable | str,
        labels: Sequence[object] | None = None,
        *,
        family: str | None = None,
        **options,
    ):
        self._family = family_of(metric, family)
        self._metric = None if isinstance(metric, str) else metric
        self._labels = None if labels is None else list(labels)
        self._statistics_options, self._metric_options = split_options(
            self._family, self._metric, options
        )
        self.reset()

    # --- state ----------------------------------------------------------

    def reset(self) -> Accumulator:
        """Forget all batches.

        Returns:
            the accumulator

        """
        self._tables: list[pd.DataFrame] = []
        self._parts: dict[tuple, list[Parts]] = {}  # (arrays of batches, by labels and options)
        self._files: set = set()
        self._summed: pd.DataFrame | None = None
        self._total: pd.DataFrame | None = None
        self._batches = Batches(self._family, self._labels, self._statistics_options)
        return self

    @property
    def family(self) -> str:
        """Name of the metric family."""
        return self._family.name

    @property
    def metric(self) -> Callable | None:
        """The metric of :meth:`compute`."""
        return self._metric

    @property
    def files(self) -> list:
        """Files seen so far."""
        return _sortable_union([list(self._files)], sort=True)

    @property
    def n_files(self) -> int:
        """Number of files seen so far."""
        return len(self._files)

    @property
    def statistics(self) -> pd.DataFrame:
        """The summed statistics table (as :func:`sum_statistics`)."""
        self._batches.check()  # (labels that must occur: over all batches)
        if self._total is None:
            summed = self._consolidated()
            # files of files_duration (or uem) in no batch: evaluated as in a direct call
            unseen = self._batches.unseen(summed)
            self._total = summed if unseen is None else sum_statistics([summed, unseen])
            self._batches.warn(self._total)  # (once for all batches, as the direct call)
        return self._total

    def _consolidated(self) -> pd.DataFrame:
        """The sum of the batches' statistics (no files of the file options added)."""
        if self._summed is None:
            tables = self._tables + [
                frame_of_parts(self._family.name, _resolved(group)) for group in self._parts.values()
            ]
            if len(tables) == 1 and not self._tables and not self._family.sparse:
                # one table of arrays on the grid: as the direct call
                # (a family that keeps only the rows that occur takes them by the sum below)
                self._summed = tables[0]
            elif tables:
                self._summed = sum_statistics(tables)
            else:
                options = dict(self._batches.options)
                for name in self._family.file_options:  # (their files are added by statistics)
                    options[name] = None
                labels = [] if self._batches.deferred else self._batches.labels
                self._summed = self._batches.restamp(
                    empty_statistics(self._family, labels, options)
                )
            self._tables = [self._summed] if tables else []
            self._parts = {}
        return self._summed

    def _add(self, batch: pd.DataFrame | Parts) -> None:
        arrays = not isinstance(batch, pd.DataFrame)  # Parts, or pending ones
        if arrays:
            files = set(batch.files)
        else:
            files = set(pd.unique(batch.index.get_level_values("file")))  # type: ignore[union-attr]  # arrays is False: batch is a DataFrame
        repeated = self._files & files
        if repeated:
            shown = _sortable_union([list(repeated)], sort=True)
            raise ValueError(
                f"files {shown[:10]}{' ...' if len(shown) > 10 else ''} were already accumulated: "
                "every file must be in one batch only "
                "(the statistics of a split file do not add up to those of the whole file)."
            )
        self._files |= files
        if arrays:  # one table of all of them when reduced
            self._parts.setdefault(batch.key(), []).append(batch)
        else:
            self._tables.append(batch)
        self._summed = self._total = None
        if len(self._tables) > 64 or len(self._parts) > 64:
            self._consolidated()

    def update(
        self,
        truth: pd.Series | pd.DataFrame,
        prediction: pd.Series | None = None,
    ) -> Accumulator:
        """Add a batch.

        Args:
            truth: truth of the batch (audformat segmented index),
                or its statistics table
            prediction: prediction of the batch,
                ``None`` when ``truth`` is a statistics table

        Returns:
            the accumulator

        Raises:
            ValueError: if a file of the batch was already accumulated;
                on invalid input (as the metric)

        """
        self._add(self._batches.statistics(truth, prediction, self._metric, parts=True))
        return self

    def merge(self, other: Accumulator) -> Accumulator:
        """Add the batches of another accumulator (e.g. of another process).

        Both must be of the same family, labels and statistics options.

        Args:
            other: accumulator

        Returns:
            this accumulator

        Raises:
            TypeError: if ``other`` is not an accumulator
            ValueError: if the accumulators do not fit,
                or share a file

        """
        if not isinstance(other, Accumulator):
            raise TypeError(f"other must be an Accumulator; got {type(other).__name__}.")
        if other._family != self._family:
            raise ValueError(
                f"cannot merge a {other.family} accumulator into a {self.family} accumulator."
            )
        if other._labels != self._labels:
            raise ValueError(f"cannot merge accumulators of labels {self._labels} and {other._labels}.")
        if not _same_options(other._statistics_options, self._statistics_options):
            raise ValueError(
                "cannot merge accumulators with different statistics options: "
                f"{self._statistics_options} and {other._statistics_options}."
            )
        if other is self:
            raise ValueError("cannot merge an accumulator into itself.")
        if other._tables or other._parts:
            self._add(other._consolidated())
        self._batches.merge(other._batches.found, other._batches.pending)
        return self

    def __add__(self, other: Accumulator) -> Accumulator:
        if not isinstance(other, Accumulator):
            return NotImplemented
        out = self.copy()
        return out.merge(other)

    def copy(self) -> Accumulator:
        """An independent copy."""
        out = object.__new__(Accumulator)
        out.__dict__.update(self.__dict__)
        out._tables = list(self._tables)
        out._parts = {key: list(group) for key, group in self._parts.items()}
        out._files = set(self._files)
        out._batches = self._batches.copy()
        return out

    # --- results --------------------------------------------------------

    def compute(self, metric: Callable | None = None, **options) -> object:
        """The metric of all accumulated batches.

        Calls ``metric(statistics, None, **options)``:
        the same code as the functional call.

        Args:
            metric: metric of the family;
                ``None``: the metric given at construction
            **options: metric options, replacing those given at construction
                (``average``, ``zero_division``, ...)

        Returns:
            what the metric returns

        Raises:
            TypeError: if no metric is known

        """
        if metric is None:
            if self._metric is None:
                raise TypeError(
                    f"this accumulator was made for the {self.family} family without a metric: "
                    "pass one to compute()."
                )
            metric = self._metric
            options = {**self._metric_options, **options}
        elif metric is self._metric:
            options = {**self._metric_options, **options}
        return reduce(metric, self.statistics, self._labels, options, self._family)

    def report(self, **options) -> pd.DataFrame:
        """The family's report of all accumulated batches.

        The metric options given at construction are not used here.

        Args:
            **options: options of the report function (``per_file``, ``zero_division``, ...)

        Returns:
            report table

        """
        function = self._family.report
        if function is None:
            raise ValueError(f"the {self.family} family has no report function.")
        return reduce(function, self.statistics, self._labels, options, self._family)

    def bootstrap(self, metric: Callable | None = None, **options):
        """Bootstrap confidence interval over the accumulated files.

        See :func:`audeval.bootstrap`; the metric defaults to this accumulator's.
        """
        if metric is None or metric is self._metric:
            if self._metric is None:
                raise TypeError("pass a metric to bootstrap().")
            metric = self._metric
            options = {**self._metric_options, **options}
        return bootstrap(
            metric, self.statistics, None, self._labels, family=self.family, **options
        )

    def __repr__(self) -> str:
        what = getattr(self._metric, "__name__", None) or self.family
        return f"Accumulator({what}, files={self.n_files})"


def _resolved(group: list) -> list[Parts]:
    """Parts of a group; pending ones (e.g. events validated, not matched) computed together."""
    resolve = getattr(type(group[0]), "resolve", None)
    return [resolve(group)] if resolve is not None else group


def _same_options(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for key in a:
        x, y = a[key], b[key]
        if x is y:
            continue
        try:
            equal = x == y
            if isinstance(equal, (pd.Series, pd.DataFrame, np.ndarray)):
                equal = bool(np.all(equal)) and len(x) == len(y)
            if not bool(equal):
                return False
        except (TypeError, ValueError):
            return False
    return True


__all__ = ["Accumulator"]
