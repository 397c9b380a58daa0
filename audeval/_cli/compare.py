"""``audeval compare``: several systems on one truth, paired intervals and tests (issue 28).

::

    audeval compare TRUTH SYSTEM [SYSTEM ...] --metric NAME [-O OPTION=VALUE ...]
        [--method bootstrap|permutation] [--baseline NAME] [--pairwise]

A SYSTEM is ``PATH`` (named by its file or folder name without extension)
or ``NAME=PATH``. For :func:`audeval.psds` a system is a folder of score files
or of operating points (as ``audeval scores`` reads them); otherwise an annotation
file or folder in any format :func:`audeval.read_annotations` reads.
The metric's options are given as ``-O NAME=VALUE`` (``-O onset_tolerance=0.2``);
the result is :func:`audeval.compare`'s table.
"""

from __future__ import annotations

import argparse
import os

import audeval

from audeval._cli.argtypes import _list, _non_negative_int, _ratio
from audeval._cli.inputs import INPUT_FORMATS, read_durations, read_side
from audeval._cli.messages import UsageError, phase
from audeval._cli.render import Result, _add_output


def _system(text: str) -> tuple[str, str]:
    """``NAME=PATH`` or ``PATH`` (the name: the file or folder name without extension)."""
    if "=" in text and not os.path.exists(text):
        name, path = text.split("=", 1)
        if not name or not path:
            raise argparse.ArgumentTypeError(f"expected NAME=PATH or PATH, got {text!r}")
        return name, path
    stem = os.path.basename(os.path.normpath(text))
    return os.path.splitext(stem)[0] or stem, text


