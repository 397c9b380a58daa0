"""One self-contained HTML report per evaluation or per database QA (SPEC section 13).

Modules: ``page`` (document, cards, data tables as JSON), ``assets`` (the inline
style sheet and script), ``svg`` (timelines, heat maps, curves), ``evaluation``
(the evaluation page), ``events``, ``activity`` (segments, diarization), ``structure``
and ``scores``: what each family puts on it, ``qa`` (the QA page of several raters).
Every number comes from audeval's public functions with the options given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import os

import pandas as pd


FAMILIES = ("events", "segments", "diarization", "structure", "scores", "agreement")


def _family(family: str | None, prediction: object) -> str:
    if family is None:
        if prediction is None:
            return "agreement"
        if isinstance(prediction, pd.DataFrame):
            return "scores"
        return "events"
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {list(FAMILIES)}; got {family!r}.")
    return family


def _check(n_timelines: int, n_boot: int, confidence: float) -> None:
    for name, value in (("n_timelines", n_timelines), ("n_boot", n_boot)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer; got {value!r}.")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}.")


def html_report(
    truth: pd.Series | Mapping[object, pd.Series] | object,
    prediction: pd.Series | pd.DataFrame | None = None,
    labels: Sequence[object] | None = None,
    *,
    family: str | None = None,
    output: str | os.PathLike | None = None,
    n_timelines: int = 20,
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    audio_root: str | os.PathLike | None = None,
    scheme: str | None = None,
    title: str | None = None,
    **options,
) -> str:
    r"""A self-contained HTML page of an evaluation or of a database QA.

    The page works offline: style, script and figures (SVG) are inline,
    nothing is loaded from elsewhere.
    Every number on it is the number of the public function that computes it,
    with the options given here:

    * **evaluation** (``truth`` and ``prediction``): the headline metrics with
      percentile bootstrap intervals over files (:func:`audeval.bootstrap`,
      ``n_boot`` resamples, ``confidence``, ``seed``) and the options used;
      the per-class report; the per-file table (paged, sortable, filterable by file
      name, label and the range of a column), worst files first; a timeline of each of the
      ``n_timelines`` worst files (events: the rows of :func:`audeval.event_outcomes`,
      coloured as :mod:`audeval.plot`; segments and diarization: where truth and
      prediction are active); and per family the confusion matrix (events), the
      speaker mapping and error parts per file (diarization), the mean over files of
      every value of :func:`audeval.structure_report` and the two partitions of the worst
      files (structure), or (scores: ``prediction``
      a score table) PSDS with its interval, the PSD-ROC and precision-recall curves and
      every class's best threshold, with the per-file tables and timelines of the events
      detected at ``threshold`` (an option, default 0.5);
    * **QA** (``truth`` an audformat database or a mapping rater -> annotations,
      ``prediction=None``): Cohen's kappa of every pair of raters as a heat map,
      Krippendorff's alpha and Fleiss' kappa with intervals, per rater the kappa with the
      consensus and the alpha without that rater, per label alpha and kappa, the spans
      where raters disagree (:func:`audeval.disagreements`), longest first, each with
      a timeline of all raters and an audio player for exactly the span
      (media fragment ``#t=start,end``) where the audio file is found,
      and the consensus (:func:`audeval.consensus`, ``per_label=True``) as a CSV download.

    The worst file is the one with the lowest F-score (events, segments, scores;
    structure: the boundary F-score of the first window)
    or the highest error rate (diarization).

    Args:
        truth: truth (audformat segmented Series),
            or for QA an audformat database or a mapping rater -> Series
        prediction: prediction (Series), score table (DataFrame, family ``scores``),
            or ``None`` for QA
        labels: labels to evaluate (as for the family's metrics)
        family: ``"events"``, ``"segments"``, ``"diarization"``, ``"structure"``, ``"scores"`` or
            ``"agreement"``; default: ``"agreement"`` without prediction,
            ``"scores"`` for a score table, else ``"events"``
        output: write the page to this path (the page is also returned)
        n_timelines: number of worst files with a timeline (QA: disputed spans
            with a timeline and a player)
        n_boot: bootstrap resamples of the intervals (0: no intervals)
        confidence: confidence level of the intervals
        seed: seed of the bootstrap
        audio_root: folder of the audio files (QA), default the database's root
        scheme: QA of a database: only the rater columns of this scheme
        title: title of the page
        **options: options of the family's statistics and metrics
            (e.g. ``onset_tolerance``, ``time_resolution``, ``collar``, ``files_duration``)

    Returns:
        the HTML text of the page

    Raises:
        TypeError: an option the family does not know
        ValueError: invalid input or option value

    Examples:
        >>> import audeval
        >>> truth, prediction, files_duration = audeval.example_data()
        >>> page = audeval.html_report(
        ...     truth, prediction, onset_tolerance=0.5, files_duration=files_duration, n_boot=100
        ... )
        >>> page.startswith("<!DOCTYPE html>"), "https://" in page
        (True, False)

    """
    _check(n_timelines, n_boot, confidence)
    family = _family(family, prediction)
    boot = {"n_boot": n_boot, "confidence": confidence, "seed": seed}
    if family == "agreement":
        text = _qa(truth, prediction, labels, options, boot, n_timelines, audio_root, scheme,
                   output, title)
    else:
        if prediction is None:
            raise ValueError(f"family {family!r} needs a prediction; got prediction=None.")
        from audeval._html.evaluation import evaluation_page

        evaluation = _evaluate(family, truth, prediction, labels, options, boot)
        text = evaluation_page(
            evaluation,
            n_timelines=n_timelines,
            confidence=confidence if n_boot else None,
            title=title,
        )
    if output is not None:
        with open(os.fspath(output), "w", encoding="utf-8") as fp:
            fp.write(text)
    return text


def _evaluate(family: str, truth, prediction, labels, options: dict, boot: dict):
    if family == "events":
        from audeval._html.events import evaluate_events

        return evaluate_events(truth, prediction, labels, options, boot)
    if family == "scores":
        from audeval._html.scores import evaluate_scores

        return evaluate_scores(truth, prediction, labels, options, boot)
    if family == "structure":
        from audeval._html.structure import evaluate_structure

        return evaluate_structure(truth, prediction, labels, options, boot)
    from audeval._html import activity

    return getattr(activity, f"evaluate_{family}")(truth, prediction, labels, options, boot)


def _qa(truth, prediction, labels, options, boot, n_spans, audio_root, scheme, output, title):
    from audeval._agreement import rater_annotations
    from audeval._html.qa import AudioFinder, qa_page

    if prediction is not None:
        raise ValueError("the QA page takes the raters in truth; pass prediction=None.")
    roots = [os.fspath(audio_root)] if audio_root is not None else []
    if isinstance(truth, Mapping):
        if scheme is not None:
            raise ValueError("scheme selects the rater columns of a database; got a mapping.")
        raters = dict(truth)
    else:
        raters = rater_annotations(truth, scheme=scheme)
        root = getattr(truth, "root", None)
        if root:
            roots.append(root)
    if len(raters) < 2:
        raise ValueError(f"the QA page needs at least two raters; got {list(raters)}.")
    output_dir = os.path.dirname(os.path.abspath(os.fspath(output))) if output is not None else None
    return qa_page(raters, labels, options, boot, n_spans=n_spans,
                   audio=AudioFinder(roots, output_dir), title=title)


__all__ = ["html_report"]
