"""Public segment metrics and the report: reductions of the (summed) statistics table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from audeval._core.docs import fill
from audeval._core.protocol import table_options

from audeval._core.report import label_report
from audeval._core.validation import NS_PER_SECOND
from audeval._segments.reductions import _overall, _per_class, _scores
from audeval._segments.gaps import gap_accuracy, gap_counts
from audeval._segments.options import REPORT_COLUMNS, SEGMENT
from audeval._segments.statistics import _counts



_ARGS = """
    truth: ground truth Series (audformat segmented or filewise index),
        or a statistics table from :func:`segment_statistics`
        (then ``prediction=None``; ``time_resolution`` and ``compat`` are ignored)
    prediction: predicted Series, or ``None`` with a statistics table
    labels: labels to evaluate, in order; rows with other labels are left out
    time_resolution: segment length in seconds (or ``pd.Timedelta``);
        ``None``: exact continuous time (durations)
    files_duration: mapping or Series from file to duration, the evaluated length;
        default: the latest end in truth or prediction per file
    compat: ``"sed_eval"`` reproduces sed_eval's float64 binning,
        see :func:`segment_statistics`
"""


_doc = fill(args=_ARGS)


def _metric(reduce, *, gate=_counts, cross_label=False):
    """Declare a segment metric: ``reduce(counts, options)`` of the family gate's counts."""
    return SEGMENT.metric(reduce, gate=gate, cross_label=cross_label)


def _micro(counts, options, name: str) -> float:
    _, micro, _ = _overall(counts, options.zero_division, False)
    return float(micro[name])


def _fscore(counts, options) -> float:
    _, micro, macro = _overall(counts, options.zero_division, options.propagate_nans)
    return float((micro if options.average == "micro" else macro)["fscore"])


def _accuracy_counts(metric, truth, prediction, labels, options):
    """The gate of :func:`segment_accuracy`: the counts, and whether they hold the gap class
    (``gap_label`` given, or recorded by a table of :func:`segment_statistics` made with it,
    as ``Accumulator`` and ``bootstrap`` pass it)."""
    recorded = table_options(truth).get("gap_label") if isinstance(truth, pd.DataFrame) else None
    if options.gap_label is None and recorded is None:
        return _counts(metric, truth, prediction, labels, options), False
    if prediction is None and recorded is not None:
        return _counts(metric, truth, prediction, labels, options), True
    return gap_counts(truth, prediction, labels, options), True


def _accuracy(counts_and_gap, options) -> float:
    counts, gap = counts_and_gap
    if gap:
        return gap_accuracy(counts, options.zero_division)
    return _micro(counts, options, "accuracy")


def _report(counts, options) -> pd.DataFrame:
    zero_division, propagate_nans = options.zero_division, options.propagate_nans
    scale = 1.0 / NS_PER_SECOND if counts.exact else 1.0
    overall = _scaled(_overall(counts, zero_division, propagate_nans), scale)
    blocks = None
    if options.per_file:
        values = _scores(
            counts.tp, counts.fp, counts.fn, counts.tn, counts.substitutions,
            zero_division, propagate_nans, counts.keep,
        )
        blocks = (list(counts.files), *_scaled(values, scale))
    return label_report(counts.labels, REPORT_COLUMNS, overall, blocks)



@_metric(lambda counts, o: _per_class(counts, "precision", o.zero_division))
@_doc
def segment_precision_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    zero_division: float = 0.0,
) -> dict[object, float]:
    r"""Segment-based precision per label.

    .. math::

        P_c = \frac{\text{tp}_c}{\text{tp}_c + \text{fp}_c}

    summed over files;
    ``zero_division`` where the label has no predicted segment
    (sed_eval gives NaN there: ``zero_division=np.nan``).

    Args:
        {args}
        zero_division: value of an undefined precision

    Returns:
        precision per label

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 1], [2, 3])
        ... )
        >>> prediction = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 0], [4, 3])
        ... )
        >>> {k: round(v, 2) for k, v in segment_precision_per_class(truth, prediction).items()}
        {'a': 0.5, 'b': 0.67}

    """



