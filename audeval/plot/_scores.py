"""Curves of score-based sound event detection: PSD-ROC and precision-recall per class."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

import audeval
from audeval._core.protocol import table_options
from audeval._sed_scores import SCORE, staircase_area
from audeval.plot._common import new_axes, pyplot

PSD_ROC_COLUMNS = ("efpr", "etpr")
CLASS_ROC_COLUMNS = ("label", "efpr", "tpr", "threshold")
PR_COLUMNS = ("precision", "recall")
PSD_OPTIONS = (
    "dtc_threshold", "gtc_threshold", "cttc_threshold", "alpha_ct", "alpha_st", "max_efpr", "files_duration", "compat",
)
PR_OPTIONS = (
    "criterion", "dtc_threshold", "gtc_threshold", "onset_tolerance", "offset_tolerance", "duration_tolerance",
    "segment_length", "files_duration", "compat", "beta",
)


def _given(options, names: Sequence[str]) -> dict:
    """The options among ``names`` that the caller gave, as given (the metric's own defaults hold
    for the rest, and a statistics table is checked only against what was given)."""
    return {name: options.raw[name] for name in names if name in options.given}


def _is_curve(data: object, columns: Sequence[str]) -> bool:
    return isinstance(data, pd.DataFrame) and set(columns) <= set(data.columns)


def _selected(names: list, labels: Sequence[object] | None, what: str) -> list:
    """The labels to draw: all, or the given ones (each must be in the curve)."""
    if labels is None:
        return names
    missing = [label for label in labels if label not in names]
    if missing:
        raise ValueError(f"labels {missing} are not in {what}; it has {names}.")
    return list(labels)


def _class_staircase(curve: pd.DataFrame, max_efpr: float) -> tuple[np.ndarray, np.ndarray]:
    """A class's PSD-ROC points from eFPR 0 (TPR 0 before its first point) to ``max_efpr``."""
    efpr = curve["efpr"].to_numpy(dtype=float)
    tpr = curve["tpr"].to_numpy(dtype=float)
    if not len(efpr) or efpr[0] > 0:
        efpr, tpr = np.append(0.0, efpr), np.append(0.0, tpr)
    return np.append(efpr, max_efpr), np.append(tpr, tpr[-1])


def _number(value: object) -> str:
    return f"{float(value):g}"  # type: ignore[arg-type]  # a number


def _scenario(truth, scores, options, alpha_ct: float, alpha_st: float, max_efpr: float) -> str:
    """The PSD-ROC's scenario: DTC, GTC (CTTC, alpha_ct), alpha_st and max eFPR.

    From a statistics table its recorded criteria; from a curve only ``max_efpr``.
    """
    if scores is None and (_is_curve(truth, CLASS_ROC_COLUMNS) or _is_curve(truth, PSD_ROC_COLUMNS)):
        return f"max eFPR {_number(max_efpr)}/h"
    given = {k: getattr(options, k) for k in ("dtc_threshold", "gtc_threshold", "cttc_threshold")}
    if scores is None and isinstance(truth, pd.DataFrame):  # a table: the criteria it was made with
        recorded = table_options(truth)
        given.update({k: recorded[k] for k in given if recorded.get(k) is not None})
    parts = [f"DTC {_number(given['dtc_threshold'])}", f"GTC {_number(given['gtc_threshold'])}"]
    if alpha_ct != 0 and given["cttc_threshold"] is not None:
        parts += [f"CTTC {_number(given['cttc_threshold'])}", f"alpha_ct {_number(alpha_ct)}"]
    parts += [f"alpha_st {_number(alpha_st)}", f"max eFPR {_number(max_efpr)}/h"]
    return ", ".join(parts)


def _outside_legend(ax, handles, texts) -> None:
    """A compact legend right of the axes, so it covers no curve."""
    ax.legend(handles, texts, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0),
              borderaxespad=0.0, frameon=False, handlelength=1.6, labelspacing=0.35)


