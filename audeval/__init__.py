"""audeval: evaluate time-annotated audio labels on pandas/audformat objects.

The public API is flat: every metric is importable from ``audeval``;
source separation lives in :mod:`audeval.separation`.
"""

__version__ = "0.1.0"

from audeval._core.allocator import raise_mmap_threshold as _raise_mmap_threshold
from audeval._generic.accumulate import Accumulator
from audeval._agreement import agreement_statistics
from audeval._agreement import cohen_kappa
from audeval._agreement import consensus
from audeval._agreement import disagreements
from audeval._agreement import fleiss_kappa
from audeval._agreement import krippendorff_alpha
from audeval._agreement import rater_annotations
from audeval._agreement import unitized_alpha
from audeval._generic.bootstrap import BootstrapResult
from audeval._generic.bootstrap import BootstrapWarning
from audeval._generic.bootstrap import bootstrap
from audeval._generic.compare import compare
from audeval._generic.dask import dask_statistics
from audeval._diarization import detection_error_rate
from audeval._diarization import detection_report
from audeval._diarization import detection_statistics
from audeval._diarization import diarization_error_rate
from audeval._diarization import diarization_report
from audeval._diarization import diarization_statistics
from audeval._diarization import identification_error_rate
from audeval._diarization import jaccard_error_rate
from audeval._diarization import diarization_mapping
from audeval._diarization import diarization_outcomes
from audeval._diarization import diarization_scored_region
from audeval._diarization import diarization_speaker_outcomes
from audeval._diarization import read_uem
from audeval._diarization import identification_precision_recall
from audeval._diarization import diarization_purity_coverage
from audeval._diarization import diarization_homogeneity_completeness
from audeval._diarization import diarization_speaker_report
from audeval._diarization import diarization_cluster_report
from audeval._diarization import speaker_set_statistics
from audeval._diarization import speaker_change_statistics
from audeval._diarization import speaker_change_precision_recall
from audeval._diarization import speaker_change_purity_coverage
from audeval._events import event_confusion_matrix
from audeval._events import event_error_rate
from audeval._events import event_error_rate_per_class
from audeval._events import event_fscore
from audeval._events import event_fscore_per_class
from audeval._events import event_precision_per_class
from audeval._events import event_recall_per_class
from audeval._events import event_report
from audeval._events import event_statistics
from audeval._events import event_unweighted_average_fscore
from audeval._events.outcomes import event_outcomes
from audeval._io.example import example_data
from audeval._io.example import example_files
from audeval._hierarchy import hierarchy_lmeasure
from audeval._html import html_report
from audeval._hierarchy import hierarchy_report
from audeval._hierarchy import hierarchy_statistics
from audeval._hierarchy import hierarchy_tmeasure
from audeval._generic.matrix import agreement_matrix
from audeval._io.readers import read_annotations
from audeval._io.readers import read_audformat_csv
from audeval._io.readers import read_database
from audeval._io.readers import read_files_duration
from audeval._io.readers import read_lab
from audeval._io.readers import read_rttm
from audeval._io.readers import read_tsv
from audeval._sed_scores import PSDS1
from audeval._sed_scores import PSDS2
from audeval._sed_scores import auroc
from audeval._sed_scores import average_precision
from audeval._sed_scores import best_error_rate
from audeval._sed_scores import best_fscore
from audeval._sed_scores import error_rate_curve
from audeval._sed_scores import fscore_at
from audeval._sed_scores import median_filter
from audeval._sed_scores import pi_psd_roc
from audeval._sed_scores import pipsds
from audeval._sed_scores import precision_recall_curve
from audeval._sed_scores import psd_roc
from audeval._sed_scores import psds
from audeval._sed_scores import read_operating_points
from audeval._sed_scores import read_sed_scores
from audeval._sed_scores import roc_curve
from audeval._sed_scores import score_statistics
from audeval._sed_scores import scores_to_events
from audeval._segments import segment_accuracy
from audeval._segments import segment_activity
from audeval._segments import segment_error_rate
from audeval._segments import segment_error_rate_per_class
from audeval._segments import segment_fscore
from audeval._segments import segment_fscore_per_class
from audeval._segments import segment_precision_per_class
from audeval._segments import segment_recall_per_class
from audeval._segments import segment_report
from audeval._segments import segment_statistics
from audeval._structure import adjusted_rand_index
from audeval._structure import boundary_detection
from audeval._structure import boundary_deviation
from audeval._structure import mutual_information
from audeval._structure import normalized_conditional_entropy
from audeval._structure import pairwise_clustering
from audeval._structure import rand_index
from audeval._structure import structure_outcomes
from audeval._structure import structure_report
from audeval._structure import structure_statistics
from audeval._structure import v_measure
from audeval._generic.sum import sum_statistics
from audeval._hierarchy.inputs import InconsistentHierarchyWarning
from audeval._core.warnings import FilesWithoutRowsWarning
from audeval._core.warnings import NoSharedFileWarning
from audeval._core.warnings import UndefinedMetricWarning


