"""The stamp of a statistics table (``table.attrs["audeval"]``): read-only, shared by pandas' copies.

pandas deep-copies ``attrs`` on every operation (each column taken, each selection);
a stamp's deep copy is the stamp itself, so the options are not copied each time,
and a changed stamp is a new one (the tables made before keep theirs).
"""

import copy
import pickle

import pandas as pd

import audeval
from audeval._core.protocol import Stamp, stamped


def tables(make_series):
    truth = make_series([("f1", 0.0, 1.0, "a"), ("f2", 0.0, 2.0, "b")])
    prediction = make_series([("f1", 0.0, 1.0, "a"), ("f2", 0.5, 2.0, "a")])
    return audeval.event_statistics(truth, prediction, onset_tolerance=0.25, offset_tolerance=None)


def test_selections_share_the_stamp(make_series):
    stats = tables(make_series)
    meta = stats.attrs["audeval"]
    assert isinstance(meta, Stamp)
    assert meta == {"family": "event", "options": meta["options"]}
    assert meta["options"]["onset_tolerance"] == pd.Timedelta(0.25, unit="s")
    for derived in (stats[list(stats.columns[:2])], stats.loc[["f1"]], stats.iloc[:1], stats.copy(deep=True)):
        assert derived.attrs["audeval"] is meta
    assert copy.deepcopy(stats.attrs) == stats.attrs
    assert audeval.event_fscore(stats.loc[["f1"]], None) == 1.0


def test_a_changed_stamp_is_a_new_one():
    first = stamped("event", {"labels": ["a"]})
    second = stamped(first["family"], {**first["options"], "labels": ["a", "b"]})
    assert first["options"]["labels"] == ["a"]
    assert second["options"]["labels"] == ["a", "b"]
    options = {"labels": ["a"]}
    made = stamped("event", options)
    options["labels"] = ["z"]  # (the options are taken as they are when stamped)
    assert made["options"]["labels"] == ["a"]


def test_a_stamp_survives_pickle(make_series):
    stats = tables(make_series)
    again = pickle.loads(pickle.dumps(stats))
    assert again.attrs == stats.attrs
    pd.testing.assert_frame_equal(again, stats)
    assert audeval.event_fscore(again, None) == audeval.event_fscore(stats, None)
