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
