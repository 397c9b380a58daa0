"""The argument parser of ``audeval``, built per subcommand from small functions."""

from __future__ import annotations

import argparse

from audeval._agreement import AGREEMENT
from audeval._cli.argtypes import (
    _seconds,
    _positive_seconds_or_none,
    _number,
    _list,
    _seconds_list,
    _psds_list,
)
from audeval._cli.declared import add_option
from audeval._cli.compare import add_parser as _compare
from audeval._cli.messages import PROG, UsageError
from audeval._cli.inputs import INPUT_FORMATS
from audeval._cli.render import _add_output
from audeval._cli.report_args import add_report
from audeval._diarization import DETECTION, DIARIZATION
from audeval._events import EVENT
from audeval._sed_scores import SCORE
from audeval._segments import SEGMENT
from audeval._structure import STRUCTURE


class _Parser(argparse.ArgumentParser):
    """An argument parser that reports errors in one line instead of exiting."""

    commands: dict[str, argparse.ArgumentParser]  # set by build_parser: name -> the subcommand's parser

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see '{self.prog} --help')")



def _add_inputs(parser: argparse.ArgumentParser, *, example: bool, labels: bool = True) -> None:
    parser.add_argument(
        "truth",
        nargs="?",
        metavar="TRUTH",
        help="ground truth: annotation file or directory (MIREX/DCASE tsv, .lab, RTTM, "
        "audformat CSV) or an audformat database folder",
    )
    parser.add_argument(
        "prediction",
        nargs="?",
        metavar="PREDICTION",
        help="prediction, in any supported format",
    )
    group = parser.add_argument_group("input")
    if example:
        group.add_argument(
            "--example",
            action="store_true",
            help="evaluate the example dataset shipped with audeval",
        )
    group.add_argument(
        "--files-duration",
        metavar="PATH",
        help="CSV/TSV with file and duration (seconds) of every audio file",
    )
    if labels:
        group.add_argument(
            "--labels",
            type=_list,
            metavar="A,B,...",
            help="labels to evaluate, in this order (others are left out)",
        )
    group.add_argument(
        "--input-format",
        choices=INPUT_FORMATS,
        default="auto",
        help="format of both inputs (default: from the file extension and content)",
    )
    group.add_argument("--truth-format", choices=INPUT_FORMATS, help=argparse.SUPPRESS)
    group.add_argument("--prediction-format", choices=INPUT_FORMATS, help=argparse.SUPPRESS)
    group.add_argument(
        "--table",
        metavar="NAME",
        help="table of an audformat database (--truth-table, --prediction-table for one side)",
    )
    group.add_argument(
        "--column",
        metavar="NAME",
        help="label column of an audformat database or CSV "
        "(--truth-column, --prediction-column for one side)",
    )
    for side in ("truth", "prediction"):
        group.add_argument(f"--{side}-table", metavar="NAME", help=argparse.SUPPRESS)
        group.add_argument(f"--{side}-column", metavar="NAME", help=argparse.SUPPRESS)
    group.add_argument(
        "--match-files",
        choices=("exact", "stem"),
        default="exact",
        help="compare file names as they are (exact, default) "
        "or without folder and extension (stem: audio/a.wav matches a.txt)",
    )


# -------------------------------------------------------------------------
# Options shared by several subcommands
# -------------------------------------------------------------------------


def _command(commands, name: str, help: str, description: str, **inputs):
    """A subcommand's parser with its inputs (see :func:`_add_inputs`), and its metric group."""
    p = commands.add_parser(name, help=help, description=description)
    _add_inputs(p, **inputs)
    return p, p.add_argument_group("metric")


def _add_seconds(group, flag: str, default, help: str, *, type=_seconds, metavar="SECONDS") -> None:
    """A duration option in seconds (``type`` decides whether ``none`` is allowed)."""
    group.add_argument(flag, type=type, default=default, metavar=metavar, help=help)


def _add_zero_division(group, default: float | None, help: str) -> None:
    group.add_argument(
        "--zero-division", type=_number, default=default, metavar="VALUE", help=help
    )


def _add_collar(group, declaration) -> None:
    """The scored-region flags of the diarization and detection subcommands."""
    fields = declaration.fields
    add_option(group, fields["collar"])
    add_option(group, fields["collar_convention"])
    group.add_argument(
        "--uem",
        metavar="PATH",
        help="NIST UEM file of the scored regions (file channel start end); "
        "files without a region: [0, duration]",
    )
    add_option(group, fields["skip_overlap"])


