"""The record of a statistics table (``table.attrs["audeval"]``) in the objects pandas derives from it.

pandas deep-copies ``attrs`` into every column, slice and copy of a table (:class:`audeval._core.protocol.Stamp`);
the record's copy keeps the family and equal options, with an options mapping of its own
(a derived table may change it without changing the table's)
and the option values shared (no function changes them in place).
"""

from __future__ import annotations

import copy
import pickle

import pandas as pd

import audeval
from audeval._core.protocol import ATTRS, Stamp, stamped, table_family, table_options


def _table():
    index = pd.MultiIndex.from_arrays(
        [["f1", "f1", "f2"], pd.to_timedelta([0.0, 2.0, 1.0], unit="s"), pd.to_timedelta([1.0, 3.0, 2.5], unit="s")],
        names=["file", "start", "end"],
    )
    truth = pd.Series(["a", "b", "a"], index=index)
    prediction = pd.Series(["a", "a", "a"], index=index)
    return audeval.event_statistics(truth, prediction, onset_tolerance=0.2, offset_tolerance=None)


def test_derived_objects_record_the_family_and_options():
    table = _table()
    record = table.attrs[ATTRS]
    assert record["family"] == "event"
    assert record["options"]["onset_tolerance"] == pd.Timedelta(0.2, unit="s")
    assert record["options"]["matching"] == "optimal"
    for derived in (table[table.columns[0]], table.iloc[:1], table.copy(), table.sort_index(), copy.deepcopy(table)):
        assert derived.attrs[ATTRS] == record
        assert derived.attrs[ATTRS] is not record
        assert derived.attrs[ATTRS]["options"] is not record["options"]
    assert table_family(table.iloc[:1]) == "event"
    assert table_options(table.copy()) == table_options(table)


def test_a_derived_table_changes_its_own_options_only():
    table = _table()
    derived = table.copy()
    derived.attrs[ATTRS]["options"]["matching"] = "greedy"
    assert table.attrs[ATTRS]["options"]["matching"] == "optimal"
    assert derived.attrs[ATTRS]["options"]["matching"] == "greedy"


def test_the_record_pickles_and_compares_as_a_dict():
    table = _table()
    back = pickle.loads(pickle.dumps(table))
    pd.testing.assert_frame_equal(back, table)
    assert back.attrs == table.attrs
    assert dict(table.attrs[ATTRS]) == {"family": "event", "options": dict(table.attrs[ATTRS]["options"])}
    assert repr(table.attrs[ATTRS]) == repr(dict(table.attrs[ATTRS]))


def test_a_changed_record_is_a_new_one_and_derived_tables_still_reduce():
    first = stamped("event", {"labels": ["a"]})
    second = stamped(first["family"], {**first["options"], "labels": ["a", "b"]})
    assert isinstance(first, Stamp)
    assert first["options"]["labels"] == ["a"]
    assert second["options"]["labels"] == ["a", "b"]
    options = {"labels": ["a"]}
    made = stamped("event", options)
    options["labels"] = ["z"]  # (the options mapping is taken as it is when stamped)
    assert made["options"]["labels"] == ["a"]
    table = _table()
    assert audeval.event_fscore(table.loc[["f1"]], None) == audeval.event_fscore(table.iloc[:2], None)