def _psd_curves(truth, scores, labels, options: dict) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    """(PSD-ROC, per-class staircases) from the curves given or computed."""
    if scores is None and _is_curve(truth, CLASS_ROC_COLUMNS):
        return None, truth
    if scores is None and _is_curve(truth, PSD_ROC_COLUMNS):
        return truth, None
    roc = audeval.psd_roc(truth, scores, labels, **options)
    return roc, audeval.psd_roc(truth, scores, labels, per_class=True, **options)


def psd_roc(
    truth: pd.Series | pd.DataFrame,
    scores: pd.DataFrame | Mapping | None = None,
    labels: Sequence[object] | None = None,
    *,
    dtc_threshold: float = 0.7,
    gtc_threshold: float = 0.7,
    cttc_threshold: float | None = 0.3,
    alpha_ct: float = 0.0,
    alpha_st: float = 1.0,
    max_efpr: float = 100.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    per_class: bool = True,
    ax=None,
):
    r"""The PSD-ROC of :func:`audeval.psd_roc`, and the staircase of every class.

    The thick line is the PSD-ROC
    :math:`\max(0, \mu_c \text{TPR}_c - \alpha_{st} \sigma_c \text{TPR}_c)`
    over the effective false positive rate per hour,
    its area (shaded) divided by ``max_efpr`` is the PSDS shown in the legend;
    thin lines are the classes' TPR staircases (``per_class=True``).

    ``truth`` is one of: truth events with ``scores``
    (a score table or operating points, as :func:`audeval.psd_roc` takes them),
    a table of :func:`audeval.score_statistics` (``scores=None``),
    or a curve :func:`audeval.psd_roc` returned
    (columns ``efpr``, ``etpr``; or ``label``, ``efpr``, ``tpr``, ``threshold``
    from ``per_class=True``), drawn as it is.

    The PSD-ROC line has the ``gid`` ``"psd-roc"``,
    the class lines ``"psd-roc:<label>"``, the area ``"psds-area"``.

    Args:
        truth: truth events, a statistics table, or a PSD-ROC DataFrame
        scores: score table or operating points (``None`` with a table or curve)
        labels: classes to evaluate (of a per-class curve: the classes to draw)
        dtc_threshold: detection tolerance criterion
        gtc_threshold: ground truth intersection criterion
        cttc_threshold: cross-trigger tolerance criterion (used if ``alpha_ct != 0``)
        alpha_ct: weight of the cross-trigger rate
        alpha_st: weight of the standard deviation over classes
        max_efpr: largest eFPR per hour (the end of the x axis)
        files_duration: duration per file (else the end of its last frame)
        compat: ``"sed_scores_eval"`` or ``"psds_eval"`` (:func:`audeval.score_statistics`)
        per_class: also draw every class's staircase
        ax: axes to draw on; ``None``: a new figure

    Returns:
        the axes

    Raises:
        ImportError: if matplotlib is not installed
        ValueError, TypeError: on invalid input, as :func:`audeval.psd_roc`

    Examples:
        >>> import audformat
        >>> import audeval.plot
        >>> truth = pd.Series(["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 2], [2, 4]))
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.8, 0.3, 0.1], "b": [0.8, 0.3, 0.7, 0.6]}, index=index)
        >>> ax = audeval.plot.psd_roc(truth, scores, max_efpr=5000.0)
        >>> sorted(line.get_gid() for line in ax.lines)
        ['psd-roc', 'psd-roc:a', 'psd-roc:b']
        >>> ax.get_legend().get_texts()[0].get_text()
        'PSD-ROC (PSDS 0.820)'

    """



