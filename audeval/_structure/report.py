"""The structure family: its statistics function, its report and its declaration."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from audeval._core.docs import fill
from audeval._core.protocol import Family
from audeval._core.protocol import stamp
from audeval._structure import statistics as _table
from audeval._structure import reductions
from audeval._structure.clustering import adjusted_rand_index
from audeval._structure.clustering import mutual_information
from audeval._structure.clustering import normalized_conditional_entropy
from audeval._structure.clustering import pairwise_clustering
from audeval._structure.clustering import rand_index
from audeval._structure.clustering import v_measure
from audeval._structure.metrics import boundary_detection
from audeval._structure.metrics import boundary_deviation
from audeval._structure.metrics import compute
from audeval._structure.metrics import gate
from audeval._structure.options import DEFAULT_WINDOWS
from audeval._structure.options import OPTIONS
from audeval._structure.options import STRUCTURE
from audeval._structure.options import _report_windows
from audeval._structure.options import normalise
from audeval._core.options import check_duration


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


def _statistics(truth, prediction, options) -> pd.DataFrame:
    """:func:`structure_statistics` of a checked options object."""
    return stamp(compute(truth, prediction, options), "structure", STRUCTURE.record(options))


def _report(table: pd.DataFrame, options) -> pd.DataFrame:
    """The report's columns from a statistics table (computed or given)."""
    if "windows" in options.given:
        hits = [_table.hits_column(table, check_duration(w, "windows")) for w in _report_windows(options.windows)]
    else:  # the windows of a computed table are the default windows; a given table's its own
        hits = [c for c in table.columns if isinstance(c, str) and c.startswith("hits_at_")]
    columns: dict[str, np.ndarray] = {}
    for column in hits:
        name = column[len("hits_at_") :]
        precision, recall, f = _table.detection_values(table, column, options.beta)
        columns[f"precision_at_{name}"] = precision
        columns[f"recall_at_{name}"] = recall
        columns[f"f_measure_at_{name}"] = f
    t_to_p, p_to_t = _table.deviation_values(table)
    columns["truth_to_prediction_deviation"] = t_to_p
    columns["prediction_to_truth_deviation"] = p_to_t
    scores = _table.clustering_values(table, options.beta)
    for name in CLUSTERING_COLUMNS:
        columns[name] = scores[name]
    return pd.DataFrame(columns, index=pd.Index(table.index, name="file"))


@STRUCTURE.statistics(_statistics)
@fill()
def structure_statistics(
    truth: pd.Series,
    prediction: pd.Series,
    *,
    frame_size: float | pd.Timedelta | None = 0.1,
    window: float | pd.Timedelta | Sequence[float | pd.Timedelta] = DEFAULT_WINDOWS,
    trim: bool = False,
    pad: bool = True,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
) -> pd.DataFrame:
    r"""Per-file statistics of every structure metric.

    One row per file (index ``file``), with the sums that the file's values need:

    * ``duration``: the track end :math:`T` (0: no truth in the file)
    * ``truth_boundaries``, ``prediction_boundaries``: :math:`|B_t|`, :math:`|B_p|`
    * ``hits_at_<w>``: boundary hits within each window ``w``
      (``0.5`` s gives ``hits_at_0_5``)
    * ``truth_to_prediction_deviation``, ``prediction_to_truth_deviation``:
      the file's median deviations in seconds
    * ``frames``: :math:`n` (ns with ``frame_size=None``)
    * ``truth_clusters``, ``prediction_clusters``: non-empty clusters :math:`K_t`, :math:`K_p`
    * ``pairs``, ``truth_pairs``, ``prediction_pairs``, ``all_pairs``:
      :math:`\sum_{ij} \binom{n_{ij}}{2}`, :math:`\sum_i \binom{a_i}{2}`,
      :math:`\sum_j \binom{b_j}{2}`, :math:`\binom{n}{2}`
      (halved squared durations with ``frame_size=None``)
    * ``mutual_information``, ``truth_entropy``, ``prediction_entropy`` (nats),
      ``truth_given_prediction``, ``prediction_given_truth``
      (conditional entropies in bits)
    * ``expected_mutual_information``: :math:`E[MI]` (NaN with ``frame_size=None``)

    Structure metrics are means over files of per-file values,
    so a table holds one row per file, and tables of disjoint sets of whole files
    add up by concatenation (:func:`audeval.sum_statistics`).
    Every metric accepts the table in place of ``truth`` (with ``prediction=None``)
    and gives the number of the direct call with the same options:
    the mean over the table's rows of the per-file values.
    The table records its options (``attrs``);
    a metric given another ``frame_size``, ``trim``, ``pad`` or ``compat``
    raises, and a ``window`` that the table lacks raises.

    Args:
        truth: true segments, a partition of each file
        prediction: predicted segments, a partition of each file
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit
        window: one boundary hit window or several, in seconds or as timedelta
            (default: 0.5 and 3.0 s, those of :func:`structure_report`)
        trim: leave out the first and last boundary of each side
        pad: pad and crop as ``mir_eval.segment.evaluate`` before taking boundaries
            (see :func:`boundary_detection`)
        {files_duration}
        compat: ``"mir_eval"`` to reproduce mir_eval 0.8.2

    Returns:
        statistics table, one row per file

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
        >>> table = structure_statistics(truth, prediction)
        >>> table[["truth_boundaries", "prediction_boundaries", "hits_at_0_5", "frames"]]
              truth_boundaries  prediction_boundaries  hits_at_0_5  frames
        file
        a                    3                      4            3     200
        >>> rand_index(table, None) == rand_index(truth, prediction)
        True

    """


@STRUCTURE.metric(_report, gate=gate)
@fill()
def structure_report(
    truth: pd.Series | pd.DataFrame,
    prediction: pd.Series | None,
    *,
    windows: Sequence[float] = DEFAULT_WINDOWS,
    frame_size: float | pd.Timedelta | None = 0.1,
    beta: float = 1.0,
    trim: bool = False,
    pad: bool = True,
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
        truth: true segments, a partition of each file,
            or a table of :func:`structure_statistics`
        prediction: predicted segments, a partition of each file;
            ``None`` with a table
        windows: boundary hit windows in seconds;
            with a table: the table's windows if not given
        frame_size: frame hop in seconds or as timedelta;
            ``None``: the exact frameless limit (AMI is then NaN)
        {beta_report}
        trim: leave out the first and last boundary in the boundary metrics
        pad: pad and crop as ``mir_eval.segment.evaluate`` before taking boundaries;
            ``False``: boundaries of the rows as given (see :func:`boundary_detection`)
        {files_duration}
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


FAMILY = Family(
    name="structure",
    statistics=structure_statistics,
    index=("file",),
    options=OPTIONS,
    metrics=(
        boundary_detection,
        boundary_deviation,
        pairwise_clustering,
        rand_index,
        adjusted_rand_index,
        mutual_information,
        normalized_conditional_entropy,
        v_measure,
        structure_report,
    ),
    report=structure_report,
    pooled=False,
    takes_labels=False,
    columns=_table.COLUMNS,
    normalise=normalise,
    reduce=reductions.reduce,
    file_counts=reductions.file_counts,
    # the report's windows are the windows its table needs
    aliases={"windows": "window"},
)
"""The structure family's one declaration (read by the registry)."""
