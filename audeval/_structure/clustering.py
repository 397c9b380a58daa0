"""Structure metrics of the frame clusterings (SPEC section 5): pairwise, Rand, MI, NCE, V.

Every metric takes ``(truth, prediction)`` Series
or ``(table, None)`` with a table of :func:`structure_statistics`,
and reduces the per-file contingency sums with the same code both ways
(:mod:`audeval._structure.statistics`).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from audeval._core.docs import fill
from audeval._structure.metrics import metric


@metric("pairwise_clustering")
@fill()
def pairwise_clustering(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
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
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        {beta}
        {files_duration}
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



@metric("rand_index", single=True)
@fill()
def rand_index(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
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
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        {files_duration}
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



@metric("adjusted_rand_index", single=True)
@fill()
def adjusted_rand_index(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
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
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        {files_duration}
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



@metric("mutual_information")
@fill()
def mutual_information(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
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
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        {files_duration}
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



@metric("normalized_conditional_entropy")
@fill()
def normalized_conditional_entropy(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
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
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        beta: weight of the under-segmentation score in the F-measure
        marginal: normalise by marginal entropies
        {files_duration}
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



@metric("v_measure", needs={"marginal": True})
@fill()
def v_measure(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
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
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        beta: weight of recall in the V-measure
        {files_duration}
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
