"""segment_activity: the runs behind segment_statistics (issue 31 item 5: the segment plot's outcome object)."""

from __future__ import annotations

import audformat
import numpy as np
import pandas as pd
import pytest
from test_contract import LABELS

import audeval


def _sums(activity: pd.DataFrame, exact: bool) -> pd.DataFrame:
    frame = activity.reset_index()
    frame["count"] = frame["count"].dt.total_seconds() if exact else frame["count"]
    sums = frame.pivot_table(index=["file", "label"], columns="outcome", values="count", aggfunc="sum", observed=False)
    return sums.fillna(0)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"time_resolution": 0.1},
        {"time_resolution": 0.25, "compat": "sed_eval"},
        {"time_resolution": None},
        {"time_resolution": 1.0, "gap_label": "-"},
        {"files_duration": {f"f{i}": 12.0 for i in range(6)}},
    ],
)
def test_runs_add_up_to_the_statistics(options):
    truth, prediction = LABELS
    exact = "time_resolution" in options and options["time_resolution"] is None
    activity = audeval.segment_activity(truth, prediction, **options)
    stats = audeval.segment_statistics(truth, prediction, **options)
    sums = _sums(activity, exact)
    for outcome in ("tp", "fn", "fp"):
        expected = stats[outcome]
        expected = expected.dt.total_seconds() if exact else expected
        actual = sums[outcome].reindex(expected.index, fill_value=0)
        np.testing.assert_allclose(actual.to_numpy(dtype=float), expected.to_numpy(dtype=float), atol=1e-9)
    assert (activity["count"] > (pd.Timedelta(0) if exact else 0)).all()


def test_hand_computed_runs():
    truth = pd.Series(["a", "b"], index=audformat.segmented_index(["f", "f"], [0, 2.5], [2, 4]))
    prediction = pd.Series(["a"], index=audformat.segmented_index(["f"], [1], [3]))
    activity = audeval.segment_activity(truth, prediction)
    rows = [(str(label), str(outcome), int(count)) for label, outcome, count in activity.itertuples(index=False)]
    # a: truth [0, 2) fn at 0, tp at 1; prediction [1, 3) fp at 2; b: truth [2.5, 4) -> segments 2, 3 fn
    assert rows == [("a", "fn", 1), ("a", "tp", 1), ("a", "fp", 1), ("b", "fn", 2)]
    starts = activity.index.get_level_values("start").total_seconds().tolist()
    assert starts == [0.0, 1.0, 2.0, 2.0]


def test_options_are_checked_once_by_the_declaration():
    truth, prediction = LABELS
    with pytest.raises(ValueError, match="time_resolution"):
        audeval.segment_activity(truth, prediction, time_resolution=-1)
    assert audeval.segment_activity.declared.family.family == "segment"