# -------------------------------------------------------------------------
# Subcommands
# -------------------------------------------------------------------------


def _example(commands) -> None:
    p = commands.add_parser(
        "example",
        help="evaluate the example dataset shipped with audeval",
        description="Evaluate the example dataset shipped with audeval "
        "with event-based and segment-based metrics.",
    )
    p.add_argument("--path", action="store_true", help="print the folder of the example files")
    _add_output(p)


def _events(commands) -> None:
    p, g = _command(
        commands,
        "events",
        "event-based metrics (sed_eval/DCASE, MIREX)",
        "Event-based precision, recall, F-score and error rate per label, "
        "micro and macro (counts summed over files). "
        "Default tolerances (sed_eval's defaults): onsets within 0.2 s, offsets within "
        "max(0.2 s, 0.5 x event length). DCASE task 4: --duration-tolerance 0.2. "
        "MIREX 2018 music and speech detection (onsets and offsets within 0.5 s): "
        "--onset-tolerance 0.5 --offset-tolerance 0.5 --duration-tolerance 0.",
        example=True,
    )
    fields = EVENT.fields
    add_option(g, fields["onset_tolerance"], default=0.2)
    add_option(g, fields["offset_tolerance"], default=0.2, hint="offsets match within max(this, "
               "duration tolerance x event length)")
    add_option(g, fields["duration_tolerance"], default=0.5,
               hint="sed_eval's 0.5; DCASE task 4: 0.2; MIREX 2018: 0")
    g.add_argument("--no-onset", action="store_true", help="do not evaluate onsets")
    g.add_argument(
        "--no-offset",
        action="store_true",
        help="do not evaluate offsets (onsets only; MIREX 2018 does evaluate offsets)",
    )
    add_option(g, fields["matching"])
    add_option(g, fields["compat"], hint="a tolerance met exactly may miss")
    add_option(g, fields["zero_division"], hint="'nan' for NaN")
    add_option(g, fields["propagate_nans"])
    _add_output(p)


def _segments(commands) -> None:
    p, g = _command(
        commands,
        "segments",
        "segment-based metrics (sed_eval/DCASE, MIREX)",
        "Segment-based precision, recall, F-score, error rate and accuracy "
        "per label, micro and macro (counts summed over files).",
        example=True,
    )
    fields = SEGMENT.fields
    add_option(g, fields["time_resolution"], hint="MIREX: 0.01; 'exact' is 'none'")
    add_option(g, fields["compat"])
    g.add_argument(
        "--gap-label",
        metavar="LABEL",
        help="a class for unannotated time with its own row (MIREX2018_eval's final code: '-')",
    )
    add_option(g, fields["zero_division"], hint="'nan' for NaN")
    _add_output(p)


def _structure(commands) -> None:
    p, g = _command(
        commands,
        "structure",
        "structural segmentation (mir_eval.segment)",
        "Boundary detection and clustering metrics of mir_eval.segment per file, "
        "and their mean over files.",
        example=False,
        labels=False,
    )
    g.add_argument(
        "--windows",
        type=_seconds_list,
        default=[0.5, 3.0],
        metavar="S1,S2",
        help="boundary hit windows in seconds (default: 0.5,3.0)",
    )
    fields = STRUCTURE.fields
    add_option(g, fields["frame_size"], hint="of the clustering metrics; 'exact' is 'none'")
    add_option(g, fields["beta"])
    add_option(g, fields["trim"])
    add_option(g, fields["compat"])
    _add_output(p)


def _diarization(commands) -> None:
    p, g = _command(
        commands,
        "diarization",
        "diarization error rate (pyannote.metrics)",
        "Diarization error rate and its components per file and in total "
        "(durations summed over files).",
        example=False,
        labels=False,
    )
    _add_collar(g, DIARIZATION)
    add_option(g, DIARIZATION.fields["mapping"], hint="identity gives the identification error rate")
    g.add_argument(
        "--global-mapping",
        action="store_true",
        help="one label mapping over all files instead of one per file",
    )
    add_option(g, DIARIZATION.fields["regions"], hint="spy-der's regions")
    add_option(g, DIARIZATION.fields["compat"])
    _add_output(p)


def _detection(commands) -> None:
    p, g = _command(
        commands,
        "detection",
        "detection error rate (voice activity, pyannote.metrics)",
        "Detection error rate, precision, recall and accuracy "
        "per file and in total (durations summed over files).",
        example=True,
        labels=False,
    )
    g.add_argument(
        "--positive-labels",
        type=_list,
        metavar="A,B,...",
        help="labels that count as activity (default: every row)",
    )
    _add_collar(g, DETECTION)
    add_option(g, DETECTION.fields["beta"])
    add_option(g, DETECTION.fields["zero_division"], default=None,
               hint="default: the function's, 1 as pyannote.metrics")
    _add_output(p)


