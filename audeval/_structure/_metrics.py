"""Structural segmentation metrics (SPEC section 5): boundaries and frame clusterings.

Every metric takes ``(truth, prediction)`` Series
or ``(table, None)`` with a table of :func:`structure_statistics`,
and reduces the per-file statistics with the same code both ways
(:mod:`audeval._structure._table`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from audeval._options import Default
from audeval._options import given
from audeval._options import value_of
from audeval._protocol import check_table
from audeval._structure import _table
from audeval._structure._options import OPTIONS
from audeval._structure._options import _check_beta
from audeval._structure._options import _check_bool
from audeval._structure._options import make_options
from audeval._structure._options import normalise
from audeval._structure._prepare import prepare
from audeval._validation import check_inputs
from audeval._validation import to_ns


# -------------------------------------------------------------------------
# The gate: Series or statistics table
# -------------------------------------------------------------------------


def resolve(truth, prediction, groups: frozenset, call: Mapping[str, object]) -> pd.DataFrame:
    """The statistics table of a metric call: computed from Series, or given and checked.

    ``call`` holds the call's statistics options (:class:`Default` where not given)
    and ``files_duration``.
    With a table, ``window`` is not checked here: the metric picks its column.
    """
    if prediction is None and isinstance(truth, pd.DataFrame):
        if call.get("files_duration") is not None:
            raise ValueError(
                "files_duration cannot be applied to a statistics table: "
                "pass it to structure_statistics."
            )
        explicit = {
            k: v for k, v in call.items() if k in OPTIONS and k != "window" and given(v)
        }
        check_table(
            truth,
            None,
            family="structure",
            given=normalise(explicit),
            statistics_name="structure_statistics",
        )
        return truth
    if prediction is None:
        raise TypeError(
            "prediction is None: pass a prediction Series, "
            "or a table from structure_statistics in place of truth."
        )
    options = make_options(**{k: value_of(v) for k, v in call.items() if k in OPTIONS})
    inputs = check_inputs(truth, prediction, files_duration=call.get("files_duration"))
    prep = prepare(inputs, truth, prediction, options.compat)
    return _table.statistics_table(prep, options, groups)


def _window_ns(window) -> int | None:
    """The window a metric asks a table for (``None``: not given)."""
    return to_ns(value_of(window), "window", allow_none=False) if given(window) else None


def _clustering(truth, prediction, which: frozenset, beta, call) -> dict[str, np.ndarray]:
    groups = frozenset().union(*(_table.CLUSTERING_GROUPS[k] for k in which))
    table = resolve(truth, prediction, groups, call)
    return _table.clustering_values(table, beta, which)


def _means(values: dict, names, empty: float = 0.0) -> tuple[float, ...]:
    return tuple(_table.mean(values[name], empty) for name in names)

# -------------------------------------------------------------------------
# Public functions
# -------------------------------------------------------------------------


def boundary_detection(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    *,
    window: float | pd.Timedelta = Default(0.5),
    beta: float = Default(1.0),
    trim: bool = Default(False),
    pad: bool = Default(True),
    frame_size: float | pd.Timedelta | None = Default(0.1),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
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
    so 0 and the track end ``T`` are boundaries of both sides
    (``pad=True``: the values of ``mir_eval.segment.evaluate``).
    ``pad=False`` takes the start and end times of the rows as given,
    without padding or cropping
    (the values of ``mir_eval.segment.detection`` called on the rows).

    Args:
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        window: largest distance of a hit, in seconds or as timedelta
        beta: weight of recall in the F-measure
        trim: leave out the first and last boundary of each side
            (0 and ``T``)
        pad: apply ``mir_eval.segment.evaluate``'s padding and cropping
            (as :func:`structure_report`); ``False``: the boundaries of the rows
            as given (``mir_eval.segment.detection`` / ``deviation`` called directly)
        frame_size: frame hop of the statistics' clustering sums:
            no effect on boundaries; with a table, checked against the table's
            (every structure metric takes every option of :func:`structure_statistics`)
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval
            (boundaries rounded to 10 µs, float64 window)

    Returns:
        precision, recall, F-measure: means over files
        (0.0 each without files, as mir_eval for empty input)

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

        Rows as given (``mir_eval.segment.detection``) or padded to start at 0
        (``mir_eval.segment.evaluate``):

        >>> late = pd.Series(["a", "b"], index=audformat.segmented_index(["b", "b"], [1, 2], [2, 3]))
        >>> early = pd.Series(["x", "y"], index=audformat.segmented_index(["b", "b"], [0, 2], [2, 3]))
        >>> [round(v, 3) for v in boundary_detection(late, early, pad=False)]
        [0.667, 0.667, 0.667]
        >>> [round(v, 3) for v in boundary_detection(late, early)]
        [1.0, 0.75, 0.857]

    """
    beta = _check_beta(beta)
    call = dict(
        window=window, trim=trim, pad=pad, frame_size=frame_size, compat=compat,
        files_duration=files_duration,
    )
    table = resolve(truth, prediction, frozenset({"boundary"}), call)
    column = _table.hits_column(table, _window_ns(window))
    return tuple(_table.mean(v, 0.0) for v in _table.detection_values(table, column, beta))