@_metric(lambda counts, o: _per_class(counts, "recall", o.zero_division))
@_doc
def segment_recall_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    zero_division: float = 0.0,
) -> dict[object, float]:
    r"""Segment-based recall per label.

    .. math::

        R_c = \frac{\text{tp}_c}{\text{tp}_c + \text{fn}_c}

    summed over files;
    ``zero_division`` where the label has no truth segment
    (sed_eval gives NaN there: ``zero_division=np.nan``).

    Args:
        {args}
        zero_division: value of an undefined recall

    Returns:
        recall per label

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 1], [2, 3])
        ... )
        >>> prediction = pd.Series(
        ...     ["a"], index=audformat.segmented_index(["f"], [1.5], [4])
        ... )
        >>> {k: round(v, 2) for k, v in segment_recall_per_class(truth, prediction).items()}
        {'a': 0.5, 'b': 0.0}

    """



@_metric(lambda counts, o: _per_class(counts, "fscore", o.zero_division, o.propagate_nans))
@_doc
def segment_fscore_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    zero_division: float = 0.0,
    propagate_nans: bool = False,
) -> dict[object, float]:
    r"""Segment-based F-score per label (DCASE class-wise F1).

    .. math::

        F_c = \frac{2 P_c R_c}{P_c + R_c}

    from precision and recall after ``zero_division`` replaced undefined values;
    0 where :math:`P_c R_c = 0`;
    with ``propagate_nans=True`` NaN where :math:`P_c` or :math:`R_c` is NaN.
    sed_eval's values: ``zero_division=np.nan, propagate_nans=True``.

    Args:
        {args}
        {zero_division}
        propagate_nans: NaN F-score where precision or recall is NaN

    Returns:
        F-score per label

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 1], [2, 3])
        ... )
        >>> prediction = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 0], [4, 3])
        ... )
        >>> {k: round(v, 2) for k, v in segment_fscore_per_class(truth, prediction).items()}
        {'a': 0.67, 'b': 0.8}

    """



@_metric(_fscore)
@_doc
def segment_fscore(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    average: str = "micro",
    zero_division: float = 0.0,
    propagate_nans: bool = False,
) -> float:
    r"""Segment-based F-score over all labels.

    ``average="micro"`` (DCASE's overall F1):
    precision and recall of the counts summed over labels and files,

    .. math::

        P = \frac{\sum_c \text{tp}_c}{\sum_c (\text{tp}_c + \text{fp}_c)},\quad
        R = \frac{\sum_c \text{tp}_c}{\sum_c (\text{tp}_c + \text{fn}_c)},\quad
        F = \frac{2PR}{P + R}

    ``average="macro"``: the mean of :func:`segment_fscore_per_class`
    over labels, NaN ignored (sed_eval's class-wise average).

    Args:
        {args}
        {average}
        {zero_division}
        propagate_nans: NaN F-score where precision or recall is NaN

    Returns:
        F-score

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 1], [2, 3])
        ... )
        >>> prediction = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 0], [4, 3])
        ... )
        >>> round(segment_fscore(truth, prediction), 4)
        0.7273
        >>> round(segment_fscore(truth, prediction, average="macro"), 4)
        0.7333

    """



@_metric(lambda counts, o: _micro(counts, o, "error_rate"), cross_label=True)
@_doc
def segment_error_rate(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    zero_division: float = 0.0,
) -> float:
    r"""Segment-based error rate (DCASE's overall ER).

    In every segment :math:`k`, with :math:`\text{FN}(k)` and :math:`\text{FP}(k)`
    the numbers of labels missed and inserted there:

    .. math::

        S(k) = \min(\text{FN}(k), \text{FP}(k)),\quad
        D(k) = \max(0, \text{FN}(k) - \text{FP}(k)),\quad
        I(k) = \max(0, \text{FP}(k) - \text{FN}(k))

    .. math::

        \text{ER} = \frac{\sum_k S(k) + \sum_k D(k) + \sum_k I(k)}{\sum_k N(k)}

    with :math:`N(k)` the number of labels active in the truth.
    With no active truth segment:
    ``zero_division`` if there is no error either, else ``inf``
    (sed_eval divides by :math:`N + \epsilon` and gives a huge finite number).
    The rates :math:`S/N`, :math:`D/N`, :math:`I/N` are in :func:`segment_report`.

    Args:
        {args}
        zero_division: value of 0 / 0

    Returns:
        error rate

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     ["b", "a"], index=audformat.segmented_index(["f", "f"], [0, 3], [1, 5])
        ... )
        >>> round(segment_error_rate(truth, prediction), 4)
        1.25

    """



