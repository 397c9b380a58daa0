"""``audeval report``: the HTML page of an evaluation or of a database QA.

::

    audeval report TRUTH PREDICTION -o report.html [--family events|segments|diarization|structure|scores]
                   [the family's options] [--n-timelines N] [--n-boot N]
    audeval report --database DB [--scheme ID] -o qa.html [--audio-root DIR]

The family's options are those of its own subcommand (``audeval events --help``):
the arguments this parser does not know are parsed by the family's parser,
so a report and ``audeval events`` with the same options show the same numbers.
"""

from __future__ import annotations

import argparse
import os

from audeval._cli.messages import UsageError, phase


def report(args: argparse.Namespace) -> str:
    """``audeval report``: the page's HTML text (``main`` writes it to ``--output``)."""
    from audeval._html import html_report

    page = dict(
        n_timelines=args.n_timelines, n_boot=args.n_boot, confidence=args.confidence,
        seed=args.seed, title=args.title, output=None,
    )
    if args.database is not None:
        return _qa(args, page)
    family_args = _family_args(args)
    truth, prediction, labels, options = _inputs(args.family, family_args)
    with phase(args, "Writing the report", False):
        return html_report(truth, prediction, labels, family=args.family, **page, **options)


def _family_args(args: argparse.Namespace) -> argparse.Namespace:
    from audeval._cli.parser import build_parser

    forwarded = list(getattr(args, "forwarded", []))
    if args.audio_root is not None:
        raise UsageError("--audio-root goes with --database (the QA page)")
    parser = build_parser().commands[args.family]
    family_args = parser.parse_args(forwarded)
    family_args.command = args.family
    family_args.no_progress = family_args.no_progress or args.no_progress
    return family_args


def _inputs(family: str, args: argparse.Namespace):
    from audeval._cli.inputs import load

    if family == "scores":
        return _score_inputs(args)
    data = load(args)
    options: dict = {"files_duration": data.files_duration}
    if family == "events":
        options.update(
            onset_tolerance=None if args.no_onset else args.onset_tolerance,
            offset_tolerance=None if args.no_offset else args.offset_tolerance,
            duration_tolerance=None if args.no_offset else args.duration_tolerance,
            matching=args.matching, compat=args.compat, zero_division=args.zero_division,
            propagate_nans=args.propagate_nans,
        )
    elif family == "structure":
        options.update(windows=tuple(args.windows), frame_size=args.frame_size, beta=args.beta,
                       trim=args.trim, compat=args.compat)
    elif family == "segments":
        options.update(time_resolution=args.time_resolution, compat=args.compat,
                       zero_division=args.zero_division)
    else:
        from audeval._cli.inputs import _scored_region
        import audeval

        options.update(_scored_region(args, audeval, data))
        options.update(mapping=args.mapping, individual_file_mapping=not args.global_mapping,
                       regions=args.regions, compat=args.compat)
    return data.truth, data.prediction, data.labels, options


def _score_inputs(args: argparse.Namespace):
    """Truth and a score folder (not operating points), PSDS of the first scenario."""
    from audeval._cli.scores import load_scores, scenarios

    data = load_scores(args)
    if data.kind != "scores":
        raise UsageError("the report needs a score folder (<audio id>.tsv with a score column "
                         "per class); operating points give no score per frame")
    chosen = scenarios(args)
    options = dict(chosen[0][1]) if chosen else {}
    options.update(
        criterion=args.criterion, onset_tolerance=args.onset_tolerance,
        offset_tolerance=args.offset_tolerance, duration_tolerance=args.duration_tolerance,
        threshold=args.threshold, beta=args.beta, min_precision=args.min_precision,
        min_recall=args.min_recall, compat=args.compat, files_duration=data.files_duration,
    )
    return data.truth, data.scores, args.labels, options


def _qa(args: argparse.Namespace, page: dict) -> str:
    from audeval._cli.inputs import load_database
    from audeval._cli.inputs import read_durations
    from audeval._html import html_report

    forwarded = list(getattr(args, "forwarded", []))
    files_duration = None
    if forwarded[:1] == ["--files-duration"] and len(forwarded) == 2:
        files_duration = read_durations(forwarded[1], "exact")
    elif forwarded:
        raise UsageError(f"unrecognized arguments with --database: {' '.join(forwarded)}")
    db = load_database(args.database)
    audio_root = args.audio_root
    if audio_root is not None and not os.path.isdir(audio_root):
        raise UsageError(f"--audio-root {audio_root}: no such folder")
    # the page is written where the players' relative audio paths start
    page["output"] = args.output
    return html_report(
        db, scheme=args.scheme, audio_root=audio_root, files_duration=files_duration, **page
    )


__all__ = ["report"]
