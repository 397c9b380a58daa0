"""Messages of the command line: one-line errors, warnings, progress bars."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import contextlib
import sys
import warnings


PROG = "audeval"
MAX_FILES_SHOWN = 5
PROGRESS_MIN_FILES = 10


class UsageError(Exception):
    """Bad command line: reported in one line, exit code 2."""


class PathError(UsageError):
    """A path given to an option that cannot be read or written (no pointer to the help)."""


def one_line(error: BaseException) -> str:
    """An exception message as one line (multi-line messages are joined)."""
    text = str(error)
    if isinstance(error, KeyError) and len(error.args) == 1:
        text = str(error.args[0])
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    text = " ".join(lines) if lines else type(error).__name__
    text = cli_spelling(" ".join(text.split()))
    return text if len(text) <= 400 else text[:397] + "..."


# the API's advice in a message, as the command line spells it
CLI_SPELLING = (
    ("pass labels=[...] to include them", "pass --labels A,B,... to include them"),
    ("use length_mismatch='pad_or_truncate'", "use --length-mismatch pad_or_truncate"),
)


def cli_spelling(text: str) -> str:
    """``text`` with the API's advice (``labels=[...]``) in the CLI's option spelling."""
    for api, cli in CLI_SPELLING:
        text = text.replace(api, cli)
    return text


def check_output_path(path: str | None, option: str) -> None:
    """An output path whose folder exists, or a one-line error naming the option and the path.

    Checked before any work, so that a typo does not cost a long evaluation.
    """
    if path is None:
        return
    import os

    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise PathError(f"{option} {path}: is a folder; give a file name")
    if not os.path.isdir(folder):
        raise PathError(f"{option} {path}: the folder {folder} does not exist")


def check_input_file(path: str | None, option: str) -> None:
    """An existing file for ``option``, or a one-line error naming the option and the path."""
    if path is None:
        return
    import os

    if os.path.isdir(path):
        raise PathError(f"{option} {path}: is a folder, expected a file")
    if not os.path.isfile(path):
        raise PathError(f"{option} {path}: no such file")


def write_text(path: str, option: str, text: str) -> None:
    """Write ``text`` to ``path``; an error names the option and the path in one line."""
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as fp:
            fp.write(text)
    except OSError as error:
        raise PathError(f"{option} {path}: cannot write ({error.strerror or one_line(error)})") from None


def warn(message: str) -> None:
    """``audeval: warning: ...`` on stderr."""
    print(f"{PROG}: warning: {message}", file=sys.stderr)


def show_files(files: Sequence) -> str:
    """The first few files, and how many there are."""
    shown = ", ".join(str(f) for f in list(files)[:MAX_FILES_SHOWN])
    return shown + (f", ... ({len(files)} in all)" if len(files) > MAX_FILES_SHOWN else "")


def _progress_wanted(args: argparse.Namespace) -> bool:
    """The rule: progress bars on a terminal, unless ``--no-progress``."""
    return not getattr(args, "no_progress", False) and sys.stderr.isatty()


def progress_wanted(args: argparse.Namespace) -> bool:
    """Whether to show progress bars.

    Looks up :func:`_progress_wanted` of this module at each call,
    so that the rule can be replaced in one place (the tests do).
    """
    return _progress_wanted(args)


def progress(items: list, args: argparse.Namespace, desc: str):
    """``items``, wrapped in a progress bar when wanted and there are many."""
    if progress_wanted(args) and len(items) > PROGRESS_MIN_FILES:
        import audeer

        return audeer.progress_bar(items, desc=desc)
    return items


@contextlib.contextmanager
def collect_warnings():
    """Show the user warnings of the block as one line each, once."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    shown = set()
    for warning in caught:
        if issubclass(warning.category, UserWarning):  # not deprecations of dependencies
            text = one_line(warning.message)
            if text not in shown:
                shown.add(text)
                warn(text)


TICK_SECONDS = 0.5
"""How often the bar of a :func:`phase` redraws its elapsed time."""


@contextlib.contextmanager
def phase(args: argparse.Namespace, desc: str, many: bool):
    """A progress line over one long step of work (reading a file, scoring) with no loop to count.

    Shown when progress bars are wanted and the step is ``many`` files (or rows) long.
    The step has no count to show, so the line shows the time elapsed,
    redrawn every :data:`TICK_SECONDS` by a thread while the block runs
    (a bar at ``0%`` would look frozen).
    """
    if not many or not progress_wanted(args):
        yield
        return
    import threading

    import audeer

    bar = audeer.progress_bar(total=None, desc=desc)
    bar.bar_format = "[{elapsed} elapsed] {desc}"  # audeer's layout, without a count
    with contextlib.suppress(Exception):
        bar.refresh(nolock=True)
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(TICK_SECONDS):
            try:
                # without tqdm's lock: an error in tqdm's refresh would leave it held
                # (and close() would wait forever); nothing else draws this bar meanwhile
                bar.refresh(nolock=True)
            except Exception:  # e.g. stderr closed: stop drawing, never stop the work
                return

    thread = threading.Thread(target=tick, name=f"audeval progress: {desc}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        bar.close()
