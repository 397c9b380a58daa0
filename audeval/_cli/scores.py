"""``audeval scores``: score-based sound event detection (SPEC section 10).

Reads the truth and a sed_scores_eval score folder or psds_eval operating points,
makes every statistics table it needs once (one per set of criteria)
and reduces the tables with the public score metrics,
so the numbers are those of :func:`audeval.psds`, :func:`audeval.best_fscore`,
:func:`audeval.fscore_at`, :func:`audeval.average_precision` and :func:`audeval.auroc`.
"""

from __future__ import annotations

import argparse
import contextlib
import os

import numpy as np
import pandas as pd

import audeval

from audeval._cli.inputs import read_durations, read_side, rename_files
from audeval._cli.messages import PROGRESS_MIN_FILES, UsageError, progress_wanted
from audeval._cli.render import Result


PRESETS = {"psds1": audeval.PSDS1, "psds2": audeval.PSDS2}
PSDS_OPTIONS = ("dtc_threshold", "gtc_threshold", "cttc_threshold", "alpha_ct", "alpha_st", "max_efpr")
# shown in table and markdown output unless --all-columns (the PSDS columns come first)
SCORE_COLUMNS = (
    "best_fscore",
    "best_threshold",
    "fscore",
    "precision",
    "recall",
    "average_precision",
    "auroc",
)


class ScoreData:
    """Truth, scores (a score table or operating points) and durations, files matched."""

    def __init__(self, truth, scores, files_duration, kind: str) -> None:
        self.truth = truth
        self.scores = scores
        self.files_duration = files_duration
        self.kind = kind  # "scores" or "operating_points"

    def n_files(self) -> int:
        files = set(self.truth.attrs.get("files") or self.truth.index.get_level_values("file"))
        sides = [self.scores] if self.kind == "scores" else list(self.scores.values())
        for side in sides:
            files.update(side.index.get_level_values("file").unique())
        if self.files_duration is not None:
            files.update(self.files_duration.index)
        return len(files)