@_metric(lambda counts, o: _per_class(counts, "error_rate", o.zero_division))
@_doc
def segment_error_rate_per_class(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    zero_division: float = 0.0,
) -> dict[object, float]:
    r"""Segment-based error rate per label (sed_eval's class-wise ER).

    .. math::

        \text{ER}_c = \frac{\text{fn}_c + \text{fp}_c}{\text{tp}_c + \text{fn}_c}

    (deletions plus insertions of the label over its truth segments;
    there are no substitutions within one label).
    With no truth segment of the label:
    ``zero_division`` without false positives, else ``inf``
    (sed_eval: a huge finite number, it divides by :math:`N_c + \epsilon`).

    Args:
        {args}
        zero_division: value of 0 / 0

    Returns:
        error rate per label

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     ["b", "a"], index=audformat.segmented_index(["f", "f"], [0, 3], [1, 5])
        ... )
        >>> {k: round(v, 2) for k, v in segment_error_rate_per_class(truth, prediction).items()}
        {'a': 2.0, 'b': 1.5}

    """



@_metric(_accuracy, gate=_accuracy_counts)
@_doc
def segment_accuracy(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    zero_division: float = 0.0,
    gap_label: object | None = None,
) -> float:
    r"""Segment-based accuracy (MIREX 2018, sed_eval overall accuracy).

    .. math::

        \text{Acc} = \frac{\sum_c (\text{tp}_c + \text{tn}_c)}
                          {\sum_c (\text{tp}_c + \text{tn}_c + \text{fp}_c + \text{fn}_c)}

    summed over labels, segments and files:
    the share of (segment, label) decisions that are right.
    MIREX 2018 music/speech detection evaluates it at ``time_resolution=0.01``.
    ``zero_division`` when nothing is evaluated (sed_eval: 0).
    This is the formula of the MIREX 2018 README.

    MIREX2018_eval's final code (``gap_label="-"``) gives unannotated time
    a class of its own on both sides and reports
    :math:`N_\text{tp} / N_\text{ref} = \sum \text{tp} / \sum (\text{tp} + \text{fn})`
    over the labels and the gap class
    (one file of 10 s, truth music [0, 4) speech [4, 6),
    prediction music [0, 4) speech [4, 9): README 0.85, final code 0.70).

    Args:
        {args}
        zero_division: value of 0 / 0
        gap_label: ``None``: the README formula;
            a label (MIREX uses ``"-"``) that occurs in neither input:
            MIREX2018_eval's final code, :math:`N_\text{tp} / N_\text{ref}`
            with unannotated time as class ``gap_label``
            (needs Series, not a statistics table)

    Returns:
        accuracy

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["music", "speech"],
        ...     index=audformat.segmented_index(["f", "f"], [0, 0.5], [0.5, 1.0]),
        ... )
        >>> prediction = pd.Series(
        ...     ["music"], index=audformat.segmented_index(["f"], [0], [0.6])
        ... )
        >>> round(segment_accuracy(truth, prediction, time_resolution=0.01), 4)
        0.7
        >>> truth = pd.Series(
        ...     ["music", "speech"],
        ...     index=audformat.segmented_index(["f", "f"], [0, 4], [4, 6]),
        ... )
        >>> prediction = pd.Series(
        ...     ["music", "speech"],
        ...     index=audformat.segmented_index(["f", "f"], [0, 4], [4, 9]),
        ... )
        >>> options = dict(time_resolution=0.01, files_duration={"f": 10})
        >>> round(segment_accuracy(truth, prediction, **options), 4)
        0.85
        >>> round(segment_accuracy(truth, prediction, **options, gap_label="-"), 4)
        0.7

    """



