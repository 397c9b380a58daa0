r"""Structural segmentation metrics (SPEC section 5, ``mir_eval.segment``).

Per file, truth and prediction are *partitions* of the track:
one label at a time.
Rows of one side that overlap within a file are an error;
gaps are allowed and form one extra "no label" cluster of that side,
which cannot collide with any user label.

Every function applies the preprocessing of ``mir_eval.segment.evaluate``
per file, so that the single functions give exactly the columns of
:func:`structure_report`:

* the track of a file is ``[0, T)`` with ``T`` the latest end in the truth
  (``files_duration`` only resolves ``end=NaT``);
* the truth is padded to start at 0 (the pad is a gap);
* the prediction is cropped to ``[0, T)`` and padded up to ``T`` (gaps).

Boundary metrics use the start and end times of all segments and gaps
(so 0 and ``T`` are boundaries of both sides).
Clustering metrics sample both partitions on a frame grid:
frame ``k`` takes the label active at ``k * frame_size``
(segments are half-open ``[start, end)``),
and a file has ``floor(T / frame_size)`` frames.
They are computed from the contingency table of frame counts
per (truth label, predicted label),
which is built from interval overlaps with integer divisions:
cost grows with the number of segments, not with the number of frames,
and no frame-pair matrix is formed.
``frame_size=None`` gives the exact frameless limit
(counts become durations; pair counts become squared durations).

Several files: a function returns the mean over files of its per-file values
(files where a value is undefined, NaN, are left out;
NaN if no file has a value);
:func:`structure_report` gives one row per file,
and ``structure_report(...).mean()`` the same means.

Degenerate files follow one table (``n`` frames, ``K`` non-empty clusters
of a side; mir_eval's values, made explicit):

===============================  ===============================================
case                             values
===============================  ===============================================
no truth in the file (``T=0``)   boundary P/R/F 0, deviations NaN,
                                 every clustering value 0.0
no boundary left after ``trim``  boundary P/R/F 0, deviations NaN
no prediction in the file        the prediction is one gap ``[0, T)``
``n < 2`` frames                 pairwise P/R/F and Rand NaN (no pair of frames)
both sides one cluster (or none) ARI, AMI, NMI 1.0; MI 0.0
both sides ``n`` clusters        ARI 1.0
a side with one cluster          its NCE / V term is 0.0 (normaliser 0)
any other 0 / 0                  NaN
``frame_size=None``              AMI NaN (see :func:`mutual_information`)
===============================  ===============================================

``compat="mir_eval"`` reproduces ``mir_eval.segment`` 0.8.2 to rounding:
frame times ``float32(k) * float32(frame_size)`` compared in float64
with segments closed on both ends, a frame on a shared boundary taking the
label of the row that comes later in the input;
the frame count ``floor(T / frame_size)`` in float64;
labels compared as ``str(label).lower()``;
its padding labels (``__T_MIN`` from 0 to the first start of a side,
``__T_MAX`` from the last predicted end to ``T``, ``None`` in interior gaps,
compared lower-cased like the labels, so a user label ``"None"`` joins the gaps);
prediction rows from the first one in row order that starts after ``T``
dropped (rows starting exactly at ``T``, on which mir_eval raises, too),
while the ``__T_MIN`` pad still ends at the first start of all prediction rows;
boundaries (edges of rows and pads, not of gaps) rounded to 5 decimals
and compared in float64 seconds.
Inputs on which mir_eval raises (no truth in a file; a prediction whose every row
is dropped) follow the table above.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import datetime
import numbers

import numpy as np
import pandas as pd

from audeval import _structure_core as core
from audeval._validation import NS_PER_SECOND
from audeval._validation import check_inputs
from audeval._validation import check_option
from audeval._validation import to_ns


COMPAT = (None, "mir_eval")

#: mir_eval.segment.evaluate keys and the column names of structure_report
MIR_EVAL_COLUMNS = {
    "Precision@0.5": "precision_at_0_5",
    "Recall@0.5": "recall_at_0_5",
    "F-measure@0.5": "f_measure_at_0_5",
    "Precision@3.0": "precision_at_3_0",
    "Recall@3.0": "recall_at_3_0",
    "F-measure@3.0": "f_measure_at_3_0",
    "Ref-to-est deviation": "truth_to_prediction_deviation",
    "Est-to-ref deviation": "prediction_to_truth_deviation",
    "Pairwise Precision": "pairwise_precision",
    "Pairwise Recall": "pairwise_recall",
    "Pairwise F-measure": "pairwise_f_measure",
    "Rand Index": "rand_index",
    "Adjusted Rand Index": "adjusted_rand_index",
    "Mutual Information": "mutual_information",
    "Adjusted Mutual Information": "adjusted_mutual_information",
    "Normalized Mutual Information": "normalized_mutual_information",
    "NCE Over": "nce_over",
    "NCE Under": "nce_under",
    "NCE F-measure": "nce_f_measure",
    "V Precision": "v_precision",
    "V Recall": "v_recall",
    "V-measure": "v_measure",
}

CLUSTERING_COLUMNS = list(MIR_EVAL_COLUMNS.values())[8:]


# -------------------------------------------------------------------------
# Options
# -------------------------------------------------------------------------


def _seconds(value, name: str) -> float:
    """A positive duration as float seconds (compat mode computes in float)."""
    if isinstance(value, (pd.Timedelta, datetime.timedelta, np.timedelta64)):
        return to_ns(value, name) / NS_PER_SECOND
    to_ns(value, name)  # type and sign checks
    return float(value)


def _check_frame_size(frame_size, compat: bool) -> int | float | None:
    if frame_size is None:
        if compat:
            raise ValueError(
                'frame_size=None (the frameless limit) has no mir_eval counterpart; '
                'use compat=None or give a frame size.'
            )
        return None
    ns = to_ns(frame_size, "frame_size", allow_none=False)
    if ns <= 0:
        raise ValueError(f"frame_size must be positive; got {frame_size!r}.")
    return _seconds(frame_size, "frame_size") if compat else ns


def _check_window(window, compat: bool) -> int | float:
    ns = to_ns(window, "window", allow_none=False)
    return _seconds(window, "window") if compat else ns


def _check_beta(beta) -> float:
    if not isinstance(beta, numbers.Real) or isinstance(beta, bool):
        raise TypeError(f"beta must be a positive float; got {type(beta).__name__}.")
    if not np.isfinite(beta) or beta <= 0:
        raise ValueError(f"beta must be a positive, finite float; got {beta!r}.")
    return float(beta)


def _check_bool(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r}.")
    return bool(value)


def _prepare(truth, prediction, files_duration, compat) -> core.Prepared:
    compat = check_option(compat, "compat", COMPAT) == "mir_eval"
    inputs = check_inputs(truth, prediction, files_duration=files_duration)
    return core.prepare(inputs, truth, prediction, compat)


def _mean(values: np.ndarray) -> float:
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0 or np.isnan(values).all():
        return float("nan")
    return float(np.nanmean(values))


# -------------------------------------------------------------------------
# Per-file computations
# -------------------------------------------------------------------------


def _detection(prep, window, beta, trim):
    t, p = core.boundaries(prep, trim)
    return core.detection_scores(t, p, window, beta, prep.compat, prep.n_files)


def _deviation(prep, trim):
    t, p = core.boundaries(prep, trim)
    return core.deviation_scores(t, p, prep.compat, prep.n_files)


def _clustering(prep, frame_size, beta, which=None) -> dict[str, np.ndarray]:
    table = core.contingency(prep, frame_size)
    scores = core.clustering_scores(
        table, prep.n_files, frames=frame_size is not None, beta=beta, which=which
    )
    no_truth = prep.extent == 0
    for name, values in scores.items():
        values[no_truth] = 0.0
    return scores


# -------------------------------------------------------------------------
# Public functions
# -------------------------------------------------------------------------


def boundary_detection(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    window: float | pd.Timedelta = 0.5,
    beta: float = 1.0,
    trim: bool = False,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> tuple[float, float, float]:
    r"""Boundary detection precision, recall and F-measure.

    A predicted and a true boundary of a file *hit*
    when they are at most ``window`` apart (inclusive, exact nanoseconds).
    Each boundary is used at most once;
    the number of hits :math:`h` is a maximum matching
    (as ``mir_eval.segment.detection``).
    Per file, with :math:`B_t`, :math:`B_p` true and predicted boundaries:

    .. math::

        P = \frac{h}{|B_p|}, \quad R = \frac{h}{|B_t|}, \quad
        F_\beta = \frac{(1 + \beta^2) P R}{\beta^2 P + R}

    Boundaries are the start and end times of all segments
    after the preprocessing of :func:`structure_report`,
    so 0 and the track end ``T`` are boundaries of both sides.

    Args:
        truth: true segments, a partition of each file
        prediction: predicted segments, a partition of each file
        window: largest distance of a hit, in seconds or as timedelta
        beta: weight of recall in the F-measure
        trim: leave out the first and last boundary of each side
            (0 and ``T``)
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval
            (boundaries rounded to 10 µs, float64 window)

    Returns:
        precision, recall, F-measure: means over files

    Raises:
        ValueError: if segments of one side overlap within a file,
            or have zero length

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["verse", "chorus"],
        ...     index=audformat.segmented_index(["a", "a"], [0, 10], [10, 20]),
        ... )
        >>> prediction = pd.Series(
        ...     ["x", "y", "x"],
        ...     index=audformat.segmented_index(["a"] * 3, [0, 10.2, 15], [10.2, 15, 20]),
        ... )
        >>> [round(v, 3) for v in boundary_detection(truth, prediction)]
        [0.75, 1.0, 0.857]
        >>> [round(v, 3) for v in boundary_detection(truth, prediction, trim=True)]
        [0.5, 1.0, 0.667]

    """
    trim = _check_bool(trim, "trim")
    beta = _check_beta(beta)
    prep = _prepare(truth, prediction, files_duration, compat)
    window = _check_window(window, prep.compat)
    return tuple(_mean(v) for v in _detection(prep, window, beta, trim))


def boundary_deviation(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    trim: bool = False,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> tuple[float, float]:
    r"""Median distance from each boundary to the nearest one of the other side.

    Per file:

    .. math::

        D_{t \to p} = \operatorname{median}_{b \in B_t} \min_{c \in B_p} |b - c|,
        \quad
        D_{p \to t} = \operatorname{median}_{c \in B_p} \min_{b \in B_t} |b - c|

    in seconds, NaN when a side has no boundary (see the module table).
    Boundaries as in :func:`boundary_detection`.

    Args:
        truth: true segments, a partition of each file
        prediction: predicted segments, a partition of each file
        trim: leave out the first and last boundary of each side
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval

    Returns:
        truth-to-prediction and prediction-to-truth deviation
        (mir_eval's "Ref-to-est" and "Est-to-ref"): means over files

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["verse", "chorus"],
        ...     index=audformat.segmented_index(["a", "a"], [0, 10], [10, 20]),
        ... )
        >>> prediction = pd.Series(
        ...     ["x", "y", "x"],
        ...     index=audformat.segmented_index(["a"] * 3, [0, 10.2, 15], [10.2, 15, 20]),
        ... )
        >>> [round(v, 3) for v in boundary_deviation(truth, prediction)]
        [0.0, 0.1]

    """
    trim = _check_bool(trim, "trim")
    prep = _prepare(truth, prediction, files_duration, compat)
    return tuple(_mean(v) for v in _deviation(prep, trim))


def pairwise_clustering(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    frame_size: float | pd.Timedelta | None = 0.1,
    beta: float = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> tuple[float, float, float]:
    r"""Pairwise frame clustering precision, recall and F-measure.

    Over all pairs of distinct frames of a file,
    precision is the share of pairs with equal predicted labels
    that also have equal true labels, and recall the converse.
    With the contingency table :math:`n_{ij}` (frames with true label
    :math:`i` and predicted label :math:`j`), :math:`a_i = \sum_j n_{ij}`,
    :math:`b_j = \sum_i n_{ij}`:

    .. math::

        P = \frac{\sum_{ij} \binom{n_{ij}}{2}}{\sum_j \binom{b_j}{2}}, \quad
        R = \frac{\sum_{ij} \binom{n_{ij}}{2}}{\sum_i \binom{a_i}{2}}, \quad
        F_\beta = \frac{(1 + \beta^2) P R}{\beta^2 P + R}

    With ``frame_size=None`` :math:`\binom{x}{2}` becomes :math:`x^2 / 2`
    of durations.

    Args:
        truth: true segments, a partition of each file
        prediction: predicted segments, a partition of each file
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        beta: weight of recall in the F-measure
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval's frame grid and labels

    Returns:
        precision, recall, F-measure: means over files

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["verse", "chorus"],
        ...     index=audformat.segmented_index(["a", "a"], [0, 10], [10, 20]),
        ... )
        >>> prediction = pd.Series(
        ...     ["x", "y", "x"],
        ...     index=audformat.segmented_index(["a"] * 3, [0, 10.2, 15], [10.2, 15, 20]),
        ... )
        >>> [round(v, 4) for v in pairwise_clustering(truth, prediction)]
        [0.5874, 0.7479, 0.658]
        >>> [round(v, 4) for v in pairwise_clustering(truth, prediction, frame_size=None)]
        [0.5907, 0.7504, 0.661]

    """
    beta = _check_beta(beta)
    prep = _prepare(truth, prediction, files_duration, compat)
    frame_size = _check_frame_size(frame_size, prep.compat)
    scores = _clustering(prep, frame_size, beta, frozenset({"pairwise"}))
    return tuple(
        _mean(scores[k]) for k in ("pairwise_precision", "pairwise_recall", "pairwise_f_measure")
    )


def rand_index(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    frame_size: float | pd.Timedelta | None = 0.1,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> float:
    r"""Rand index of the frame clusterings.

    The share of pairs of distinct frames on which truth and prediction agree
    (same label in both, or different labels in both):

    .. math::

        RI = \frac{\binom{n}{2} + 2 \sum_{ij} \binom{n_{ij}}{2}
             - \sum_i \binom{a_i}{2} - \sum_j \binom{b_j}{2}}{\binom{n}{2}}

    (notation of :func:`pairwise_clustering`, :math:`n` frames).

    Args:
        truth: true segments, a partition of each file
        prediction: predicted segments, a partition of each file
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval's frame grid and labels

    Returns:
        Rand index: mean over files

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["verse", "chorus"],
        ...     index=audformat.segmented_index(["a", "a"], [0, 10], [10, 20]),
        ... )
        >>> prediction = pd.Series(
        ...     ["x", "y", "x"],
        ...     index=audformat.segmented_index(["a"] * 3, [0, 10.2, 15], [10.2, 15, 20]),
        ... )
        >>> round(rand_index(truth, prediction), 4)
        0.6133

    """
    prep = _prepare(truth, prediction, files_duration, compat)
    frame_size = _check_frame_size(frame_size, prep.compat)
    return _mean(_clustering(prep, frame_size, 1.0, frozenset({"rand"}))["rand_index"])


def adjusted_rand_index(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    frame_size: float | pd.Timedelta | None = 0.1,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> float:
    r"""Adjusted Rand index of the frame clusterings (Hubert and Arabie).

    .. math::

        ARI = \frac{\sum_{ij} \binom{n_{ij}}{2} - E}
                   {\frac{1}{2}\left(\sum_i \binom{a_i}{2}
                    + \sum_j \binom{b_j}{2}\right) - E},
        \quad
        E = \frac{\sum_i \binom{a_i}{2} \sum_j \binom{b_j}{2}}{\binom{n}{2}}

    1.0 when both sides have one cluster, or every frame its own cluster.

    Args:
        truth: true segments, a partition of each file
        prediction: predicted segments, a partition of each file
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval's frame grid and labels

    Returns:
        adjusted Rand index: mean over files

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["verse", "chorus"],
        ...     index=audformat.segmented_index(["a", "a"], [0, 10], [10, 20]),
        ... )
        >>> prediction = pd.Series(
        ...     ["x", "y", "x"],
        ...     index=audformat.segmented_index(["a"] * 3, [0, 10.2, 15], [10.2, 15, 20]),
        ... )
        >>> round(adjusted_rand_index(truth, prediction), 4)
        0.2276

    """
    prep = _prepare(truth, prediction, files_duration, compat)
    frame_size = _check_frame_size(frame_size, prep.compat)
    return _mean(_clustering(prep, frame_size, 1.0, frozenset({"ari"}))["adjusted_rand_index"])


def mutual_information(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    frame_size: float | pd.Timedelta | None = 0.1,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> tuple[float, float, float]:
    r"""Mutual information, adjusted and normalised mutual information.

    With :math:`p_{ij} = n_{ij} / n` (natural logarithms):

    .. math::

        MI = \sum_{ij} p_{ij} \log \frac{n\, n_{ij}}{a_i b_j}, \quad
        NMI = \frac{MI}{\max(\sqrt{H_t H_p}, 10^{-10})}, \quad
        AMI = \frac{MI - E[MI]}{\max(H_t, H_p) - E[MI]}

    :math:`H_t`, :math:`H_p` are the entropies of the true and predicted
    labels, and :math:`E[MI]` is the expected mutual information of two
    random clusterings with the same cluster sizes
    (hypergeometric model, as mir_eval and sklearn).
    AMI and NMI are 1.0 when both sides have one cluster.

    AMI is defined for frames only:
    the hypergeometric expectation counts how many frames two random
    clusterings share, so it depends on the number of frames
    and has no duration-weighted counterpart
    (it tends to 0 as frames get shorter).
    With ``frame_size=None`` AMI is NaN; MI and NMI are exact.

    Args:
        truth: true segments, a partition of each file
        prediction: predicted segments, a partition of each file
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval's frame grid and labels

    Returns:
        MI, AMI, NMI: means over files

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["verse", "chorus"],
        ...     index=audformat.segmented_index(["a", "a"], [0, 10], [10, 20]),
        ... )
        >>> prediction = pd.Series(
        ...     ["x", "y", "x"],
        ...     index=audformat.segmented_index(["a"] * 3, [0, 10.2, 15], [10.2, 15, 20]),
        ... )
        >>> [round(v, 4) for v in mutual_information(truth, prediction)]
        [0.2049, 0.293, 0.3315]

    """
    prep = _prepare(truth, prediction, files_duration, compat)
    frame_size = _check_frame_size(frame_size, prep.compat)
    scores = _clustering(prep, frame_size, 1.0, frozenset({"mi", "ami"}))
    return tuple(
        _mean(scores[k])
        for k in (
            "mutual_information",
            "adjusted_mutual_information",
            "normalized_mutual_information",
        )
    )


def normalized_conditional_entropy(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    frame_size: float | pd.Timedelta | None = 0.1,
    beta: float = 1.0,
    marginal: bool = False,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> tuple[float, float, float]:
    r"""Normalised conditional entropy scores (Lukashevich), over- and under-segmentation.

    With conditional entropies in bits
    and :math:`K_t`, :math:`K_p` the numbers of non-empty clusters:

    .. math::

        S_o = 1 - \frac{H(p \mid t)}{\log_2 K_p}, \quad
        S_u = 1 - \frac{H(t \mid p)}{\log_2 K_t}, \quad
        F_\beta = \frac{(1 + \beta^2) S_o S_u}{\beta^2 S_o + S_u}

    ``marginal=True`` normalises by the marginal entropies
    :math:`H(p)` and :math:`H(t)` instead (the V-measure).
    A score whose normaliser is 0 (one cluster) is 0.0, as in mir_eval.

    Args:
        truth: true segments, a partition of each file
        prediction: predicted segments, a partition of each file
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        beta: weight of the under-segmentation score in the F-measure
        marginal: normalise by marginal entropies
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval's frame grid and labels

    Returns:
        over-segmentation score, under-segmentation score, F-measure:
        means over files

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["verse", "chorus"],
        ...     index=audformat.segmented_index(["a", "a"], [0, 10], [10, 20]),
        ... )
        >>> prediction = pd.Series(
        ...     ["x", "y", "x"],
        ...     index=audformat.segmented_index(["a"] * 3, [0, 10.2, 15], [10.2, 15, 20]),
        ... )
        >>> [round(v, 4) for v in normalized_conditional_entropy(truth, prediction)]
        [0.5006, 0.2956, 0.3717]

    """
    beta = _check_beta(beta)
    marginal = _check_bool(marginal, "marginal")
    prep = _prepare(truth, prediction, files_duration, compat)
    frame_size = _check_frame_size(frame_size, prep.compat)
    key = "v" if marginal else "nce"
    scores = _clustering(prep, frame_size, beta, frozenset({key}))
    names = (
        ("v_precision", "v_recall", "v_measure")
        if marginal
        else ("nce_over", "nce_under", "nce_f_measure")
    )
    return tuple(_mean(scores[k]) for k in names)


def v_measure(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    frame_size: float | pd.Timedelta | None = 0.1,
    beta: float = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> tuple[float, float, float]:
    r"""V-measure (Rosenberg and Hirschberg): homogeneity-style precision and recall.

    :func:`normalized_conditional_entropy` with ``marginal=True``:

    .. math::

        V_P = 1 - \frac{H(p \mid t)}{H(p)}, \quad
        V_R = 1 - \frac{H(t \mid p)}{H(t)}, \quad
        V_\beta = \frac{(1 + \beta^2) V_P V_R}{\beta^2 V_P + V_R}

    Args:
        truth: true segments, a partition of each file
        prediction: predicted segments, a partition of each file
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        beta: weight of recall in the V-measure
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval's frame grid and labels

    Returns:
        V precision, V recall, V-measure: means over files

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["verse", "chorus"],
        ...     index=audformat.segmented_index(["a", "a"], [0, 10], [10, 20]),
        ... )
        >>> prediction = pd.Series(
        ...     ["x", "y", "x"],
        ...     index=audformat.segmented_index(["a"] * 3, [0, 10.2, 15], [10.2, 15, 20]),
        ... )
        >>> [round(v, 4) for v in v_measure(truth, prediction)]
        [0.3718, 0.2956, 0.3294]

    """
    return normalized_conditional_entropy(
        truth,
        prediction,
        frame_size=frame_size,
        beta=beta,
        marginal=True,
        files_duration=files_duration,
        compat=compat,
    )


def _window_name(window: float) -> str:
    return str(float(window)).replace(".", "_").replace("-", "_")


def structure_report(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    windows: Sequence[float] = (0.5, 3.0),
    frame_size: float | pd.Timedelta | None = 0.1,
    beta: float = 1.0,
    trim: bool = False,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> pd.DataFrame:
    r"""All values of ``mir_eval.segment.evaluate``, one row per file.

    Columns (mir_eval's key in brackets), for every window ``w``
    in ``windows`` (``0.5`` gives ``_0_5``, ``3.0`` gives ``_3_0``):

    * ``precision_at_<w>``, ``recall_at_<w>``, ``f_measure_at_<w>``
      (``Precision@w``, ``Recall@w``, ``F-measure@w``):
      :func:`boundary_detection`
    * ``truth_to_prediction_deviation`` (``Ref-to-est deviation``),
      ``prediction_to_truth_deviation`` (``Est-to-ref deviation``):
      :func:`boundary_deviation`
    * ``pairwise_precision``, ``pairwise_recall``, ``pairwise_f_measure``
      (``Pairwise Precision/Recall/F-measure``): :func:`pairwise_clustering`
    * ``rand_index`` (``Rand Index``), ``adjusted_rand_index``
      (``Adjusted Rand Index``)
    * ``mutual_information``, ``adjusted_mutual_information``,
      ``normalized_mutual_information`` (``Mutual Information``,
      ``Adjusted Mutual Information``, ``Normalized Mutual Information``)
    * ``nce_over``, ``nce_under``, ``nce_f_measure``
      (``NCE Over/Under/F-measure``): :func:`normalized_conditional_entropy`
    * ``v_precision``, ``v_recall``, ``v_measure``
      (``V Precision``, ``V Recall``, ``V-measure``): :func:`v_measure`

    As in mir_eval's ``evaluate``, per file the truth is padded to start at 0
    and the prediction cropped or padded to the truth's end ``T``
    (the latest true end); pads are gaps, see the module documentation.
    The mean over files of every column (``report.mean()``)
    is what the single functions return.

    Args:
        truth: true segments, a partition of each file
        prediction: predicted segments, a partition of each file
        windows: boundary hit windows in seconds
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit (AMI is then NaN)
        beta: weight of recall in every F-measure
        trim: leave out the first and last boundary in the boundary metrics
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval 0.8.2

    Returns:
        DataFrame indexed by file (the union of files of both sides)

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["verse", "chorus"],
        ...     index=audformat.segmented_index(["a", "a"], [0, 10], [10, 20]),
        ... )
        >>> prediction = pd.Series(
        ...     ["x", "y", "x"],
        ...     index=audformat.segmented_index(["a"] * 3, [0, 10.2, 15], [10.2, 15, 20]),
        ... )
        >>> report = structure_report(truth, prediction)
        >>> report[["f_measure_at_0_5", "rand_index", "v_measure"]].round(3)
              f_measure_at_0_5  rand_index  v_measure
        file
        a                0.857       0.613      0.329

        mir_eval's frame grid puts the frame at 10.2 s
        (``float32(102) * float32(0.1)`` is just below 10.2) in the first segment:

        >>> report = structure_report(truth, prediction, compat="mir_eval")
        >>> report[["f_measure_at_0_5", "rand_index", "v_measure"]].round(3)
              f_measure_at_0_5  rand_index  v_measure
        file
        a                0.857       0.608      0.322

    """
    trim = _check_bool(trim, "trim")
    beta = _check_beta(beta)
    if isinstance(windows, (str, bytes)) or not isinstance(windows, Sequence):
        raise TypeError(f"windows must be a sequence of durations; got {windows!r}.")
    prep = _prepare(truth, prediction, files_duration, compat)
    frame_size = _check_frame_size(frame_size, prep.compat)
    t, p = core.boundaries(prep, trim)
    columns: dict[str, np.ndarray] = {}
    for window in windows:
        w = _check_window(window, prep.compat)
        name = _window_name(w if prep.compat else w / NS_PER_SECOND)
        precision, recall, f = core.detection_scores(t, p, w, beta, prep.compat, prep.n_files)
        columns[f"precision_at_{name}"] = precision
        columns[f"recall_at_{name}"] = recall
        columns[f"f_measure_at_{name}"] = f
    t_to_p, p_to_t = core.deviation_scores(t, p, prep.compat, prep.n_files)
    columns["truth_to_prediction_deviation"] = t_to_p
    columns["prediction_to_truth_deviation"] = p_to_t
    scores = _clustering(prep, frame_size, beta)
    for name in CLUSTERING_COLUMNS:
        columns[name] = scores[name]
    return pd.DataFrame(columns, index=pd.Index(prep.files, name="file"))


__all__ = [
    "adjusted_rand_index",
    "boundary_detection",
    "boundary_deviation",
    "mutual_information",
    "normalized_conditional_entropy",
    "pairwise_clustering",
    "rand_index",
    "structure_report",
    "v_measure",
]
