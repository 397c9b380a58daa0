r"""The outcome of every elementary span of diarization: what a timeline plot draws.

Each file is cut at every truth, prediction and scored-region boundary
(:mod:`audeval._core.sweep`) into elementary spans.
In a scored span of length :math:`d` with :math:`n_t` truth and :math:`n_p` predicted
labels, :math:`c` of them pairs of mapped labels active together
(:func:`audeval.diarization_mapping`; ``compat="pyannote"``: :math:`\min` of the
numbers of rows of each label of the pair), the report's components are

.. math::

    \text{correct} = c d,\quad
    \text{miss} = \max(0, n_t - n_p) d,\quad
    \text{false alarm} = \max(0, n_p - n_t) d,\quad
    \text{confusion} = (\min(n_t, n_p) - c) d,

so that their sums per file are the components of :func:`audeval.diarization_report`.
"""

from __future__ import annotations

from collections.abc import Mapping
import warnings

import numpy as np
import pandas as pd

from audeval._core import sweep as _pieces
from audeval._core.validation import NS_PER_SECOND

from audeval._diarization.mapping import _mapped_pairs
from audeval._diarization.options import DIARIZATION
from audeval._diarization.region import (
    _merge_labels,
    _raw_labels,
    _scored_region,
)
from audeval._diarization.table import arrays_of, checked_inputs


OUTCOMES = ("correct", "miss", "false_alarm", "confusion", "unscored")
"""The values of the ``outcome`` column."""


def _names(active, n_pieces: int) -> np.ndarray:
    """Per piece, the names of its active rows (sorted by piece) joined by ``"+"``."""
    piece, channel_names = active
    out = np.full(n_pieces, "", dtype=object)
    if len(piece) == 0:
        return out
    first = np.flatnonzero(np.r_[True, piece[1:] != piece[:-1]])
    rank = np.arange(len(piece)) - np.repeat(first, np.diff(np.r_[first, len(piece)]))
    for r in range(int(rank.max()) + 1):  # a loop over the speakers active at once, not spans
        k = rank == r
        sep = "" if r == 0 else "+"
        out[piece[k]] = out[piece[k]] + sep + channel_names[k]
    return out


def _geometry(truth, prediction, options):
    """Validated inputs, the statistics arrays, the rows of each side and the scored region
    (as :func:`audeval._diarization.statistics._diarization_arrays` takes them)."""
    inputs, uem_arrays, truth_labels, prediction_labels = checked_inputs(truth, prediction, options)
    table = arrays_of(inputs, uem_arrays, truth_labels, prediction_labels, options, overlap=False)
    width = max(len(truth_labels), len(prediction_labels), 1)
    t_rows, p_rows, region = _rows_and_region(inputs, uem_arrays, options, width)
    return inputs, table, t_rows, p_rows, region


def _rows_and_region(inputs, uem_arrays, options, width: int):
    """The rows of each side (merged per label; ``compat="pyannote"``: as they are)
    and the scored region of checked inputs."""
    n = inputs.n_files
    with warnings.catch_warnings():  # the statistics above already warned
        warnings.simplefilter("ignore")
        truth_merged = _merge_labels(inputs.truth, n, width)
        if options.compat == "pyannote":  # rows as they are; a label overlapping itself is overlap
            t_rows = _raw_labels(inputs.truth, n, width)
            p_rows = _raw_labels(inputs.prediction, n, width)
            overlap_rows = t_rows
        else:
            t_rows, p_rows, overlap_rows = truth_merged, _merge_labels(inputs.prediction, n, width), None
        region = _scored_region(
            inputs,
            truth_merged,
            options.collar,
            options.skip_overlap,
            collar_convention=options.collar_convention,
            uem=uem_arrays,
            overlap_rows=overlap_rows,
        )
    return t_rows, p_rows, region


def _same_labels(truth_labels, prediction_labels) -> tuple[np.ndarray, np.ndarray]:
    """Codes of the labels that are on both sides: (truth code, prediction code)."""
    code = {label: k for k, label in enumerate(prediction_labels)}
    pairs = [(t, code[label]) for t, label in enumerate(truth_labels) if label in code]  # over labels
    both = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return both[:, 0], both[:, 1]