def scores_kind(path: str, given: str) -> str:
    """``"scores"`` or ``"operating_points"``: given, or from the header of the first file."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file or directory.")
    if not os.path.isdir(path):
        raise ValueError(
            f"{path}: SCORES must be a folder of score files (<audio id>.tsv) "
            "or of operating points (predictions_th_<threshold>.tsv)."
        )
    if given != "auto":
        return given
    names = sorted(n for n in os.listdir(path) if n.endswith(".tsv") and not n.startswith("."))
    if not names:
        raise ValueError(f"{path}: holds no .tsv files.")
    with open(os.path.join(path, names[0]), encoding="utf-8-sig") as fp:
        header = [field.strip() for field in fp.readline().split("\t")]
    if header[:2] == ["onset", "offset"] and "event_label" not in header:
        return "scores"
    return "operating_points"


def load_scores(args: argparse.Namespace) -> ScoreData:
    """Read truth, scores and durations; with ``--match-files stem`` files are matched by stem."""
    kind = scores_kind(args.scores, args.scores_format)
    many = len(os.listdir(args.scores)) > PROGRESS_MIN_FILES
    truth = read_side(args, "truth")
    files_duration = read_durations(args.files_duration, args.match_files)
    verbose = many and progress_wanted(args)  # a bar that moves per file
    if kind == "scores":
        # audio ids: the file names without .tsv (already stems: "a_1.000" is not cut)
        scores = audeval.read_sed_scores(args.scores, verbose=verbose)
    else:
        scores = audeval.read_operating_points(args.scores, verbose=verbose)
        if args.match_files == "stem":
            scores = {t: rename_files(s, f"operating point {t:g}") for t, s in scores.items()}
    if args.match_files == "stem":
        truth = rename_files(truth, "truth")
    return ScoreData(truth, scores, files_duration, kind)


def scenarios(args: argparse.Namespace) -> list[tuple[str, dict]]:
    """(column, options of :func:`audeval.psds`) of every PSDS to compute."""
    given = {k: getattr(args, k) for k in PSDS_OPTIONS if getattr(args, k) is not None}
    if not given:
        return [(name, dict(PRESETS[name])) for name in args.psds]
    if not args.psds:
        raise UsageError("--psds none leaves nothing for the PSDS options to change")
    if len(args.psds) > 1:
        raise UsageError(
            f"the PSDS options change one scenario; give --psds psds1 or --psds psds2 "
            f"(got --psds {','.join(args.psds)})"
        )
    return [("psds", {**PRESETS[args.psds[0]], **given})]


@contextlib.contextmanager
def working(args: argparse.Namespace, desc: str, many: bool):
    """A step with no loop to count (one vectorised call): its elapsed time, refreshed every 0.5 s.

    Shown when progress bars are wanted and the step is ``many`` files long.
    """
    if not many or not progress_wanted(args):
        yield
        return
    import threading

    from tqdm import tqdm

    bar = tqdm(total=1, desc=desc, bar_format="{desc}: working, {elapsed} elapsed", leave=False)
    done = threading.Event()

    def tick() -> None:
        while not done.wait(0.5):
            bar.refresh()

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        bar.close()  # the line is cleared, as the other bars


class Tables:
    """Statistics tables of one input, each made once per set of criteria."""

    def __init__(self, data: ScoreData, args: argparse.Namespace) -> None:
        self.data = data
        self.args = args
        self.cache: dict = {}

    def __call__(self, **options) -> pd.DataFrame:
        key = tuple(sorted(options.items()))
        if key not in self.cache:
            data = self.data
            many = data.n_files() > PROGRESS_MIN_FILES
            with working(self.args, f"Scoring ({options['criterion']})", many):
                self.cache[key] = audeval.score_statistics(
                    data.truth, data.scores, self.args.labels,
                    files_duration=data.files_duration, compat=self.args.compat, **options,
                )
        return self.cache[key]

    def intersection(self, dtc: float, gtc: float, cttc: float | None = None) -> pd.DataFrame:
        return self(criterion="intersection", dtc_threshold=dtc, gtc_threshold=gtc,
                    cttc_threshold=cttc)


def _fscore_table(tables: Tables, args: argparse.Namespace) -> pd.DataFrame:
    """The table of F-scores and AP: intersection (0.7, 0.7 unless given) or collar."""
    if args.criterion == "collar":
        return tables(criterion="collar", onset_tolerance=args.onset_tolerance,
                      offset_tolerance=args.offset_tolerance,
                      duration_tolerance=args.duration_tolerance)
    dtc = 0.7 if args.dtc_threshold is None else args.dtc_threshold
    gtc = 0.7 if args.gtc_threshold is None else args.gtc_threshold
    return tables.intersection(dtc, gtc)


def _macro(values: pd.Series) -> float:
    return float(np.mean(values.to_numpy(dtype=float))) if len(values) else float("nan")


def compute(data: ScoreData, args: argparse.Namespace) -> tuple[pd.DataFrame, list]:
    """One row per label, then ``macro`` and ``micro``; PSDS values in the ``macro`` row."""
    tables = Tables(data, args)
    psds_values = []
    for name, options in scenarios(args):
        cttc = options["cttc_threshold"] if options["alpha_ct"] != 0 else None
        table = tables.intersection(options["dtc_threshold"], options["gtc_threshold"], cttc)
        value = audeval.psds(table, None, alpha_ct=options["alpha_ct"],
                             alpha_st=options["alpha_st"], max_efpr=options["max_efpr"])
        psds_values.append((name, options, value))
    table = _fscore_table(tables, args)
    best = audeval.best_fscore(table, None, beta=args.beta, min_precision=args.min_precision,
                               min_recall=args.min_recall)
    at = audeval.fscore_at(table, None, threshold=args.threshold, beta=args.beta)
    out = pd.DataFrame(index=best.index)
    for name, _, value in psds_values:
        out[name] = [value if label == "macro" else np.nan for label in out.index]
    out["best_fscore"] = best["fscore"]
    out["best_threshold"] = best["threshold"]
    for column in ("fscore", "precision", "recall"):
        out[column] = at[column]
    ap = pd.Series(audeval.average_precision(table, None, average=None), dtype=float)
    out["average_precision"] = ap.reindex(out.index)
    out.loc["macro", "average_precision"] = _macro(ap)
    if data.kind == "scores":
        if args.segment_length is None:
            raise UsageError("--segment-length must be a positive number of seconds")
        segments = tables(criterion="segment", segment_length=args.segment_length)
        auroc = pd.Series(
            audeval.auroc(segments, None, max_fpr=args.max_fpr, mcclish=args.mcclish, average=None),
            dtype=float,
        )
        out["auroc"] = auroc.reindex(out.index)
        out.loc["macro", "auroc"] = _macro(auroc)
    out["best_precision"] = best["precision"]
    out["best_recall"] = best["recall"]
    out.index.name = "label"
    return out, psds_values


def _number(value: float) -> str:
    return f"{value:g}"


def title(data: ScoreData, args: argparse.Namespace, psds_values: list, n_labels: int) -> str:
    """What was computed, with every criterion."""
    if data.kind == "scores":
        source = f"score table of {len(data.scores)} frames"
    else:
        source = f"{len(data.scores)} operating points"
    parts = [f"Score-based metrics: {data.n_files()} files, {n_labels} labels, {source}"
             f"{f'; {args.compat} compat' if args.compat else ''}"]
    for name, options, _ in psds_values:
        cross = (f", CTTC {_number(options['cttc_threshold'])}, alpha_ct {_number(options['alpha_ct'])}"
                 if options["alpha_ct"] != 0 else "")
        parts.append(
            f"{name.upper()} (macro row): DTC {_number(options['dtc_threshold'])}, "
            f"GTC {_number(options['gtc_threshold'])}{cross}, alpha_st {_number(options['alpha_st'])}, "
            f"max eFPR {_number(options['max_efpr'])}/h"
        )
    if args.criterion == "collar":
        criterion = (f"collar (onset {_number(args.onset_tolerance)} s, offset "
                     f"max({_number(args.offset_tolerance)} s, {_number(args.duration_tolerance)} x length))")
    else:
        dtc = 0.7 if args.dtc_threshold is None else args.dtc_threshold
        gtc = 0.7 if args.gtc_threshold is None else args.gtc_threshold
        criterion = f"intersection (DTC {_number(dtc)}, GTC {_number(gtc)})"
    parts.append(f"F and AP: {criterion}, fscore at threshold {_number(args.threshold)}")
    if data.kind == "scores":
        area = "AUROC" if args.max_fpr is None else (
            f"partial AUROC up to FPR {_number(args.max_fpr)}{' (McClish)' if args.mcclish else ''}")
        parts.append(f"{area} of {_number(args.segment_length)} s segments")
    else:
        parts.append("no AUROC from operating points")
    return "; ".join(parts)


def scores(args: argparse.Namespace) -> Result:
    """``audeval scores``: PSDS, best F, F at a threshold, AP and AUROC per label."""
    data = load_scores(args)
    out, psds_values = compute(data, args)
    n_labels = len(out) - 2
    columns = [name for name, _, _ in psds_values] + list(SCORE_COLUMNS)
    return Result(title(data, args, psds_values, n_labels), out, columns=columns)


__all__ = ["load_scores", "scores"]