__all__ = [
    "Accumulator",
    "BootstrapResult",
    "BootstrapWarning",
    "FilesWithoutRowsWarning",
    "InconsistentHierarchyWarning",
    "NoSharedFileWarning",
    "PSDS1",
    "PSDS2",
    "UndefinedMetricWarning",
    "adjusted_rand_index",
    "agreement_matrix",
    "agreement_statistics",
    "auroc",
    "average_precision",
    "best_error_rate",
    "best_fscore",
    "bootstrap",
    "boundary_detection",
    "boundary_deviation",
    "cohen_kappa",
    "compare",
    "consensus",
    "dask_statistics",
    "detection_error_rate",
    "detection_report",
    "detection_statistics",
    "diarization_cluster_report",
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
    "disagreements",
    "error_rate_curve",
    "event_confusion_matrix",
    "event_error_rate",
    "event_error_rate_per_class",
    "event_fscore",
    "event_fscore_per_class",
    "event_outcomes",
    "event_precision_per_class",
    "event_recall_per_class",
    "event_report",
    "event_statistics",
    "event_unweighted_average_fscore",
    "example_data",
    "example_files",
    "fleiss_kappa",
    "fscore_at",
    "hierarchy_lmeasure",
    "hierarchy_report",
    "hierarchy_statistics",
    "hierarchy_tmeasure",
    "html_report",
    "identification_error_rate",
    "identification_precision_recall",
    "jaccard_error_rate",
    "krippendorff_alpha",
    "median_filter",
    "mutual_information",
    "normalized_conditional_entropy",
    "pairwise_clustering",
    "pi_psd_roc",
    "pipsds",
    "precision_recall_curve",
    "psd_roc",
    "psds",
    "rand_index",
    "rater_annotations",
    "read_annotations",
    "read_audformat_csv",
    "read_database",
    "read_files_duration",
    "read_lab",
    "read_operating_points",
    "read_rttm",
    "read_sed_scores",
    "read_tsv",
    "read_uem",
    "roc_curve",
    "score_statistics",
    "scores_to_events",
    "segment_accuracy",
    "segment_activity",
    "segment_error_rate",
    "segment_error_rate_per_class",
    "segment_fscore",
    "segment_fscore_per_class",
    "segment_precision_per_class",
    "segment_recall_per_class",
    "segment_report",
    "segment_statistics",
    "speaker_change_precision_recall",
    "speaker_change_purity_coverage",
    "speaker_change_statistics",
    "speaker_set_statistics",
    "structure_outcomes",
    "structure_report",
    "structure_statistics",
    "sum_statistics",
    "unitized_alpha",
    "v_measure",
]

_raise_mmap_threshold()  # the first metric calls as fast as later ones (audeval/_core/allocator.py)
