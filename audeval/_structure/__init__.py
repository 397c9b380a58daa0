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
  (``files_duration`` only resolves ``end=NaT``;
  a file without rows in truth or prediction has no track and is not evaluated);
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
No files at all (empty inputs, an empty statistics table):
the values of a file without truth (the first row of the table below),
as mir_eval gives for empty inputs.

Statistics: :func:`structure_statistics` gives one row per file
with every sum a file's values need
(boundary counts and hits, the per-file median deviations,
contingency pair counts, entropies, mutual information and its expectation);
every function accepts that table in place of ``truth`` (``prediction=None``)
and gives the same number as the direct call.
The family is declared with ``pooled=False``:
a metric of several files is the mean of per-file values,
never a value of summed counts.

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
both sides ``n >= 2`` clusters   ARI 1.0, AMI 1.0 (identical partitions;
                                 :math:`E[MI] = MI = H`, an exact 0 / 0)
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

from audeval._structure.clustering import adjusted_rand_index
from audeval._structure.clustering import mutual_information
from audeval._structure.clustering import normalized_conditional_entropy
from audeval._structure.clustering import pairwise_clustering
from audeval._structure.clustering import rand_index
from audeval._structure.clustering import v_measure
from audeval._structure.metrics import boundary_detection
from audeval._structure.metrics import boundary_deviation
from audeval._structure.options import _window_name
from audeval._structure.options import COMPAT
from audeval._structure.options import STRUCTURE
from audeval._structure.outcomes import structure_outcomes
from audeval._structure.report import CLUSTERING_COLUMNS
from audeval._structure.report import FAMILY
from audeval._structure.report import MIR_EVAL_COLUMNS
from audeval._structure.report import structure_report
from audeval._structure.report import structure_statistics


__all__ = [
    "adjusted_rand_index",
    "boundary_detection",
    "boundary_deviation",
    "mutual_information",
    "normalized_conditional_entropy",
    "pairwise_clustering",
    "rand_index",
    "structure_outcomes",
    "structure_report",
    "structure_statistics",
    "v_measure",
]