def _separation(commands) -> None:
    p = commands.add_parser(
        "separation",
        help="source separation (SI-SDR, BSS Eval)",
        description="Separation metrics per file and source. TRUTH and PREDICTION are "
        "CSV files with a 'file' column and one column of audio paths per source.",
    )
    p.add_argument("truth", metavar="TRUTH", help="CSV of reference audio paths")
    p.add_argument("prediction", metavar="PREDICTION", help="CSV of estimated audio paths")
    g = p.add_argument_group("metric")
    g.add_argument(
        "--mixture",
        metavar="PATH",
        help="CSV of mixture paths ('file' and one column) for the improvements "
        "si_sdri, sd_sdri, snri (default: the sum of the references, with a warning)",
    )
    g.add_argument(
        "--metrics",
        choices=("scale_invariant", "bss_eval_v4", "bss_eval_sources", "global_sdr", "sa_sdr"),
        default="scale_invariant",
        help="SI-SDR family (default), framewise BSS Eval v4, BSS Eval v3 sources "
        "(the SDR of most papers), the MDX/SDX global SDR (uSDR, chunked cSDR) "
        "or the source-aggregated SDR (one value per file)",
    )
    g.add_argument(
        "--permutation",
        action="store_true",
        help="match estimates to sources per file (permutation-invariant)",
    )
    for flag, default, help in (
        ("--window", 1.0, "BSS Eval window (default: 1.0; 'none' for the whole file)"),
        ("--hop", None, "BSS Eval hop (default: the window)"),
    ):
        _add_seconds(g, flag, default, help, type=_positive_seconds_or_none)
    g.add_argument(
        "--length-mismatch",
        choices=("error", "pad_or_truncate"),
        help="what to do when an estimate has another length than its reference",
    )
    g.add_argument(
        "--aggregate",
        choices=("median", "mean"),
        default="median",
        help="summary over windows and files (default: median, as SiSEC)",
    )
    _add_output(p)


def _agreement(commands) -> None:
    p = commands.add_parser(
        "agreement",
        help="rater agreement (Cohen's and Fleiss' kappa, Krippendorff's alpha), "
        "disagreements and consensus",
        description="Time-weighted agreement of two or more raters of the same files "
        "(continuous time, exact): Cohen's kappa of every pair of raters, "
        "Fleiss' kappa and Krippendorff's alpha over all raters; per label and per file "
        "on request. --disagreements and --consensus write the spans where raters differ "
        "and the majority vote as CSV files.",
    )
    p.add_argument(
        "raters",
        nargs="*",
        metavar="RATER",
        help="the annotations of one rater: a file or folder in any format "
        "read_annotations reads (at least two raters)",
    )
    group = p.add_argument_group("input")
    group.add_argument(
        "--database",
        metavar="FOLDER",
        help="an audformat database: its columns with a rater_id are the raters",
    )
    group.add_argument(
        "--scheme", metavar="ID", help="with --database: only columns of this scheme"
    )
    group.add_argument(
        "--files-duration",
        metavar="PATH",
        help="CSV/TSV with file and duration (seconds) of every audio file "
        "(default: a file ends at the latest end of any rater)",
    )
    g = p.add_argument_group("metric")
    g.add_argument(
        "--names", type=_list, metavar="A,B,...", help="rater names (default: the file names)"
    )
    add_option(g, AGREEMENT.fields["per_label"], hint="one row per label and their mean in the row 'all raters'")
    add_option(g, AGREEMENT.fields["frame_size"], hint="as frame-based tools")
    group = p.add_argument_group("disagreements and consensus")
    group.add_argument(
        "--disagreements",
        metavar="PATH",
        help="write the time spans where raters differ to the CSV file PATH "
        "(file, start, end in seconds, each rater's labels, duration), longest first",
    )
    group.add_argument(
        "--consensus",
        metavar="PATH",
        help="write the majority vote to the CSV file PATH (file, start, end in seconds, "
        "consensus; an audformat CSV that audeval reads); a tie goes to the rater given "
        "first; with --per-label each label is voted on alone",
    )
    _add_output(p)