def _partners(table, options, n: int, width: int):
    """Per (file, truth code) the mapped predicted code, per (file, predicted code) the truth code."""
    if options.mapping == "identity":  # a label is mapped onto the same label, in every file
        c_truth, c_pred = _same_labels(table.truth_labels, table.prediction_labels)
        c_file = np.repeat(np.arange(n, dtype=np.int64), len(c_truth))
        c_truth, c_pred = np.tile(c_truth, n), np.tile(c_pred, n)
    else:
        chosen = _mapped_pairs(table, options.mapping, options.individual_file_mapping, on_mapping_rows=True)
        rows = table.cooccurrence if table.mapping is None else table.mapping
        c_file, c_truth, c_pred = rows[0][chosen], rows[1][chosen], rows[2][chosen]
    partner = np.full(n * width, -1, dtype=np.int64)
    partner[c_file * width + c_truth] = c_pred
    mapped_to = np.full(n * width, -1, dtype=np.int64)
    mapped_to[c_file * width + c_pred] = c_truth
    return partner, mapped_to


def _spans(n: int, width: int, t_rows, p_rows, region, partner):
    """The pieces, whether scored, the active (piece, code, count) of each side,
    and per piece the numbers of truth, predicted and mapped active labels."""
    r_file, r_start, r_end = region.intervals
    file = np.concatenate([t_rows[0], p_rows[0], r_file]).astype(np.int64)
    start = np.concatenate([t_rows[2], p_rows[2], r_start]).astype(np.int64)
    end = np.concatenate([t_rows[3], p_rows[3], r_end]).astype(np.int64)
    extent = np.zeros(n, dtype=np.int64)
    np.maximum.at(extent, file, end)
    pieces = _pieces.cut(n, file, start, end, extent=extent)
    n_pieces = len(pieces)
    n_t, n_p = len(t_rows[0]), len(p_rows[0])
    bounds = ((0, n_t), (n_t, n_t + n_p), (n_t + n_p, len(file)))
    first = [(pieces.first[a:b], pieces.stop[a:b]) for a, b in bounds]
    scored = _pieces.coverage(n_pieces, *first[2]) > 0
    t_active = _pieces.activity(n_pieces, *first[0], t_rows[1], width)
    p_active = _pieces.activity(n_pieces, *first[1], p_rows[1], width)
    t_piece, t_code, t_count = t_active
    p_piece, p_code, p_count = p_active
    counts = [
        np.bincount(piece, weights=count, minlength=n_pieces).astype(np.int64)
        for piece, _, count in (t_active, p_active)
    ]
    # mapped pairs active together: (piece, partner of t) looked up among the sorted (piece, p)
    p_key = p_piece * width + p_code
    want = partner[pieces.file[t_piece] * width + t_code]
    key = t_piece * width + np.maximum(want, 0)
    matched = np.zeros(len(t_piece), dtype=np.int64)
    if len(p_key):
        at = np.minimum(np.searchsorted(p_key, key), len(p_key) - 1)
        hit = (want >= 0) & (p_key[at] == key)
        matched = np.where(hit, np.minimum(t_count, p_count[at]), 0)
    common = np.bincount(t_piece, weights=matched, minlength=n_pieces).astype(np.int64)
    return pieces, scored, t_active, p_active, counts[0], counts[1], common


def _labels_text(active, n_pieces: int, names: np.ndarray) -> np.ndarray:
    """Per piece, the names of its active labels (``names`` per active row; ``name*k``
    for a label active ``k > 1`` times, ``compat="pyannote"``) joined by ``"+"``."""
    piece, _, count = active
    names = np.where(count > 1, names + "*" + count.astype(str).astype(object), names)
    return _names((piece, names), n_pieces)