def _psd_roc(truth, scores, labels, options):
    """The body of :func:`psd_roc` (``options``: the checked options object)."""
    pyplot()
    roc, classes = _psd_curves(truth, scores, labels, _given(options, PSD_OPTIONS))
    per_class, ax, max_efpr = options.per_class, options.ax, options.max_efpr
    if roc is not None and len(roc):
        max_efpr = float(roc["efpr"].iloc[-1])
    ax = new_axes(ax, 8.0, 4.2)
    if per_class and classes is not None:
        names = list(dict.fromkeys(classes["label"]))
        shown = _selected(names, labels if scores is None and roc is None else None, "the curve")
        for label in shown:
            efpr, tpr = _class_staircase(classes[classes["label"] == label], max_efpr)
            ax.step(efpr, tpr, where="post", linewidth=1.0, alpha=0.7, label=str(label),
                    gid=f"psd-roc:{label}")
    if roc is not None and len(roc):
        efpr = roc["efpr"].to_numpy(dtype=float)
        etpr = roc["etpr"].to_numpy(dtype=float)
        value = staircase_area(etpr, efpr, max_efpr) / max_efpr
        line, = ax.step(efpr, etpr, where="post", color="black", linewidth=2.2,
                        label=f"PSD-ROC (PSDS {value:.3f})", gid="psd-roc")
        ax.fill_between(efpr, etpr, step="post", color="black", alpha=0.08, gid="psds-area")
        line.set_zorder(3)
    ax.set_xlim(0, max_efpr)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("eFPR (false positives per hour)")
    ax.set_ylabel("eTPR" if roc is not None else "TPR")
    scenario = _scenario(truth, scores, options, options.alpha_ct, options.alpha_st, max_efpr)
    ax.set_title(f"PSD-ROC: {scenario}", fontsize=9)
    handles, texts = ax.get_legend_handles_labels()
    if handles:  # the PSD-ROC first
        order = sorted(range(len(texts)), key=lambda i: not texts[i].startswith("PSD-ROC"))
        _outside_legend(ax, [handles[i] for i in order], [texts[i] for i in order])
    return ax


def _ap_staircase(curve: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, float]:
    """Recall ascending with the highest precision per recall, and the AP of that staircase."""
    precision = curve["precision"].to_numpy(dtype=float)
    recall = curve["recall"].to_numpy(dtype=float)
    order = np.lexsort((precision, recall))
    precision, recall = precision[order], recall[order]
    last = np.ones(len(recall), dtype=bool)
    last[:-1] = recall[1:] != recall[:-1]
    precision, recall = precision[last], recall[last]
    return recall, precision, float(np.sum(precision[1:] * np.diff(recall)))


def precision_recall(
    truth: pd.Series | pd.DataFrame,
    scores: pd.DataFrame | Mapping | None = None,
    labels: Sequence[object] | None = None,
    *,
    criterion: str = "intersection",
    dtc_threshold: float = 0.7,
    gtc_threshold: float = 0.7,
    onset_tolerance: float | pd.Timedelta = 0.2,
    offset_tolerance: float | pd.Timedelta = 0.2,
    duration_tolerance: float = 0.2,
    segment_length: float | pd.Timedelta = 1.0,
    files_duration: Mapping | pd.Series | None = None,
    compat: str | None = None,
    beta: float = 1.0,
    ax=None,
):
    r"""Precision over recall of every class (:func:`audeval.precision_recall_curve`).

    Each class is drawn as the staircase whose area is its average precision
    (:func:`audeval.average_precision`:
    :math:`\sum_k P_k (R_k - R_{k-1})`, :math:`P_k` the highest precision at recall :math:`R_k`),
    its point of best :math:`F_\beta` marked; the legend gives AP and best F.

    ``truth`` is one of: truth events with ``scores``
    (a score table or operating points),
    a table of :func:`audeval.score_statistics` (``scores=None``),
    or the DataFrame :func:`audeval.precision_recall_curve` returned
    (indexed by ``label`` and ``threshold``), drawn as it is.

    Class lines have the ``gid`` ``"pr:<label>"``, best-F markers ``"best-f:<label>"``.

    Args:
        truth: truth events, a statistics table, or a precision-recall DataFrame
        scores: score table or operating points (``None`` with a table or curve)
        labels: classes to evaluate (of a curve: the classes to draw)
        criterion: ``"intersection"``, ``"collar"``, ``"segment"`` or ``"clip"``
        dtc_threshold: detection tolerance criterion (intersection)
        gtc_threshold: ground truth intersection criterion (intersection)
        onset_tolerance: onset collar in seconds (collar)
        offset_tolerance: smallest offset collar in seconds (collar)
        duration_tolerance: offset collar as a share of the truth event's length (collar)
        segment_length: segment length in seconds (segment)
        files_duration: duration per file (else the latest end of its frames and truth)
        compat: ``"sed_scores_eval"`` or ``"psds_eval"`` (:func:`audeval.score_statistics`)
        beta: :math:`\beta` of the F-score of the marked point
        ax: axes to draw on; ``None``: a new figure

    Returns:
        the axes

    Raises:
        ImportError: if matplotlib is not installed
        ValueError, TypeError: on invalid input, as :func:`audeval.precision_recall_curve`

    Examples:
        >>> import audformat
        >>> import audeval.plot
        >>> truth = pd.Series(["a"], index=audformat.segmented_index(["f"], [0.0], [2.0]))
        >>> index = audformat.segmented_index(["f"] * 4, [0, 1, 2, 3], [1, 2, 3, 4])
        >>> scores = pd.DataFrame({"a": [0.9, 0.6, 0.3, 0.1]}, index=index)
        >>> ax = audeval.plot.precision_recall(truth, scores)
        >>> [line.get_gid() for line in ax.lines]
        ['pr:a', 'best-f:a']
        >>> ax.get_legend().get_texts()[0].get_text()
        'a (AP 1.000, best F 1.000)'

    """



