import gc
import io
import os

import audformat
import pandas as pd
import pytest


def series(rows, *, categories=None, unit=None) -> pd.Series:
    """Series from (file, start, end, label) rows with times in seconds (end may be None)."""
    files = [r[0] for r in rows]
    starts = [r[1] for r in rows]
    ends = [pd.NaT if r[2] is None else r[2] for r in rows]
    labels = [r[3] for r in rows]
    index = audformat.segmented_index(files, starts, ends)
    if unit is not None:
        index = index.set_levels(
            [index.levels[1].as_unit(unit), index.levels[2].as_unit(unit)], level=[1, 2]
        )
    if categories is not None:
        labels = pd.Categorical(labels, categories=categories)
    elif not rows:
        labels = pd.Series([], dtype="string")
    return pd.Series(labels, index=index)


@pytest.fixture
def make_series():
    return series


# -------------------------------------------------------------------------
# Warnings a test may meet by design
# -------------------------------------------------------------------------
# The suite turns every warning into an error (pyproject.toml).
# A test whose warning is certain says so with ``pytest.warns``;
# a property or golden test whose random or reference inputs may or may not
# produce one of audeval's documented input warnings says so with one of these marks.

MAY_WARN_ABSENT_LABELS = pytest.mark.filterwarnings(
    "ignore:labels .* occur in neither truth nor prediction"
)
"""A label given or categorised occurs in neither input (random labels)."""

MAY_WARN_DUPLICATES = pytest.mark.filterwarnings("ignore:.*repeat an identical row")
"""Random events may repeat an identical row."""

MAY_WARN_BEYOND_DURATION = pytest.mark.filterwarnings("ignore:.*has rows beyond the duration")
"""Random events may end after a given file duration."""

MAY_WARN_UNKNOWN_DURATION = pytest.mark.filterwarnings("ignore:files_duration is not known")
"""A given files_duration may miss files of random inputs."""


try:  # a quick profile for local iteration: ``pytest --hypothesis-profile=quick``
    from hypothesis import Phase, settings

    settings.register_profile(
        "quick", max_examples=10, phases=[Phase.explicit, Phase.reuse, Phase.generate]
    )
except ImportError:  # pragma: no cover
    pass

MAY_WARN_NO_SHARED_FILE = pytest.mark.filterwarnings("ignore::audeval.NoSharedFileWarning")
"""Random inputs may give truth and prediction without a common file."""

MAY_WARN_FILES_WITHOUT_ROWS = pytest.mark.filterwarnings("ignore::audeval.FilesWithoutRowsWarning")
"""files_duration names files without rows on purpose (reference data, silent files)."""

MAY_WARN_GENERATED_FILES = pytest.mark.filterwarnings(
    "ignore::audeval.NoSharedFileWarning", "ignore::audeval.FilesWithoutRowsWarning"
)
"""Generated files: truth and prediction may share no file, durations may name files without rows."""

try:  # CI must not depend on the examples a run happens to draw: a fixed seed per test
    from hypothesis import settings as _settings

    _settings.register_profile("deterministic", derandomize=True)
    _settings.load_profile("deterministic")
except ImportError:  # pragma: no cover
    pass


# -------------------------------------------------------------------------
# The command line, called in-process
# -------------------------------------------------------------------------


def write(path, text: str) -> str:
    """Write ``text`` to ``path`` (folders made), return the path as a string."""
    path = os.fspath(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as fp:
        fp.write(text)
    return path


def run(capsys, *argv) -> tuple[int, str, str]:
    """``audeval ARGV``: exit code, standard output and standard error."""
    from audeval._cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_csv(capsys, *argv) -> pd.DataFrame:
    """``audeval ARGV --format csv`` as a DataFrame (the command must succeed)."""
    code, out, err = run(capsys, *argv, "--format", "csv")
    assert code == 0, err
    return pd.read_csv(io.StringIO(out), keep_default_na=False, na_values=[""])


@pytest.fixture
def dask_sync():
    """dask's synchronous scheduler for the test (the numbers do not depend on the scheduler;
    tests/test_dask.py runs them on a distributed cluster)."""
    try:
        import dask
    except ImportError:  # pragma: no cover
        yield
        return
    with dask.config.set(scheduler="sync"):
        yield


# -------------------------------------------------------------------------
# Garbage collection (CPU time of the suite)
# -------------------------------------------------------------------------
# A full collection walks every object alive. The imported modules, the collected test
# parameters and the caches filled by a test file live on after it: once a file's tests
# and fixtures are done, what survives a collection waits in the permanent generation
# (``gc.freeze``), so the collections during the next file walk only the objects it makes.
# Full collections also come 10 times less often (after 100 collections of the middle
# generation, not 10): young objects are collected as often as before, and each file ends
# with a full collection.


def _freeze():
    gc.collect()
    gc.freeze()


def pytest_collection_finish(session):
    young, middle, old = gc.get_threshold()
    gc.set_threshold(young, middle, old * 10)
    _freeze()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    result = yield
    if nextitem is None or nextitem.path != item.path:
        _freeze()
    return result