def _outcomes(truth, prediction, options) -> pd.DataFrame:
    """:func:`diarization_outcomes` of a checked options object."""
    if isinstance(truth, pd.DataFrame) or not isinstance(prediction, pd.Series):
        raise TypeError(
            "truth and prediction must be pandas.Series; diarization_outcomes needs "
            "the segments, not a statistics table."
        )
    inputs, table, t_rows, p_rows, region = _geometry(truth, prediction, options)
    n = inputs.n_files
    width = max(len(table.truth_labels), len(table.prediction_labels), 1)
    partner, mapped_to = _partners(table, options, n, width)
    pieces, scored, t_active, p_active, active_t, active_p, common = _spans(
        n, width, t_rows, p_rows, region, partner
    )
    d = pieces.duration * scored
    components = {
        "correct": common * d,
        "miss": np.maximum(active_t - active_p, 0) * d,
        "false_alarm": np.maximum(active_p - active_t, 0) * d,
        "confusion": (np.minimum(active_t, active_p) - common) * d,
    }
    outcome = np.select(
        [~scored, components["confusion"] > 0, components["miss"] > 0, components["false_alarm"] > 0],
        ["unscored", "confusion", "miss", "false_alarm"],
        "correct",
    ).astype(object)
    # names: truth labels; predicted labels as the truth label mapped onto them, else as they are
    truth_names = np.asarray([str(x) for x in table.truth_labels] + [""], dtype=object)
    prediction_names = np.asarray([str(x) for x in table.prediction_labels] + [""], dtype=object)
    p_piece, p_code, _ = p_active
    onto = mapped_to[pieces.file[p_piece] * width + p_code]
    p_names = np.where(onto >= 0, truth_names[np.maximum(onto, 0)], prediction_names[p_code])
    n_pieces = len(pieces)
    keep = ~scored | (active_t > 0) | (active_p > 0)  # scored silence on both sides: no row
    index = pd.MultiIndex.from_arrays(
        [
            inputs.files[pieces.file[keep]],
            pd.to_timedelta(pieces.start[keep], unit="ns"),
            pd.to_timedelta(pieces.end[keep], unit="ns"),
        ],
        names=["file", "start", "end"],
    )
    frame = {
        "truth": _labels_text(t_active, n_pieces, truth_names[t_active[1]])[keep],
        "prediction": _labels_text(p_active, n_pieces, p_names)[keep],
        "outcome": pd.Categorical(outcome[keep], categories=OUTCOMES),
        "duration": pieces.duration[keep] / NS_PER_SECOND,
    }
    frame.update({name: value[keep] / NS_PER_SECOND for name, value in components.items()})
    return pd.DataFrame(frame, index=index)


