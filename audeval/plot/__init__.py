"""Pictures of what the metrics counted (optional, needs matplotlib).

Install the extra with ``pip install "audeval[plot]"``.
matplotlib is imported only when a function is called,
so ``import audeval.plot`` works without it.

* :func:`event_timeline`: events of one file coloured by match outcome;
* :func:`event_confusion_matrix`: heat map of :func:`audeval.event_confusion_matrix`;
* :func:`segment_timeline`: the segment grid with TP, FN and FP per label;
* :func:`structure_timeline`: two partitions and their matched boundaries;
* :func:`diarization_timeline`: speakers after the label mapping;
* :func:`psd_roc`: the PSD-ROC of :func:`audeval.psd_roc` and every class's staircase;
* :func:`precision_recall`: precision-recall curves per class with AP and best F;
* :func:`compare`: the systems of :func:`audeval.compare` with their intervals, the baseline marked.

Every function draws the outcome of the same computation
as the metric with the same options
(for events: the same validation, matcher and tolerances),
so the picture and the number cannot disagree.
Every function takes ``ax=None``
(``None``: a new figure sized to the content)
and returns the :class:`matplotlib.axes.Axes` it drew on.

Drawn artists carry a ``gid`` naming what they show
(e.g. ``"truth:tp"`` or ``"prediction:insertion"``),
so a figure can be inspected in tests or post-processed.
"""

from audeval.plot import _common
from audeval.plot._compare import compare
from audeval.plot._diarization import diarization_timeline
from audeval.plot._events import event_confusion_matrix
from audeval.plot._events import event_timeline
from audeval.plot._scores import precision_recall
from audeval.plot._scores import psd_roc
from audeval.plot._segments import segment_timeline
from audeval.plot._structure import structure_timeline


#: Colour per outcome (Okabe-Ito palette, readable with colour-blindness):
#: ``"tp"`` matched, ``"substitution"`` paired with another label,
#: ``"deletion"`` missed truth, ``"insertion"`` false alarm.
#: Every plot takes ``colors=`` to replace some of them.
OUTCOME_COLORS = _common.OUTCOME_COLORS


__all__ = [
    "OUTCOME_COLORS",
    "compare",
    "diarization_timeline",
    "event_confusion_matrix",
    "event_timeline",
    "precision_recall",
    "psd_roc",
    "segment_timeline",
    "structure_timeline",
]
