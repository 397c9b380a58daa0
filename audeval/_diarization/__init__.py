r"""Detection and diarization metrics (SPEC section 6).

Duration-based metrics for activity (speech, music, ...) and speaker annotations,
computed from additive tables of durations per file,
with the numbers of pyannote.metrics, NIST md-eval / dscore, spy-der and audmetric.

How the durations are obtained, for every file at once:

1. the scored region of a file is its ``uem`` intervals,
   else ``[0, duration]`` from ``files_duration``,
   else the union of the extents of truth and prediction
   (pyannote.metrics' rule, with a warning);
   collars around truth boundaries
   (``collar_convention="total"``: pyannote.metrics' total width;
   ``"per_side"``: NIST md-eval's width on each side)
   and, with ``skip_overlap``, regions where two or more truth labels are active
   are taken out of it;
2. the intervals of each label are merged per file
   (a label that overlaps itself counts once; ``compat="pyannote"`` counts it twice,
   but for purity and coverage, and with ``skip_overlap`` takes it as overlap,
   in detection too: pyannote.metrics' rules)
   and cropped to the scored region;
3. the core's piece engine (:func:`audeval._core.sweep_sides.two_sides`) cuts each file into
   elementary segments (by bit masks of the active labels where they fit one int64,
   else by pieces; the labels are its channels) and sums
   miss, false alarm and the time that can be confused
   (kept apart for overlap and silence, for ``regions=``),
   the speaking times and the co-occurrence durations of label pairs;
4. the label mapping (optimal or greedy, per file or over all files)
   is solved on the sparse co-occurrence table
   (with per-side collars, md-eval's rule: on the co-occurrence before the collars);
   purity, coverage, homogeneity and completeness reduce the same table.

Modules: ``_options`` (options, the input gate), ``_region`` (scored regions, UEM),
``_statistics`` (the sweep, on :mod:`audeval._core.sweep`), ``_table`` (the public table),
``_mapping`` (label mapping), ``_metrics`` (error rates), ``_cluster`` (cluster metrics),
``_detection``, ``_report``, ``_segmentation`` (speaker-change detection).
All times are int64 nanoseconds until the very end.
"""

from __future__ import annotations

from audeval._core.protocol import Family

from audeval._diarization import options as _opt
from audeval._diarization.options import DETECTION, DIARIZATION
from audeval._diarization import segmentation as _segmentation
from audeval._diarization import sets as _sets
from audeval._diarization.cluster import diarization_homogeneity_completeness
from audeval._diarization.cluster import diarization_purity_coverage
from audeval._diarization.detection import _detection_table
from audeval._diarization.detection import detection_error_rate
from audeval._diarization.detection import detection_report
from audeval._diarization.detection import detection_statistics
from audeval._diarization.mapping import _mapped_pairs
from audeval._diarization.mapping import diarization_mapping
from audeval._diarization.metrics import _components
from audeval._diarization.outcomes import diarization_outcomes
from audeval._diarization.outcomes import diarization_scored_region
from audeval._diarization.outcomes import diarization_speaker_outcomes
from audeval._diarization.metrics import _jaccard
from audeval._diarization.metrics import _rate
from audeval._diarization.metrics import diarization_error_rate
from audeval._diarization.metrics import identification_error_rate
from audeval._diarization.metrics import identification_precision_recall
from audeval._diarization.metrics import jaccard_error_rate
from audeval._diarization.options import TOTAL_ROW
from audeval._diarization.region import _crop
from audeval._diarization.region import _merge_labels
from audeval._diarization.region import _scored_region
from audeval._diarization.region import read_uem
from audeval._diarization.report import diarization_report
from audeval._diarization.report import diarization_speaker_report
from audeval._diarization.segmentation import speaker_change_precision_recall
from audeval._diarization.segmentation import speaker_change_purity_coverage
from audeval._diarization.segmentation import speaker_change_statistics
from audeval._diarization.sets import diarization_cluster_report
from audeval._diarization.sets import speaker_set_statistics
from audeval._diarization.statistics import _diarization_arrays
from audeval._diarization.statistics import _Table
from audeval._diarization.table import _from_frame
from audeval._diarization.table import _to_frame
from audeval._diarization.table import diarization_statistics
from audeval._diarization import reductions


__all__ = [
    "detection_error_rate",
    "detection_report",
    "detection_statistics",
    "diarization_error_rate",
    "diarization_homogeneity_completeness",
    "diarization_mapping",
    "diarization_outcomes",
    "diarization_purity_coverage",
    "diarization_report",
    "diarization_scored_region",
    "diarization_speaker_outcomes",
    "diarization_speaker_report",
    "diarization_statistics",
    "identification_error_rate",
    "identification_precision_recall",
    "jaccard_error_rate",
    "read_uem",
    "speaker_change_precision_recall",
    "speaker_change_purity_coverage",
    "speaker_change_statistics",
    "diarization_cluster_report",
    "speaker_set_statistics",
]


DIARIZATION_METRICS = (
    diarization_error_rate,
    identification_error_rate,
    jaccard_error_rate,
    diarization_report,
    identification_precision_recall,
    diarization_purity_coverage,
    diarization_homogeneity_completeness,
    diarization_mapping,
    diarization_speaker_report,
)
"""Every metric of the diarization family's statistics table."""

FAMILY = Family(
    name="diarization",
    statistics=diarization_statistics,
    index=("file", "truth", "prediction"),
    options=_opt.DIARIZATION.table_options,
    metrics=DIARIZATION_METRICS,
    report=diarization_report,
    pooled=False,
    takes_labels=False,
    columns=_opt.DIARIZATION_COLUMNS,
    normalise=_opt.DIARIZATION.normalise,
    reduce=reductions.reduce,
    file_counts=reductions.file_counts,
)
"""The diarization family's one declaration (read by the registry)."""

DETECTION_FAMILY = Family(
    name="detection",
    statistics=detection_statistics,
    index=("file",),
    options=_opt.DETECTION.table_options,
    metrics=(detection_error_rate, detection_report),
    report=detection_report,
    pooled=True,
    takes_labels=True,
    columns=_opt.DETECTION_COLUMNS,
    normalise=_opt.DETECTION.normalise,
    reduce=reductions.detection_reduce,
    labels_must_occur=True,
)
"""The detection family's one declaration (``positive_labels`` is its ``labels``)."""

SPEAKER_CHANGE_FAMILY = Family(
    name="speaker_change",
    statistics=speaker_change_statistics,
    index=("file",),
    options=_opt.SPEAKER_CHANGE.table_options,
    metrics=(speaker_change_precision_recall, speaker_change_purity_coverage),
    pooled=True,
    takes_labels=False,
    columns=_opt.SPEAKER_CHANGE.columns,
    normalise=_opt.SPEAKER_CHANGE.normalise,
    reduce=reductions.speaker_change_reduce,
)
"""The speaker-change family's one declaration."""

SPEAKER_SET_FAMILY = Family(
    name="speaker_set",
    statistics=speaker_set_statistics,
    index=("file", "truth_set", "prediction_set"),
    options=_opt.SPEAKER_SET.table_options,
    metrics=(diarization_cluster_report,),
    report=diarization_cluster_report,
    pooled=False,
    takes_labels=False,
    columns=_opt.SPEAKER_SET.columns,
    normalise=_opt.SPEAKER_SET.normalise,
)
"""The speaker-set family's one declaration (dscore's clustering metrics)."""

FAMILIES = (FAMILY, DETECTION_FAMILY, SPEAKER_CHANGE_FAMILY, SPEAKER_SET_FAMILY)
"""The families of this package the registry reads."""