def _value(text: str) -> object:
    """An option value: none, true/false, an integer, a number, else the text."""
    lowered = text.strip().lower()
    if lowered == "none":
        return None
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _option(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected OPTION=VALUE, got {text!r}")
    name, value = text.split("=", 1)
    name = name.strip().replace("-", "_")
    if not name.isidentifier():
        raise argparse.ArgumentTypeError(f"expected OPTION=VALUE, got {text!r}")
    return name, _value(value)


def _positive_int(text: str) -> int:
    value = _non_negative_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def add_parser(commands) -> None:
    """The ``compare`` subcommand's parser."""

    p = commands.add_parser(
        "compare",
        help="compare systems: paired bootstrap intervals and significance tests",
        description="Compare systems on one truth: the metric of every system with its "
        "bootstrap interval, the difference to a baseline with its interval, and a paired "
        "significance test (bootstrap or approximate randomization, exact for few files), "
        "Holm-corrected. Files are the resampling unit. "
        "Example: audeval compare truth.tsv a=run1.tsv b=run2.tsv --metric event_fscore "
        "-O onset_tolerance=0.2 -O duration_tolerance=0.2",
    )
    p.add_argument("truth", metavar="TRUTH", help="ground truth: annotation file or directory")
    p.add_argument(
        "systems",
        nargs="+",
        type=_system,
        metavar="SYSTEM",
        help="a system's prediction as PATH or NAME=PATH (psds: a folder of score files "
        "or operating points)",
    )
    _add_metric(p.add_argument_group("metric"), INPUT_FORMATS)
    _add_comparison(p.add_argument_group("comparison"))
    _add_output(p, per_file=False)
    p.set_defaults(match_files="exact")


def _add_metric(group, input_formats) -> None:
    group.add_argument(
        "--metric",
        required=True,
        metavar="NAME",
        help="an audeval metric function (event_fscore, segment_fscore, psds, "
        "diarization_error_rate, detection_error_rate, v_measure, ...)",
    )
    group.add_argument(
        "-O",
        "--option",
        dest="options",
        action="append",
        type=_option,
        default=[],
        metavar="OPTION=VALUE",
        help="an option of the metric, e.g. -O onset_tolerance=0.2 (none, true, false, numbers)",
    )
    group.add_argument(
        "--component",
        metavar="KEY",
        help="for a metric of several numbers: the position or key of the one to compare "
        "(v_measure: 2 for V)",
    )
    group.add_argument("--labels", type=_list, metavar="A,B,...", help="labels to evaluate")
    group.add_argument(
        "--files-duration",
        metavar="PATH",
        help="CSV/TSV with file and duration (seconds) of every audio file",
    )
    group.add_argument(
        "--input-format", choices=input_formats, default="auto", help="format of the annotation files"
    )


def _add_comparison(test) -> None:
    test.add_argument("--baseline", metavar="NAME", help="the system to compare with (default: the first)")
    test.add_argument(
        "--method",
        choices=("bootstrap", "permutation"),
        default="bootstrap",
        help="paired bootstrap (default) or paired approximate randomization",
    )
    test.add_argument(
        "--pairwise", action="store_true", help="every ordered pair of systems instead of a baseline"
    )
    test.add_argument(
        "--n-resamples", type=_positive_int, default=10_000, metavar="N", help="resamples (default: 10000)"
    )
    test.add_argument(
        "--confidence", type=_ratio, default=0.95, metavar="LEVEL", help="interval level (default: 0.95)"
    )
    test.add_argument(
        "--interval", choices=("percentile", "bca"), default="percentile", help="interval (default: percentile)"
    )
    test.add_argument(
        "--correction",
        choices=("holm", "bonferroni", "bh", "none"),
        default="holm",
        help="multiple-test correction of the p-values (default: holm)",
    )
    test.add_argument(
        "--strata",
        metavar="PATH",
        help="CSV/TSV of file and stratum (e.g. domain): the bootstrap resamples within strata",
    )
    test.add_argument("--seed", type=_non_negative_int, default=0, help="random seed (default: 0)")


def _metric(name: str):
    from audeval._generic.registry import family_of

    function = getattr(audeval, name, None)
    if not callable(function):
        raise UsageError(f"--metric: {name!r} is not a metric of audeval")
    try:
        family_of(function)
    except ValueError:
        raise UsageError(f"--metric: {name!r} is not a metric of a statistics family") from None
    return function


def _read_system(args, path: str, name: str, scores: bool):
    if scores:
        from audeval._cli.scores import scores_kind

        if scores_kind(path, "auto") == "scores":
            return audeval.read_sed_scores(path)
        return audeval.read_operating_points(path)
    namespace = argparse.Namespace(**vars(args))
    namespace.system = path
    namespace.system_format = None
    return read_side(namespace, "system")


def _read_strata(path: str | None):
    """file -> stratum from the first two columns of a CSV or TSV file."""
    if path is None:
        return None
    import pandas as pd

    if not os.path.isfile(path):
        raise UsageError(f"--strata: {path}: no such file")
    table = pd.read_csv(path, sep=None, engine="python", dtype=str)
    if table.shape[1] < 2:
        raise UsageError(f"--strata: {path} needs two columns, file and stratum; got {list(table.columns)}")
    return pd.Series(table.iloc[:, 1].to_numpy(), index=table.iloc[:, 0].to_numpy())


def run(args: argparse.Namespace) -> Result:
    """``audeval compare``: :func:`audeval.compare` of the systems on the truth."""
    metric = _metric(args.metric)
    names = [name for name, _ in args.systems]
    if len(set(names)) != len(names):
        raise UsageError(f"system names must differ; got {names} (name them NAME=PATH)")
    if len(names) < 2:
        raise UsageError("give at least two systems")
    scores = metric in (audeval.psds,)
    truth = read_side(args, "truth")
    with phase(args, "Reading systems", len(names) > 3):
        systems = {name: _read_system(args, path, name, scores) for name, path in args.systems}
    options = dict(args.options)
    files_duration = read_durations(args.files_duration, args.match_files)
    if files_duration is not None:
        options["files_duration"] = files_duration
    component = args.component
    if component is not None:
        component = _value(component)
    with phase(args, "Comparing systems", True):
        result = audeval.compare(
            metric,
            truth,
            systems,
            args.labels,
            baseline=args.baseline,
            method=args.method,
            n_resamples=args.n_resamples,
            confidence=args.confidence,
            interval=args.interval,
            correction=None if args.correction == "none" else args.correction,
            pairwise=args.pairwise,
            component=component,
            strata=_read_strata(args.strata),
            seed=args.seed,
            **options,
        )
    info = result.attrs["compare"]
    test = (
        f"exact permutation test ({2 ** info['n_files']} swaps)"
        if info["exact"]
        else f"{args.method} test, {args.n_resamples} resamples"
    )
    against = "every pair" if args.pairwise else f"baseline {info['baseline']}"
    title = (
        f"{args.metric}: {len(names)} systems, {info['n_files']} files; "
        f"{int(round(args.confidence * 100))} % {args.interval} intervals; {test}; {against}"
        f"{'; ' + args.correction + '-corrected' if args.correction != 'none' else ''}"
    )
    return Result(title, result)


__all__ = ["add_parser", "run"]
