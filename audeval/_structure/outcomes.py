r"""The outcome of every boundary of a structural segmentation: what a timeline plot draws.

:func:`structure_outcomes` lays out what :func:`audeval.boundary_detection` decides:
the partitions of both sides after ``mir_eval.segment.evaluate``'s preprocessing
(:mod:`audeval._structure.prepare`) and every boundary with its hit decision
(the maximum matching of :mod:`audeval._structure.boundaries`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval._core.matching import maximum_matching
from audeval._structure import boundaries as _boundaries
from audeval._structure.options import STRUCTURE
from audeval._structure.options import settings
from audeval._structure.prepare import prepare
from audeval._core.validation import NS_PER_SECOND, check_inputs


SIDES = ("truth", "prediction")
KINDS = ("segment", "gap", "boundary")
"""The values of the ``kind`` column."""
OUTCOMES = ("hit", "miss", "false_alarm")
"""The values of the ``outcome`` column (boundaries only)."""


def _cluster_names(labels: list, compat: bool) -> tuple[np.ndarray, int]:
    """Per cluster code of :func:`audeval._structure.prepare.prepare`, the label it stands for,
    and the first code that is not a label (gaps and pads: ``n_labels``; compat:
    mir_eval's padding labels ``__t_min``, ``__t_max`` and ``none``, the last three)."""
    if not compat:
        names = np.empty(len(labels) + 1, dtype=object)
        for k, label in enumerate(labels):  # a loop over labels (tuples stay whole)
            names[k] = label
        return names, len(labels)
    lowered = [str(label).lower() for label in labels]
    # the factorisation of _prepare._cluster_codes (labels, then the three pads)
    _, uniques = pd.factorize(pd.Index(lowered + ["__t_min", "__t_max", "none"], dtype=object))
    names = np.asarray(list(uniques), dtype=object)
    return names, len(names) - 3


def _pieces(prep, compat: bool, labels: list) -> list[tuple]:
    """Rows of the partitions: file, side, kind, label, start and end (ns)."""
    names, first_pad = _cluster_names(labels, compat)
    pad_codes = set(range(first_pad, len(names)))
    if compat:  # a user label that lower-cases to a pad name joins that pad
        pad_codes = {int(c) for c in range(len(names)) if names[c] in ("__t_min", "__t_max", "none")}
    out = []
    for side, pieces in enumerate((prep.truth, prep.prediction)):
        gap = np.isin(pieces.cluster, sorted(pad_codes))
        label = np.where(gap, None, names[np.minimum(pieces.cluster, len(names) - 1)])
        out.append(
            (pieces.file, np.full(len(pieces), side), np.where(gap, 1, 0), label, pieces.start, pieces.end, None)
        )
    return out


def _boundary_rows(prep, values) -> list[tuple]:
    """Rows of the boundaries: file, side, kind, label (none), time as start and end,
    and the outcome and partner time (ns; ``-1``: none)."""
    if len(values.windows) != 1:
        raise ValueError(
            f"window must be one duration for structure_outcomes; got {len(values.windows)} windows."
        )
    t_b, p_b = _boundaries.boundaries(prep, values.trim, values.pad)
    t_index, p_index = _boundaries._window_pairs(t_b, p_b, values.windows[0], values.compat, prep.n_files)
    match = maximum_matching(len(t_b.file), len(p_b.file), t_index, p_index)
    partner_of = np.full(len(p_b.file), -1, dtype=np.int64)
    partner_of[match[match >= 0]] = np.flatnonzero(match >= 0)
    # times as ns: exact, or mir_eval's seconds rounded to 5 decimals in compat mode
    t_ns, p_ns = (
        np.rint(b.value * NS_PER_SECOND).astype(np.int64) if values.compat else b.time for b in (t_b, p_b)
    )
    rows = []
    for side, (b, ns, other_ns, partner, miss) in enumerate(
        ((t_b, t_ns, p_ns, match, 1), (p_b, p_ns, t_ns, partner_of, 2))
    ):
        hit = partner >= 0
        outcome = np.where(hit, 0, miss)
        partner_ns = np.where(hit, other_ns[np.maximum(partner, 0)] if len(other_ns) else 0, -1)
        n = len(b.file)
        rows.append(
            (b.file, np.full(n, side), np.full(n, 2), np.full(n, None, dtype=object), ns, ns, (outcome, partner_ns))
        )
    return rows


def _outcomes(truth, prediction, options) -> pd.DataFrame:
    """:func:`structure_outcomes` of a checked options object."""
    if isinstance(truth, pd.DataFrame) or not isinstance(prediction, pd.Series):
        raise TypeError(
            "truth and prediction must be pandas.Series; structure_outcomes needs "
            "the segments, not a statistics table."
        )
    values = settings(options)
    inputs = check_inputs(truth, prediction, files_duration=options.files_duration, duration_files=False)
    prep = prepare(inputs, truth, prediction, values.compat)
    parts = _pieces(prep, values.compat, list(inputs.labels)) + _boundary_rows(prep, values)
    file, side, kind, start, end = (
        np.concatenate([p[i] for p in parts]).astype(np.int64) for i in (0, 1, 2, 4, 5)
    )
    label = np.concatenate([np.asarray(p[3], dtype=object) for p in parts])
    outcome = np.concatenate([np.full(len(p[0]), -1) if p[6] is None else p[6][0] for p in parts])
    partner = np.concatenate([np.full(len(p[0]), -1) if p[6] is None else p[6][1] for p in parts])
    order = np.lexsort((start, kind == 2, side, file))
    file, side, kind, start, end = file[order], side[order], kind[order], start[order], end[order]
    label, outcome, partner = label[order], outcome[order].astype(np.int64), partner[order]
    index = pd.MultiIndex.from_arrays(
        [inputs.files[file], pd.to_timedelta(start, unit="ns"), pd.to_timedelta(end, unit="ns")],
        names=["file", "start", "end"],
    )
    partner_time = pd.to_timedelta(np.where(partner >= 0, partner, 0), unit="ns")
    return pd.DataFrame(
        {
            "side": pd.Series(pd.Categorical.from_codes(side, categories=list(SIDES)), index=index),
            "kind": pd.Series(pd.Categorical.from_codes(kind, categories=list(KINDS)), index=index),
            "label": pd.Series(label, index=index, dtype=object),
            "outcome": pd.Series(pd.Categorical.from_codes(outcome, categories=list(OUTCOMES)), index=index),
            "partner": pd.Series(partner_time.where(partner >= 0), index=index),
        },
        index=index,
    )


@STRUCTURE.statistics(_outcomes)
def structure_outcomes(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    window: float | pd.Timedelta = 0.5,
    trim: bool = False,
    pad: bool = True,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> pd.DataFrame:
    r"""The partitions and the boundary hits behind :func:`boundary_detection`.

    Both partitions as :func:`structure_report` evaluates them
    (truth padded to start at 0, prediction cropped or padded
    to the truth's end :math:`T`; pads and interior gaps are *gaps*),
    and every boundary of each side as :func:`boundary_detection` takes it
    with the same ``window``, ``trim``, ``pad`` and ``compat``:
    a *hit* is a pair of a maximum matching of truth and predicted boundaries
    at most ``window`` apart, other truth boundaries are *misses*
    and other predicted ones *false alarms*. So per file

    .. math::

        P = \frac{\#\text{hit}_{\text{prediction}}}{\#\text{boundary}_{\text{prediction}}},\quad
        R = \frac{\#\text{hit}_{\text{truth}}}{\#\text{boundary}_{\text{truth}}}

    are the file's precision and recall of :func:`boundary_detection`.

    Args:
        truth: true segments, a partition of each file
        prediction: predicted segments, a partition of each file
        window: largest distance of a boundary hit, in seconds or as timedelta
        trim: leave out the first and last boundary of each side (0 and :math:`T`)
        pad: boundaries after ``mir_eval.segment.evaluate``'s padding and cropping;
            ``False``: the boundaries of the rows as given
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"``: mir_eval 0.8.2's preprocessing and boundaries
            (labels lower-cased, its padding labels, boundaries rounded to 5 decimals
            of a second; see :func:`structure_report`)

    Returns:
        DataFrame with an audformat segmented index (``file``, ``start``, ``end``),
        per file the truth rows, then the prediction rows, each side's segments
        and gaps (tiling :math:`[0, T)`) by start, then its boundaries by time
        (zero length: ``start == end``), and the columns
        ``side`` (``"truth"``, ``"prediction"``),
        ``kind`` (``"segment"``, ``"gap"``, ``"boundary"``),
        ``label`` (a segment's label; compat: lower-cased as mir_eval compares it;
        ``None`` for gaps and boundaries),
        ``outcome`` (boundaries: ``"hit"``, ``"miss"`` (truth) or ``"false_alarm"``
        (prediction); NaN for segments and gaps)
        and ``partner`` (the time of the matched boundary of the other side; NaT for none)

    Examples:
        >>> import audformat
        >>> from audeval import structure_outcomes
        >>> truth = pd.Series(
        ...     ["verse", "chorus"], index=audformat.segmented_index(["a", "a"], [0, 10], [10, 20])
        ... )
        >>> prediction = pd.Series(
        ...     ["x", "y", "x"], index=audformat.segmented_index(["a"] * 3, [0, 10.2, 15], [10.2, 15, 20])
        ... )
        >>> out = structure_outcomes(truth, prediction, window=0.5)
        >>> bounds = out[out["kind"] == "boundary"]
        >>> list(zip(bounds["side"], bounds.index.get_level_values("start").total_seconds(), bounds["outcome"]))
        [('truth', 0.0, 'hit'), ('truth', 10.0, 'hit'), ('truth', 20.0, 'hit'),
         ('prediction', 0.0, 'hit'), ('prediction', 10.2, 'hit'), ('prediction', 15.0, 'false_alarm'),
         ('prediction', 20.0, 'hit')]
        >>> out.loc[out["kind"] == "segment", ["side", "label"]].reset_index(drop=True)
                 side   label
        0       truth   verse
        1       truth  chorus
        2  prediction       x
        3  prediction       y
        4  prediction       x

    """


__all__ = ["structure_outcomes"]