def _scores(commands) -> None:
    p = commands.add_parser(
        "scores",
        help="score-based sound event detection (PSDS, best F, AP, AUROC; DCASE task 4)",
        description="Score-based metrics over all thresholds, pooled over files: "
        "PSDS (DCASE scenarios 1 and 2 or your own criteria) in the macro row, "
        "per label best F-score and its threshold, F-score at --threshold, "
        "average precision and (score folders) AUROC of segments.",
    )
    p.add_argument("truth", metavar="TRUTH", help="truth events (DCASE tsv or any format "
                   "read_annotations reads; empty rows name files without events)")
    p.add_argument("scores", metavar="SCORES", help="a sed_scores_eval score folder "
                   "(<audio id>.tsv: onset, offset, a score column per class) or a folder of "
                   "psds_eval operating points (DCASE detections named like predictions_th_0.5.tsv)")
    g = p.add_argument_group("input")
    g.add_argument("--files-duration", metavar="PATH", help="CSV/TSV with file and duration "
                   "(seconds): the time of the false positive rate (default: last frame end)")
    g.add_argument("--labels", type=_list, metavar="A,B,...", help="classes to evaluate, in this order")
    g.add_argument("--scores-format", choices=("auto", "scores", "operating_points"),
                   default="auto", help="what SCORES holds (default: from its files)")
    g.add_argument("--input-format", choices=INPUT_FORMATS, default="auto", help="format of TRUTH")
    g.add_argument("--match-files", choices=("exact", "stem"), default="stem",
                   help="compare file names without folder and extension (stem, default: "
                   "a.wav in the truth is scored by a.tsv) or as they are (exact)")
    g = p.add_argument_group("metric")
    g.add_argument("--psds", type=_psds_list, default=["psds1", "psds2"], metavar="LIST",
                   help="PSDS scenarios (default: psds1,psds2; 'none'); the options below "
                   "replace a scenario's values and give one column 'psds'")
    fields = SCORE.fields
    for name in ("dtc_threshold", "gtc_threshold", "cttc_threshold", "alpha_ct", "alpha_st", "max_efpr"):
        add_option(g, fields[name], default=None, context="PSDS", hint="default: the scenario's")
    add_option(g, fields["criterion"], choices=("intersection", "collar"), context="F-scores and AP",
               hint="'intersection': --dtc-threshold, --gtc-threshold (0.7 each); "
               "'collar': --onset-tolerance, --offset-tolerance, --duration-tolerance")
    for name in ("onset_tolerance", "offset_tolerance", "duration_tolerance"):
        add_option(g, fields[name])
    g.add_argument("--threshold", type=_number, default=0.5, help="decision threshold of the "
                   "column fscore: a frame is active if its score is above it (default: 0.5)")
    for name in ("beta", "min_precision", "min_recall"):
        add_option(g, fields[name], context="best F" if name != "beta" else "")
    for name in ("segment_length", "max_fpr", "mcclish"):
        add_option(g, fields[name], context="AUROC", hint="DCASE 2024: 0.1" if name == "max_fpr" else "")
    add_option(g, fields["compat"])
    _add_output(p, per_file=False)


DECLARED = {
    "agreement": AGREEMENT,
    "detection": DETECTION,
    "diarization": DIARIZATION,
    "events": EVENT,
    "scores": SCORE,
    "segments": SEGMENT,
    "structure": STRUCTURE,
}
"""Subcommands whose metric flags come from a family's declared options (:mod:`audeval._cli.declared`)."""

SUBCOMMANDS = (
    _example, _events, _segments, _structure, _diarization, _detection, _scores, _agreement,
    _separation, _compare, add_report,
)
"""The parser of every subcommand, in the order of ``audeval --help``."""


def build_parser() -> _Parser:
    """The argument parser of ``audeval``; ``args.command`` names the subcommand."""
    from audeval import __version__

    parser = _Parser(
        prog=PROG,
        description="Evaluate time-annotated audio labels and separated audio. "
        f"Start with '{PROG} example'.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for add in SUBCOMMANDS:
        add(commands)
    parser.commands = dict(commands.choices)  # name -> the subcommand's parser
    return parser


def parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``parser.parse_args(argv)``; unknown arguments are reported by the subcommand's parser,
    so that the message points to the subcommand's help (``audeval events --help``)."""
    args, unknown = parser.parse_known_args(argv)
    command = getattr(parser, "commands", {}).get(args.command, parser)
    if getattr(command, "forwards_arguments", False):  # audeval report: the family's options
        args.forwarded = unknown
        return args
    if unknown:
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


__all__ = ["INPUT_FORMATS", "build_parser", "parse"]
