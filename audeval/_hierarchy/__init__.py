r"""Hierarchical structure metrics (SPEC section 5, ``mir_eval.hierarchy``).

A hierarchy segments each file at several levels, coarse to fine
(sections, then phrases, ...).
It is given as a DataFrame on the audformat segmented index
with one label column per level (coarse to fine;
adjacent rows with equal labels form one segment of that level),
as a mapping ``level -> Series`` (every row of a Series one segment of that level),
or as a Series (one level).
Every level must be a partition of each file.

:func:`hierarchy_tmeasure` compares the segment trees
and :func:`hierarchy_lmeasure` the label lattices (McFee et al.):
for every query unit, are the other units ranked alike
by how deep they meet the query in truth and prediction?
Both count ranked pairs from interval lengths and label classes,
never from frame pairs (mir_eval builds frame x frame matrices),
and ``frame_size=None`` gives the exact values in continuous time.
:func:`hierarchy_statistics` gives per-file sums (the ``hierarchy`` family,
averaged over files like the structure family);
:func:`hierarchy_report` the nine values of ``mir_eval.hierarchy.evaluate``.

Alignment (as ``mir_eval.hierarchy.evaluate``): the track of a file is ``[0, T)``
with ``T`` the latest end of any truth level; the prediction is cropped to it
(a file without rows has no track: a file only in ``files_duration`` is not evaluated).
By default gaps of a level (including before the first and after the last row)
are a "gap" label of that level, each gap one segment.
``compat="mir_eval"`` reproduces mir_eval 0.8.2: ``__T_MIN`` pads from 0,
``__T_MAX`` pads of the prediction up to ``T``, interior gaps in no segment,
the frame index ``int((t - t mod f) / f)`` of float seconds,
the query frame left out of its own results,
labels compared as given.
Malformed hierarchies (as ``mir_eval.hierarchy``): levels of a file that end at
different times raise; a boundary of a level that is not one of every finer level
warns (:class:`InconsistentHierarchyWarning`).
Files without truth have every value 0.0, as files where no query counts,
and no files at all give 0.0 (mir_eval's 0 / 0 convention).
"""

from audeval._hierarchy.inputs import InconsistentHierarchyWarning
from audeval._hierarchy.metrics import FAMILY
from audeval._hierarchy.metrics import MIR_EVAL_COLUMNS
from audeval._hierarchy.metrics import hierarchy_lmeasure
from audeval._hierarchy.metrics import hierarchy_report
from audeval._hierarchy.metrics import hierarchy_statistics
from audeval._hierarchy.metrics import hierarchy_tmeasure


__all__ = [
    "hierarchy_lmeasure",
    "hierarchy_report",
    "hierarchy_statistics",
    "hierarchy_tmeasure",
]
