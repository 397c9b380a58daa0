"""The parser of ``audeval report`` (its runner is :mod:`audeval._cli.report`)."""

from __future__ import annotations

from audeval._cli.argtypes import _non_negative_int, _ratio
from audeval._cli.messages import PROG


FAMILIES = ("events", "segments", "diarization", "structure", "scores")


def add_report(commands) -> None:
    """The parser of ``audeval report`` (unknown arguments go to the family's parser)."""
    p = commands.add_parser(
        "report",
        help="a self-contained HTML page of an evaluation or of a database QA",
        description="Write one HTML page that works offline: headline metrics with "
        "bootstrap intervals, per-class and per-file tables (sortable, filterable), "
        "timelines of the worst files, the confusion matrix; or, with --database, "
        "the QA page of its raters (agreement heat map, per-rater and per-label agreement, "
        "disputed spans with timelines and audio players, the consensus as CSV). "
        f"Evaluation: '{PROG} report TRUTH PREDICTION -o report.html' takes every input "
        f"and metric option of the family's subcommand (see '{PROG} events --help').",
    )
    p.forwards_arguments = True  # parse() hands unknown arguments to the command
    p.add_argument(
        "--family",
        choices=FAMILIES,
        default="events",
        help="metric family of the evaluation page (default: events)",
    )
    g = p.add_argument_group("QA of a database")
    g.add_argument("--database", metavar="FOLDER", help="an audformat database: "
                   "its columns with a rater_id are the raters")
    g.add_argument("--scheme", metavar="ID", help="with --database: only columns of this scheme")
    g.add_argument("--audio-root", metavar="DIR", help="folder of the audio files "
                   "(default: the database folder): disputed spans get a player")
    g = p.add_argument_group("page")
    g.add_argument("-o", "--output", metavar="PATH", help="write the page to PATH "
                   "(default: stdout)")
    g.add_argument("--n-timelines", type=_non_negative_int, default=20, metavar="N",
                   help="timelines of the N worst files or longest disputed spans (default: 20)")
    g.add_argument("--n-boot", type=_non_negative_int, default=1000, metavar="N",
                   help="bootstrap resamples of the intervals (default: 1000; 0: none)")
    g.add_argument("--confidence", type=_ratio, default=0.95, metavar="RATIO",
                   help="confidence level of the intervals (default: 0.95)")
    g.add_argument("--seed", type=_non_negative_int, default=0, help="bootstrap seed (default: 0)")
    g.add_argument("--title", help="title of the page")
    g.add_argument("--no-progress", action="store_true", help="never show a progress bar")


__all__ = ["FAMILIES", "add_report"]