@_metric(_report, cross_label=True)
@_doc
def segment_report(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    time_resolution: float | pd.Timedelta | None = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    zero_division: float = 0.0,
    propagate_nans: bool = False,
    per_file: bool = False,
    gap_label: object | None = None,
) -> pd.DataFrame:
    r"""All segment-based metrics: one row per label, plus ``micro`` and ``macro``.

    Columns:

    * ``n_truth``, ``n_prediction``, ``tp``, ``fp``, ``fn``, ``tn``:
      segment counts (seconds for ``time_resolution=None``);
    * ``precision``, ``recall``, ``fscore``;
    * ``error_rate``, ``substitution_rate``, ``deletion_rate``, ``insertion_rate``:
      per label (sed_eval class-wise) :math:`D_c = \text{fn}_c`,
      :math:`I_c = \text{fp}_c`, no substitutions (NaN);
      in the ``micro`` row the overall rates of :func:`segment_error_rate`;
    * ``sensitivity`` :math:`\text{tp} / (\text{tp} + \text{fn})`,
      ``specificity`` :math:`\text{tn} / (\text{tn} + \text{fp})`,
      ``balanced_accuracy`` (their mean),
      ``accuracy`` :math:`(\text{tp} + \text{tn}) / (\text{tp} + \text{tn} + \text{fp} + \text{fn})`.

    The ``micro`` row computes every value from the counts summed over labels
    (sed_eval's overall metrics),
    the ``macro`` row is the mean of the label rows ignoring NaN
    (sed_eval's class-wise average); its counts are NaN.
    Zero divisions as in the single metrics:
    ``zero_division`` for 0 / 0, ``inf`` for an error rate x / 0.
    sed_eval adds :math:`\epsilon = 2^{-52}` to the denominators
    of the rates, sensitivity, specificity and accuracy;
    this changes values by less than :math:`10^{-15}`
    except where a denominator is 0
    (sed_eval: 0 for 0 / 0 and :math:`x / \epsilon` instead of ``inf``).

    Args:
        {args}
        zero_division: value of 0 / 0
        propagate_nans: NaN F-score where precision or recall is NaN
        per_file: one block of rows per file and a last block ``TOTAL``
            (the report over all files), indexed by ``(file, label)``
        gap_label: a class for the unannotated time with its own row
            (MIREX2018_eval's final code, ``"-"``; :func:`segment_statistics`),
            counted in ``micro`` and ``macro`` as every label;
            ``None``: no such class

    Returns:
        report with index ``label`` (labels, ``"micro"``, ``"macro"``),
        or ``(file, label)`` with ``per_file=True``

    Examples:
        >>> import audformat
        >>> truth = pd.Series(
        ...     ["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 2], [2, 4])
        ... )
        >>> prediction = pd.Series(
        ...     ["b", "a"], index=audformat.segmented_index(["f", "f"], [1.5, 3], [3, 5])
        ... )
        >>> report = segment_report(truth, prediction)
        >>> columns = ["n_truth", "tp", "fscore", "error_rate", "accuracy"]
        >>> report[columns].round(3)  # doctest: +NORMALIZE_WHITESPACE
               n_truth   tp  fscore  error_rate  accuracy
        label
        a          2.0  0.0    0.00         2.0       0.2
        b          2.0  1.0    0.50         1.0       0.6
        micro      4.0  1.0    0.25         1.0       0.4
        macro      NaN  NaN    0.25         1.5       0.4
        >>> music = pd.Series(
        ...     ["music", "speech"], index=audformat.segmented_index(["f", "f"], [0, 4], [4, 6])
        ... )
        >>> guess = pd.Series(
        ...     ["music", "speech"], index=audformat.segmented_index(["f", "f"], [0, 4], [4, 9])
        ... )
        >>> report = segment_report(
        ...     music, guess, time_resolution=0.01, files_duration={"f": 10}, gap_label="-"
        ... )
        >>> report.loc["-", ["precision", "recall", "fscore"]].round(3).tolist()
        [1.0, 0.25, 0.4]

    """



def _scaled(values: tuple[dict, dict, dict], scale: float) -> tuple[dict, dict, dict]:
    """Count columns in seconds (exact mode: ``scale`` = 1e-9), rates as they are."""
    if scale == 1.0:
        return values
    return tuple(  # type: ignore[return-value]  # three dicts in, three out
        {k: v * scale if k in ("n_truth", "n_prediction", "tp", "fp", "fn", "tn") else v for k, v in d.items()}
        for d in values
    )