def boundary_deviation(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    *,
    trim: bool = Default(False),
    pad: bool = Default(True),
    frame_size: float | pd.Timedelta | None = Default(0.1),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
) -> tuple[float, float]:
    r"""Median distance from each boundary to the nearest one of the other side.

    Per file:

    .. math::

        D_{t \to p} = \operatorname{median}_{b \in B_t} \min_{c \in B_p} |b - c|,
        \quad
        D_{p \to t} = \operatorname{median}_{c \in B_p} \min_{b \in B_t} |b - c|

    in seconds, NaN when a side has no boundary (see the module table).
    Boundaries as in :func:`boundary_detection`:
    ``pad=True`` gives the values of ``mir_eval.segment.evaluate``,
    ``pad=False`` those of ``mir_eval.segment.deviation`` called on the rows.

    Args:
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        trim: leave out the first and last boundary of each side
        pad: apply ``mir_eval.segment.evaluate``'s padding and cropping
            (as :func:`structure_report`); ``False``: the boundaries of the rows
            as given (``mir_eval.segment.detection`` / ``deviation`` called directly)
        frame_size: frame hop of the statistics' clustering sums:
            no effect on boundaries; with a table, checked against the table's
            (every structure metric takes every option of :func:`structure_statistics`)
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval

    Returns:
        truth-to-prediction and prediction-to-truth deviation
        (mir_eval's "Ref-to-est" and "Est-to-ref"): means over files
        (NaN without files, as mir_eval for empty input)

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
    call = dict(
        trim=trim, pad=pad, frame_size=frame_size, compat=compat, files_duration=files_duration
    )
    table = resolve(truth, prediction, frozenset({"deviation"}), call)
    return tuple(_table.mean(v, np.nan) for v in _table.deviation_values(table))


def pairwise_clustering(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    *,
    frame_size: float | pd.Timedelta | None = Default(0.1),
    beta: float = Default(1.0),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
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
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        beta: weight of recall in the F-measure
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval's frame grid and labels

    Returns:
        precision, recall, F-measure: means over files (0.0 without files)

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
    call = dict(frame_size=frame_size, compat=compat, files_duration=files_duration)
    scores = _clustering(truth, prediction, frozenset({"pairwise"}), beta, call)
    return _means(scores, ("pairwise_precision", "pairwise_recall", "pairwise_f_measure"))


def rand_index(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    *,
    frame_size: float | pd.Timedelta | None = Default(0.1),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
) -> float:
    r"""Rand index of the frame clusterings.

    The share of pairs of distinct frames on which truth and prediction agree
    (same label in both, or different labels in both):

    .. math::

        RI = \frac{\binom{n}{2} + 2 \sum_{ij} \binom{n_{ij}}{2}
             - \sum_i \binom{a_i}{2} - \sum_j \binom{b_j}{2}}{\binom{n}{2}}

    (notation of :func:`pairwise_clustering`, :math:`n` frames).

    Args:
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval's frame grid and labels

    Returns:
        Rand index: mean over files (0.0 without files)

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
    call = dict(frame_size=frame_size, compat=compat, files_duration=files_duration)
    scores = _clustering(truth, prediction, frozenset({"rand"}), 1.0, call)
    return _means(scores, ("rand_index",))[0]


def adjusted_rand_index(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    *,
    frame_size: float | pd.Timedelta | None = Default(0.1),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
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
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval's frame grid and labels

    Returns:
        adjusted Rand index: mean over files (0.0 without files)

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
    call = dict(frame_size=frame_size, compat=compat, files_duration=files_duration)
    scores = _clustering(truth, prediction, frozenset({"ari"}), 1.0, call)
    return _means(scores, ("adjusted_rand_index",))[0]


def mutual_information(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    *,
    frame_size: float | pd.Timedelta | None = Default(0.1),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
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
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval's frame grid and labels

    Returns:
        MI, AMI, NMI: means over files (0.0 without files)

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
    call = dict(frame_size=frame_size, compat=compat, files_duration=files_duration)
    scores = _clustering(truth, prediction, frozenset({"mi", "ami"}), 1.0, call)
    return _means(
        scores,
        ("mutual_information", "adjusted_mutual_information", "normalized_mutual_information"),
    )


def normalized_conditional_entropy(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    *,
    frame_size: float | pd.Timedelta | None = Default(0.1),
    beta: float = Default(1.0),
    marginal: bool = Default(False),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
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
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        beta: weight of the under-segmentation score in the F-measure
        marginal: normalise by marginal entropies
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval's frame grid and labels

    Returns:
        over-segmentation score, under-segmentation score, F-measure:
        means over files (0.0 without files)

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
    key = "v" if marginal else "nce"
    call = dict(frame_size=frame_size, compat=compat, files_duration=files_duration)
    scores = _clustering(truth, prediction, frozenset({key}), beta, call)
    names = (
        ("v_precision", "v_recall", "v_measure")
        if marginal
        else ("nce_over", "nce_under", "nce_f_measure")
    )
    return _means(scores, names)


def v_measure(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    *,
    frame_size: float | pd.Timedelta | None = Default(0.1),
    beta: float = Default(1.0),
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = Default(None),
) -> tuple[float, float, float]:
    r"""V-measure (Rosenberg and Hirschberg): homogeneity-style precision and recall.

    :func:`normalized_conditional_entropy` with ``marginal=True``:

    .. math::

        V_P = 1 - \frac{H(p \mid t)}{H(p)}, \quad
        V_R = 1 - \frac{H(t \mid p)}{H(t)}, \quad
        V_\beta = \frac{(1 + \beta^2) V_P V_R}{\beta^2 V_P + V_R}

    Args:
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        beta: weight of recall in the V-measure
        files_duration: durations to resolve ``end=NaT``
        compat: ``"mir_eval"`` to reproduce mir_eval's frame grid and labels

    Returns:
        V precision, V recall, V-measure: means over files (0.0 without files)

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