@DIARIZATION.statistics(_outcomes)
def diarization_outcomes(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    mapping: str = "optimal",
    individual_file_mapping: bool = True,
    collar: float | pd.Timedelta = 0.0,
    skip_overlap: bool = False,
    files_duration: Mapping | pd.Series | None = None,
    collar_convention: str = "total",
    compat: str | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> pd.DataFrame:
    r"""The outcome of every elementary span of a diarization: what DER counts where.

    Every file is cut at every truth, prediction and scored-region boundary
    (from ``0`` to its last boundary).
    In a scored span of length :math:`d` with :math:`n_t` truth and :math:`n_p`
    predicted speakers, :math:`c` of them pairs mapped onto each other
    (:func:`diarization_mapping` with the same options):

    .. math::

        \text{correct} = c d,\quad
        \text{miss} = \max(0, n_t - n_p) d,\quad
        \text{false\_alarm} = \max(0, n_p - n_t) d,\quad
        \text{confusion} = (\min(n_t, n_p) - c) d

    (``compat="pyannote"``: a speaker active ``k`` times counts ``k`` times,
    and :math:`c` sums :math:`\min` of the counts of each mapped pair).
    Summed per file they are the components of :func:`diarization_report`
    with the same options. Spans outside the scored region
    (collars, outside ``uem`` or ``[0, duration]``, skipped overlap) are ``"unscored"``
    with zero components; scored spans where neither side speaks have no row.

    Args:
        truth: ground truth Series (segmented index, speaker labels)
        prediction: predicted Series (segmented index, speaker or cluster labels)
        mapping: ``"optimal"`` or ``"greedy"``
            (``"identity"``: labels compared as they are)
        individual_file_mapping: a mapping per file, else one over all files
        collar: unscored width (seconds or timedelta) around every truth boundary,
            as ``collar_convention`` says
        skip_overlap: do not score regions with two or more truth labels
        files_duration: mapping or Series from file to duration
        collar_convention: ``"total"`` (pyannote.metrics) or ``"per_side"`` (md-eval)
        compat: ``None`` or ``"pyannote"`` (see :func:`diarization_statistics`)
        uem: scored intervals per file (segmented index or Series; see :func:`read_uem`)

    Returns:
        DataFrame with an audformat segmented index (``file``, ``start``, ``end``)
        and the columns ``truth`` (truth speakers active, joined by ``"+"``,
        ``""`` for none), ``prediction`` (predicted speakers active, in the order of the predicted labels, each named
        as the truth speaker it is mapped onto, else as it is),
        ``outcome`` (``"unscored"``, else the first of ``"confusion"``, ``"miss"``,
        ``"false_alarm"`` with positive time, else ``"correct"``),
        ``duration``, and ``correct``, ``miss``, ``false_alarm``, ``confusion``
        in seconds (several can be positive in a span with overlapping speakers)

    Examples:
        >>> import audformat
        >>> from audeval import diarization_outcomes
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     [7, 3], index=audformat.segmented_index(["f1", "f1"], [0, 2.5], [3.5, 4])
        ... )
        >>> out = diarization_outcomes(truth, prediction, files_duration={"f1": 4})
        >>> out[["truth", "prediction", "outcome", "duration", "false_alarm"]].reset_index(drop=True)
          truth prediction      outcome  duration  false_alarm
        0     A          A      correct       2.0          0.0
        1     B          A    confusion       0.5          0.0
        2     B        B+A  false_alarm       1.0          1.0
        3     B          B      correct       0.5          0.0

    """


# -------------------------------------------------------------------------
# Per speaker: what the timeline plot draws on each speaker's lane
# -------------------------------------------------------------------------

SPEAKER_OUTCOMES = ("correct", "error", "unscored")
"""The values of the ``outcome`` column of :func:`diarization_speaker_outcomes`."""

SIDES = ("truth", "prediction")


def _names_of(labels) -> np.ndarray:
    """Labels as an object array (a loop over labels: tuples stay whole)."""
    out = np.empty(len(labels) + 1, dtype=object)
    for k, label in enumerate(labels):
        out[k] = label
    out[-1] = None  # code -1: none
    return out


def _paired(piece, want, other) -> np.ndarray:
    """Per active row ``(piece, want)``: whether code ``want`` is active in the piece on
    the other side (``other``: its ``(piece, code, count)``, sorted by piece and code)."""
    o_piece, o_code, _ = other
    if len(o_piece) == 0:
        return np.zeros(len(piece), dtype=bool)
    width = int(max(o_code.max(), want.max(initial=0))) + 1
    o_key = o_piece * width + o_code
    key = piece * width + np.maximum(want, 0)
    at = np.minimum(np.searchsorted(o_key, key), len(o_key) - 1)
    return (want >= 0) & (o_key[at] == key)


def _speaker_rows(pieces, scored, t_active, p_active, partner, mapped_to, width: int):
    """Runs of one (file, side, code) with one outcome: file, side, code, outcome, start,
    end and the partner code (``-1``: none), sorted by file, side, code and start."""
    parts = []
    for k, (active, other, onto) in enumerate(((t_active, p_active, partner), (p_active, t_active, mapped_to))):
        at, codes, _ = active
        wanted = onto[pieces.file[at] * width + codes]
        hit = _paired(at, wanted, other)
        parts.append((pieces.file[at], np.full(len(at), k), codes, np.where(scored[at], np.where(hit, 0, 1), 2), at, wanted))
    file, side, code, outcome, piece, want = (np.concatenate(column).astype(np.int64) for column in zip(*parts))
    lane = (file * 2 + side) * width + code
    order = np.lexsort((pieces.start[piece], lane))
    lane, outcome, piece = lane[order], outcome[order], piece[order]
    first, last = _pieces.join_runs(lane, pieces.start[piece], pieces.end[piece], outcome)
    keep = order[first]
    return (
        file[keep], side[keep], code[keep], outcome[first],
        pieces.start[piece[first]], pieces.end[piece[last]], want[keep],
    )


def _speaker_outcomes(truth, prediction, options) -> pd.DataFrame:
    """:func:`diarization_speaker_outcomes` of a checked options object."""
    if isinstance(truth, pd.DataFrame) or not isinstance(prediction, pd.Series):
        raise TypeError(
            "truth and prediction must be pandas.Series; diarization_speaker_outcomes needs "
            "the segments, not a statistics table."
        )
    inputs, table, t_rows, p_rows, region = _geometry(truth, prediction, options)
    n = inputs.n_files
    width = max(len(table.truth_labels), len(table.prediction_labels), 1)
    partner, mapped_to = _partners(table, options, n, width)
    pieces, scored, t_active, p_active, *_ = _spans(n, width, t_rows, p_rows, region, partner)
    file, side, code, outcome, start, end, want = _speaker_rows(
        pieces, scored, t_active, p_active, partner, mapped_to, width
    )
    names = (_names_of(table.truth_labels), _names_of(table.prediction_labels))  # code -1: None
    is_truth = side == 0
    index = pd.MultiIndex.from_arrays(
        [inputs.files[file], pd.to_timedelta(start, unit="ns"), pd.to_timedelta(end, unit="ns")],
        names=["file", "start", "end"],
    )
    frame = {
        "side": pd.Series(pd.Categorical.from_codes(side, categories=list(SIDES)), index=index),
        # labels as given (object: a label is never turned into a string, none is None)
        "speaker": pd.Series(np.where(is_truth, names[0][code], names[1][code]), index=index, dtype=object),
        "partner": pd.Series(np.where(is_truth, names[1][want], names[0][want]), index=index, dtype=object),
        "outcome": pd.Series(pd.Categorical.from_codes(outcome, categories=list(SPEAKER_OUTCOMES)), index=index),
    }
    return pd.DataFrame(frame, index=index)


@DIARIZATION.statistics(_speaker_outcomes)
def diarization_speaker_outcomes(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    mapping: str = "optimal",
    individual_file_mapping: bool = True,
    collar: float | pd.Timedelta = 0.0,
    skip_overlap: bool = False,
    files_duration: Mapping | pd.Series | None = None,
    collar_convention: str = "total",
    compat: str | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> pd.DataFrame:
    r"""When each speaker of each side is correct, in error or not scored.

    The per-speaker view of :func:`diarization_outcomes` (the same spans, the same
    options, the same mapping): a truth speaker :math:`t` is *correct* where the
    predicted speaker mapped onto it (:func:`diarization_mapping`; ``"identity"``:
    the predicted speaker of the same label) speaks too, a predicted speaker where
    the truth speaker it is mapped onto speaks; the rest of its scored speech is an
    *error* (missed or confused on the truth side, false alarm or confused on the
    predicted side), and its speech outside the scored region is *unscored*.
    With :math:`T_f` the truth and :math:`P_f` the predicted rows of file :math:`f`
    (each speaker counted once where it speaks, whatever its number of rows)
    and the components of the file's row of :func:`diarization_report`:

    .. math::

        \sum_{T_f,\ \text{correct}} d = \sum_{P_f,\ \text{correct}} d = \text{correct},\quad
        \sum_{T_f,\ \text{scored}} d = \text{total},\quad
        \sum_{P_f,\ \text{scored}} d = \text{correct} + \text{confusion} + \text{false alarm}

    (with ``compat=None``; ``compat="pyannote"`` counts a speaker overlapping itself
    once here and twice in the report). This is what
    :func:`audeval.plot.diarization_timeline` draws on the speakers' lanes.

    Args:
        truth: ground truth Series (segmented index, speaker labels)
        prediction: predicted Series (segmented index, speaker or cluster labels)
        mapping: ``"optimal"``, ``"greedy"`` or ``"identity"``
        individual_file_mapping: a mapping per file, else one over all files
        collar: unscored width (seconds or timedelta) around every truth boundary,
            as ``collar_convention`` says
        skip_overlap: do not score regions with two or more truth labels
        files_duration: mapping or Series from file to duration
        collar_convention: ``"total"`` (pyannote.metrics) or ``"per_side"`` (md-eval)
        compat: ``None`` or ``"pyannote"`` (see :func:`diarization_statistics`)
        uem: scored intervals per file (segmented index or Series; see :func:`read_uem`)

    Returns:
        DataFrame with an audformat segmented index (``file``, ``start``, ``end``),
        one row per longest run of one speaker of one side with one outcome,
        sorted by file, side, speaker (in label order) and start,
        and the columns ``side`` (``"truth"`` or ``"prediction"``),
        ``speaker`` (its label as given), ``partner`` (the label of the other side
        mapped onto it in the file, ``None`` for none) and ``outcome``
        (``"correct"``, ``"error"`` or ``"unscored"``)

    Examples:
        >>> import audformat
        >>> from audeval import diarization_speaker_outcomes
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     [7, 3], index=audformat.segmented_index(["f1", "f1"], [0, 2.5], [2.5, 4])
        ... )
        >>> out = diarization_speaker_outcomes(truth, prediction, files_duration={"f1": 4})
        >>> seconds = out.index.to_frame(index=False)[["start", "end"]].apply(lambda t: t.dt.total_seconds())
        >>> seconds.join(out.reset_index(drop=True))
           start  end        side speaker partner  outcome
        0    0.0  2.0       truth       A       7  correct
        1    2.0  2.5       truth       B       3    error
        2    2.5  4.0       truth       B       3  correct
        3    2.5  4.0  prediction       3       B  correct
        4    0.0  2.0  prediction       7       A  correct
        5    2.0  2.5  prediction       7       A    error

    """


def _region(truth, prediction, options) -> pd.MultiIndex:
    """:func:`diarization_scored_region` of a checked options object."""
    if isinstance(truth, pd.DataFrame) or not isinstance(prediction, pd.Series):
        raise TypeError(
            "truth and prediction must be pandas.Series; diarization_scored_region needs "
            "the segments, not a statistics table."
        )
    inputs, uem_arrays, truth_labels, prediction_labels = checked_inputs(truth, prediction, options)
    width = max(len(truth_labels), len(prediction_labels), 1)
    _, _, region = _rows_and_region(inputs, uem_arrays, options, width)
    file, start, end = region.intervals
    return pd.MultiIndex.from_arrays(
        [inputs.files[file], pd.to_timedelta(start, unit="ns"), pd.to_timedelta(end, unit="ns")],
        names=["file", "start", "end"],
    )


@DIARIZATION.statistics(_region)
def diarization_scored_region(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    collar: float | pd.Timedelta = 0.0,
    skip_overlap: bool = False,
    files_duration: Mapping | pd.Series | None = None,
    collar_convention: str = "total",
    compat: str | None = None,
    uem: pd.Index | pd.Series | None = None,
) -> pd.MultiIndex:
    r"""The time the diarization metrics score: the UEM the options amount to.

    Per file :math:`f`, with :math:`U_f` its ``uem`` intervals
    (else :math:`[0, \text{duration}_f]` from ``files_duration``,
    else the union of the extents of truth and prediction, with a warning),
    :math:`C_f` the collars around the truth boundaries
    and :math:`O_f` the time where two or more truth speakers speak:

    .. math::

        R_f = U_f \setminus C_f \setminus O_f \quad (O_f = \emptyset \text{ without skip\_overlap})

    So :func:`diarization_error_rate` with these options equals
    :func:`diarization_error_rate` with ``uem=`` this region and no collar or
    ``skip_overlap`` (but with ``collar_convention="per_side"``, whose mapping is found
    on the time before the collars, md-eval's rule); outside it the spans of
    :func:`diarization_outcomes` are ``"unscored"``.

    Args:
        truth: ground truth Series (segmented index, speaker labels)
        prediction: predicted Series (segmented index, speaker or cluster labels)
        collar: unscored width (seconds or timedelta) around every truth boundary,
            as ``collar_convention`` says
        skip_overlap: do not score regions with two or more truth labels
        files_duration: mapping or Series from file to duration
        collar_convention: ``"total"`` (pyannote.metrics) or ``"per_side"`` (md-eval)
        compat: ``None`` or ``"pyannote"`` (a speaker overlapping itself is overlap)
        uem: scored intervals per file (segmented index or Series; see :func:`read_uem`)

    Returns:
        audformat segmented index (``file``, ``start``, ``end``) of disjoint
        intervals sorted by file and start, as :func:`read_uem` returns a UEM

    Examples:
        >>> import audformat
        >>> from audeval import diarization_scored_region
        >>> truth = pd.Series(
        ...     ["A", "B"], index=audformat.segmented_index(["f1", "f1"], [0, 2], [2, 4])
        ... )
        >>> region = diarization_scored_region(truth, truth, collar=1.0, files_duration={"f1": 5})
        >>> [(s.total_seconds(), e.total_seconds()) for _, s, e in region]
        [(0.5, 1.5), (2.5, 3.5), (4.5, 5.0)]

    """