def _precision_recall(truth, scores, labels, options):
    """The body of :func:`precision_recall` (``options``: the checked options object)."""
    pyplot()
    beta, ax = options.beta, options.ax
    if scores is None and _is_curve(truth, PR_COLUMNS):
        curve, draw = truth, labels
    else:
        curve = audeval.precision_recall_curve(truth, scores, labels, **_given(options, PR_OPTIONS))
        draw = None
    names = list(dict.fromkeys(curve.index.get_level_values("label")))
    ax = new_axes(ax, 7.4, 4.6)
    for label in _selected(names, draw, "the curve"):
        rows = curve.xs(label, level="label", drop_level=False)
        recall, precision, ap = _ap_staircase(rows)
        p = rows["precision"].to_numpy(dtype=float)
        r = rows["recall"].to_numpy(dtype=float)
        f = (1 + beta**2) * p * r / np.maximum(beta**2 * p + r, 1e-15)
        best = int(np.argmax(f))
        line, = ax.step(recall, precision, where="pre", linewidth=1.4,
                        label=f"{label} (AP {ap:.3f}, best F {f[best]:.3f})", gid=f"pr:{label}")
        ax.plot([r[best]], [p[best]], marker="o", color=line.get_color(), linestyle="none",
                gid=f"best-f:{label}")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_title(f"precision-recall{_criterion(truth, scores, options)} (dot: best F)", fontsize=9)
    if names:
        _outside_legend(ax, *ax.get_legend_handles_labels())
    return ax


def _criterion(truth, scores, options) -> str:
    """``": intersection (DTC 0.7, GTC 0.7)"`` and the like; empty for a curve."""
    if scores is None and _is_curve(truth, PR_COLUMNS):
        return ""
    given = {name: getattr(options, name) for name in ("criterion", "dtc_threshold", "gtc_threshold")}
    if scores is None and isinstance(truth, pd.DataFrame):
        recorded = table_options(truth)
        given.update({k: recorded[k] for k in given if recorded.get(k) is not None})
    if given["criterion"] == "intersection":
        return (f": intersection (DTC {_number(given['dtc_threshold'])}, "
                f"GTC {_number(given['gtc_threshold'])})")
    return f": {given['criterion']}"


# declared on the score family: each option checked once, given options passed on as given
psd_roc = SCORE.statistics(_psd_roc)(psd_roc)
precision_recall = SCORE.statistics(_precision_recall)(precision_recall)

