"""The ``audeval`` command line interface (SPEC section 8).

One subcommand per metric family::

    audeval example
    audeval events TRUTH PREDICTION [options]
    audeval segments TRUTH PREDICTION [options]
    audeval structure TRUTH PREDICTION [options]
    audeval diarization TRUTH PREDICTION [options]
    audeval detection TRUTH PREDICTION [options]
    audeval scores TRUTH SCORES [options]
    audeval agreement RATER RATER [RATER ...] [options]
    audeval separation TRUTH PREDICTION [options]
    audeval report TRUTH PREDICTION -o report.html [--family ...] [options]
    audeval report --database DB [--scheme ID] -o qa.html [--audio-root DIR]

TRUTH and PREDICTION are annotation files or directories
in any format :func:`audeval.read_annotations` reads.
Bad input gives one line ``audeval: error: ...`` on stderr and exit code 2.

Modules: ``parser`` (the argument parser, one function per subcommand),
``inputs`` (reading both sides, matching files), ``commands`` (one function per subcommand,
calling the family's public report), ``render`` (table, markdown, CSV, JSON),
``messages`` (one-line errors, warnings, progress bars);
``scores`` (the score-based subcommand: reading score folders or operating points,
one statistics table per set of criteria).
"""

from __future__ import annotations

from collections.abc import Sequence
import sys

from audeval._cli.messages import PROG
from audeval._cli.messages import PROGRESS_MIN_FILES
from audeval._cli.messages import PathError
from audeval._cli.messages import UsageError
from audeval._cli.messages import _progress_wanted
from audeval._cli.messages import check_output_path
from audeval._cli.messages import collect_warnings
from audeval._cli.messages import one_line
from audeval._cli.messages import phase
from audeval._cli.messages import write_text
from audeval._cli.parser import build_parser
from audeval._cli.parser import parse
from audeval._cli.render import render


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``audeval`` with the arguments ``argv`` (default: ``sys.argv[1:]``).

    Returns:
        exit code: 0 on success, 2 on bad input

    """
    from audeval._cli.commands import RUN

    argv = list(sys.argv[1:] if argv is None else argv)
    command = None
    try:
        parser = build_parser()
        try:
            args = parse(parser, argv)
        except SystemExit as exit:  # --help, --version
            return int(exit.code or 0)
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        command = args.command
        check_output_path(args.output, "--output")
        with collect_warnings():
            result = RUN[args.command](args)
        if isinstance(result, str):
            text = result
        else:
            long = max(result.n_rows(), len(result.combined)) > PROGRESS_MIN_ROWS
            with phase(args, "Formatting the table", long):
                text = render(result, args.format, args.decimals, args.all_columns)
        if args.output:
            write_text(args.output, "--output", text)
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    except UsageError as error:  # a bad command line: point to the subcommand's help
        text = one_line(error)
        if command is not None and "--help" not in text and not isinstance(error, PathError):
            text += f" (see '{PROG} {command} --help')"
        print(f"{PROG}: error: {text}", file=sys.stderr)
        return 2
    except (ValueError, TypeError, OSError) as error:
        print(f"{PROG}: error: {one_line(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    return 0


PROGRESS_MIN_ROWS = 2000
"""An output of more rows than this is formatted under a progress line
(pandas takes about 10 s for a table of 60k rows, 1 s for a CSV)."""


__all__ = ["PROGRESS_MIN_FILES", "build_parser", "main"]
