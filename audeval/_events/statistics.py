"""``event_statistics``: counts per (file, label) from a matching, and the family gate of the metrics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from audeval._core import tables as _tables
from audeval._core.tables import statistics_frame
from audeval._core.protocol import Parts, stamp, table_options
from audeval._core.validation import Inputs, Segments, check_inputs
from audeval._events.matching import EventMatch, match_events
from audeval._events.options import CONFUSION_PREFIX, EVENT, Tolerance, Tolerances, tolerances_of
from audeval._events.reductions import Summed, count_columns



# -------------------------------------------------------------------------
# Statistics
# -------------------------------------------------------------------------


def _count(groups: np.ndarray, n: int) -> np.ndarray:
    return np.bincount(groups, minlength=n).astype(np.int64)


def statistics_of_match(em: EventMatch, *, confusion: bool = False, dense: bool = False) -> pd.DataFrame:
    """Additive counts per ``(file, label)`` from a matching.

    Rows: the ``(file, label)`` pairs that occur (a file without events: one row of zeros
    with the first label), or with ``dense=True`` the whole grid;
    the confusion columns are sparse (``Sparse[int64, 0]``) unless ``dense``.
    """
    columns, keys = _count_arrays(em, confusion, dense)
    return statistics_frame(em.inputs, columns, keys)


def _count_arrays(em: EventMatch, confusion: bool, dense: bool = True) -> tuple[dict, np.ndarray | None]:
    """The columns of :func:`statistics_of_match` and their row keys
    (``None``: the grid ``file * n_labels + label``)."""
    inputs = em.inputs
    truth, pred = inputs.truth, inputs.prediction
    n_labels = inputs.n_labels
    t_group = truth.file.astype(np.int64) * n_labels + truth.label
    p_group = pred.file.astype(np.int64) * n_labels + pred.label
    if dense:
        keys = None
        n = inputs.n_files * n_labels
        t_row, p_row = t_group, p_group
    else:
        keys, (t_row, p_row) = _tables.occurring_rows((t_group, p_group), inputs.n_files, n_labels)
        n = len(keys)
    substituted = em.substitution >= 0
    columns = count_columns(
        _count(t_row, n),
        _count(p_row, n),
        _count(t_row[em.match >= 0], n),
        _count(t_row[substituted], n),
        _count(p_row[em.substitution[substituted]], n),
    )
    if confusion:
        names = confusion_columns(inputs.labels)
        partner = pred.label[em.substitution[substituted]]
        if dense:
            table = _count(t_row[substituted] * n_labels + partner, n * n_labels).reshape(n, n_labels)
            for k, name in enumerate(names):
                columns[name] = table[:, k]
        else:
            columns.update(_tables.sparse_columns(t_row[substituted], partner, n, names))
    return columns, keys


def event_parts(truth, prediction, labels=None, **options) -> PendingEvents:
    """:func:`event_statistics` of a batch for batched paths: validated now,
    matched with the other batches when they are reduced (:meth:`PendingEvents.resolve`)."""
    checked = EVENT.build(options)
    (inputs, tol), recorded = _match(truth, prediction, labels, checked, match=False)
    return PendingEvents(inputs, tol, recorded, checked.dense)


@dataclasses.dataclass(frozen=True)
class PendingEvents:
    """A batch's validated events, not matched yet (a :class:`audeval._core.protocol.Parts` to be).

    Matching is per file, so the batches of disjoint files
    are matched together in one call, as the direct call on all of them.
    """

    inputs: Inputs
    tol: Tolerances
    recorded: dict
    dense: bool = False

    def counts(self) -> tuple[Inputs, dict, np.ndarray | None]:
        """This batch matched alone: its inputs, and the columns and row keys of its
        :func:`event_statistics` table (``None``: the grid), without the table
        (what a dask partition sends back, :func:`audeval._generic.rows.rows_of_counts`)."""
        match = match_events(self.inputs, self.tol, self.recorded["matching"])
        columns, keys = _count_arrays(match, self.recorded["confusion"], dense=self.dense)
        return self.inputs, columns, keys

    @property
    def files(self) -> pd.Index:
        return self.inputs.files

    def key(self) -> tuple:
        """Batches of equal keys are matched together (same labels and options)."""
        return Parts(self.inputs.files, list(self.inputs.labels), {}, self.recorded).key()

    @staticmethod
    def resolve(group: Sequence[PendingEvents]) -> Parts:
        """The counts of the batches of ``group`` (disjoint files, equal keys), matched at once."""
        first = group[0]
        offsets = np.cumsum([0] + [p.inputs.n_files for p in group[:-1]])

        def joined(side: str) -> Segments:
            parts = [getattr(p.inputs, side) for p in group]
            return Segments(
                np.concatenate([part.file + offset for part, offset in zip(parts, offsets)]),
                *(np.concatenate([getattr(part, name) for part in parts]) for name in ("start", "end", "label", "position")),
            )

        latest = None
        if all(p.inputs.latest is not None for p in group):
            latest = np.concatenate([p.inputs.latest for p in group])
        inputs = Inputs(
            joined("truth"),
            joined("prediction"),
            first.inputs.files.append([p.inputs.files for p in group[1:]]) if len(group) > 1 else first.inputs.files,
            first.inputs.labels,
            np.concatenate([p.inputs.durations for p in group]),
            latest,
        )
        match = match_events(inputs, first.tol, first.recorded["matching"])
        columns, _ = _count_arrays(match, first.recorded["confusion"], dense=True)
        return Parts(inputs.files, list(inputs.labels), columns, first.recorded)


def confusion_columns(labels: Sequence[object]) -> list[str]:
    """Names of the substitution-pair columns, one per predicted label."""
    names = [f"{CONFUSION_PREFIX}{label}" for label in labels]
    if len(set(names)) != len(names):
        raise ValueError(
            "labels must have distinct string forms for the confusion statistics; "
            f"got {list(labels)}."
        )
    return names


def _statistics(truth, prediction, labels, options) -> pd.DataFrame:
    """:func:`event_statistics` of a checked options object."""
    match, recorded = _match(truth, prediction, labels, options)
    table = statistics_of_match(match, confusion=options.confusion, dense=options.dense)
    return stamp(table, "event", recorded)


@EVENT.statistics(_statistics)
def event_statistics(
    truth: pd.Series,
    prediction: pd.Series,
    labels: Sequence[object] | None = None,
    *,
    onset_tolerance: Tolerance = 0.0,
    offset_tolerance: Tolerance = 0.0,
    duration_tolerance: float | None = None,
    matching: str = "optimal",
    files_duration: Mapping | pd.Series | None = None,
    confusion: bool = False,
    compat: str | None = None,
    dense: bool = False,
) -> pd.DataFrame:
    r"""Additive event counts per file and label.

    A truth event and a predicted event *match*
    when they are in the same file, have the same label,
    :math:`|\text{onset}_t - \text{onset}_p| \le \text{onset\_tolerance}`
    (skipped when ``None``) and
    :math:`|\text{offset}_t - \text{offset}_p| \le
    \max(\text{offset\_tolerance}, \text{duration\_tolerance} \cdot (\text{offset}_t - \text{onset}_t))`
    (skipped when both are ``None``; a ``None`` inside the max counts as 0).
    Times are compared as integer nanoseconds,
    so a tolerance that is met exactly counts as met.

    With ``matching="optimal"`` the number of matches is maximal
    (maximum bipartite matching, as sed_eval's default);
    with ``matching="greedy"`` truth events in (start, end) order
    each take the first unmatched prediction in (start, end) order
    (as audmetric and sed_eval's greedy mode).
    Unmatched truth and predicted events of the same file
    with different labels that meet the time conditions
    are paired as *substitutions*.
    With ``matching="optimal"`` matches and substitutions are chosen together:
    the most matches, and among all matchings with that many matches
    one that leaves the most substitutions
    (sed_eval's first-fit pass after its own matching may find fewer).
    Ties between equally good matchings
    (which truth event is substituted, and by which prediction)
    are broken in ``(file, start, end, label)`` order:
    truth events in that order each take a partner if they can,
    and the earliest possible one in the same order
    (exactly so for independent groups of up to 5 x 5 events,
    nearly all of them; larger groups take a deterministic choice on that order).
    So results never depend on the order of rows.
    With ``compat="sed_eval"`` the time conditions are evaluated as sed_eval 0.2.1 does:
    in float64 seconds (nanoseconds / 1e9), with its expressions and order
    (``abs(onset_t - onset_p) <= onset_tolerance``,
    ``abs(offset_t - offset_p) <= max(offset_tolerance, duration_tolerance * (offset_t - onset_t))``),
    so a tolerance met exactly may count as missed (or, rarely, one missed as met)
    where float rounding says so;
    the matching itself is unchanged.
    With ``matching="greedy"`` substitutions are a first-fit pass
    over the leftovers in time order, as sed_eval and audmetric;
    events with equal times are taken in label order.

    Columns per ``(file, label)``:
    ``n_truth``, ``n_prediction``, ``tp``,
    ``fp = n_prediction - tp``, ``fn = n_truth - tp``,
    ``substituted`` (truth events of the label paired as substitution),
    ``substituting`` (predicted events of the label paired as substitution),
    and with ``confusion=True`` one column ``substituted_by_<label>``
    per predicted label
    (a sparse column, ``Sparse[int64, 0]``: it stores only the pairs that occur).

    The table holds only what occurs:
    one row per ``(file, label)`` pair with an event of that label
    in the file's truth or prediction;
    a missing row counts 0 in every column.
    A file without events in either input
    (a file only in ``files_duration``) keeps one row of zeros
    with the first label.
    The labels are the categories of the ``label`` level,
    in their order, also those that occur in no file
    (per-class results and macro averages from the table
    equal those of the direct call).
    So a table costs memory in proportion to the events,
    not to files x labels.
    ``dense=True`` gives the whole grid instead,
    a row for every file and every label,
    with plain int64 confusion columns (the same numbers).

    Tables of disjoint sets of whole files add up
    to the table of their union,
    and every event metric accepts such a (summed) table
    in place of ``truth`` (with ``prediction=None``).

    Args:
        truth: truth events (audformat segmented index)
        prediction: predicted events (audformat segmented index)
        labels: labels in the order of the result;
            rows with other labels are left out.
            ``None``: categories of categorical data,
            else the sorted union of labels
        onset_tolerance: onset tolerance in seconds or as timedelta,
            default 0 (exact, as audmetric; the CLI uses DCASE's 0.2 s);
            ``None``: onsets are not evaluated
        offset_tolerance: offset tolerance in seconds or as timedelta,
            default 0 (exact; the CLI uses DCASE's 0.2 s and ``duration_tolerance=0.5``);
            ``None`` (and ``duration_tolerance=None``): offsets are not evaluated
        duration_tolerance: offset tolerance as a fraction
            of the truth event's duration
        matching: ``"optimal"`` or ``"greedy"``
        files_duration: duration per file, resolves ``end=NaT``
        confusion: add the substitution pair columns
        compat: ``None`` (exact integer nanoseconds)
            or ``"sed_eval"`` (sed_eval 0.2.1's float64 time conditions)
        dense: a row for every file and every label
            (and plain int64 confusion columns),
            instead of the rows of the pairs that occur

    Returns:
        statistics table indexed by ``(file, label)``

    Raises:
        ValueError, TypeError: on invalid input (see the validation rules)

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"],
        ...     index=audformat.segmented_index(["f1", "f1"], [0.0, 2.0], [1.0, 3.0]),
        ... )
        >>> prediction = pd.Series(
        ...     ["a", "a"],
        ...     index=audformat.segmented_index(["f1", "f1"], [0.1, 2.0], [1.1, 3.0]),
        ... )
        >>> event_statistics(truth, prediction, onset_tolerance=0.2, offset_tolerance=0.2)
                    n_truth  n_prediction  tp  fp  fn  substituted  substituting
        file label
        f1   a            1             2   1   1   0            0             1
             b            1             0   0   0   1            1             0

    """


def _match(truth, prediction, labels, options, *, match: bool = True) -> tuple[Any, dict]:
    """Inputs validated and matched with a checked options object; and what a table records.

    ``match=False``: the validated inputs and tolerances in place of the matching
    (the first item: an :class:`EventMatch`, or ``(Inputs, Tolerances)``).
    """
    inputs = check_inputs(
        truth,
        prediction,
        labels=labels,
        files_duration=options.files_duration,
        require_end=True,
    )
    recorded = {**EVENT.record(options), "labels_given": labels is not None}
    tol = tolerances_of(options)
    if not match:
        return (inputs, tol), recorded
    return match_events(inputs, tol, options.matching), recorded


def _matched(truth, prediction, labels, **options) -> tuple[EventMatch, dict]:
    """:func:`_match` of keyword options (checked here, once)."""
    return _match(truth, prediction, labels, EVENT.build(options))


# -------------------------------------------------------------------------
# Reductions
# -------------------------------------------------------------------------


def _table(metric, truth, prediction, labels, options) -> pd.DataFrame:
    """A statistics table given in place of ``truth``, through the family's one table gate.

    The options the caller gave are checked against those the table records;
    an option the metric needs (``confusion=True``) must be recorded so.
    """
    table = EVENT.table(metric, truth, prediction, labels, options, select=_tables.select_labels)
    recorded = table_options(truth)
    for name, value in metric.declared.needs.items():
        if name in recorded and recorded[name] != value:
            raise ValueError(
                f"{metric.__name__} needs a table made with {name}={value!r}: "
                f"pass {name}={value!r} to event_statistics."
            )
    return table


def _summed(metric, truth, prediction, labels, options) -> Summed:
    """The family gate of a metric call: its statistics summed over files (:class:`Summed`).

    From Series straight from the matching (never the dense ``files x labels`` table);
    a given table goes through :func:`_table`.
    """
    if prediction is None:
        return Summed.of_table(_table(metric, truth, prediction, labels, options), labels)
    inputs = check_inputs(
        truth, prediction, labels=labels, files_duration=options.files_duration, require_end=True
    )  # as _match, without the table's record (timedeltas built for nothing)
    return Summed.of_match(
        match_events(inputs, tolerances_of(options), options.matching),
        confusion=options.confusion,
        labels_given=labels is not None,
        prefix=CONFUSION_PREFIX,
    )


def _per_file(metric, truth, prediction, labels, options) -> tuple[Summed, pd.DataFrame | None]:
    """The gate of the report: the sums, and with ``per_file`` the (sparse) table per file."""
    if not options.per_file:
        return _summed(metric, truth, prediction, labels, options), None
    if prediction is None:
        table = _table(metric, truth, prediction, labels, options)
    else:
        table = _statistics(truth, prediction, labels, options)
    return Summed.of_table(table, labels), table
