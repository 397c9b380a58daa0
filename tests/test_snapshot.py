"""Guardrail: the public API and the label-family numbers equal the snapshot.

The snapshot (``tests/assets/snapshot/*.json``) was written by
``tests/assets/snapshot/make_snapshot.py`` from commit 4bb1e93,
before the family-protocol refactor.
An intended change is listed below with its reason; everything else must stay.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import importlib.util
import json
import math
import os

import pytest

HERE = os.path.join(os.path.dirname(__file__), "assets", "snapshot")

# qualified name (e.g. "audeval.event_fscore") -> why its signature changed
SIGNATURE_CHANGES: dict[str, str] = {}

# entry key (see ``make_snapshot.key``) or a function name (all its entries)
# -> why its result changed
OUTPUT_CHANGES: dict[str, str] = {
    # fnmatch patterns are allowed
    'event_statistics|random?|*"files_duration": true*': (
        "issue 18 item 17 / SPEC section 1: the file that is only in files_duration (r<seed>_empty.wav) is an evaluated file: a row of zeros per label"
    ),
    'segment_statistics|random?|*"files_duration": true*': (
        "issue 18 item 17 / SPEC section 1: the file that is only in files_duration (r<seed>_empty.wav) is an evaluated file: all true negatives (tn = its segments)"
    ),
    'segment_report|random?|*"files_duration": true*': (
        "issue 18 item 17 / SPEC section 1: the file that is only in files_duration (r<seed>_empty.wav) is an evaluated file: its true negatives count (accuracy, specificity; per-file block)"
    ),
    'segment_accuracy|random?|*"files_duration": true*': (
        "issue 18 item 17 / SPEC section 1: the file that is only in files_duration (r<seed>_empty.wav) is an evaluated file: its true negatives count"
    ),
    'detection_statistics|random?|*"files_duration": true*': (
        "issue 18 item 17 / SPEC section 1: the file that is only in files_duration (r<seed>_empty.wav) is an evaluated file: its duration is scored silence (true_negative); pyannote.metrics does the same with a uem over the file: DER/DetER unchanged (no speech), accuracy counts it"
    ),
    'detection_report|random?|*"files_duration": true*': (
        "issue 18 item 17 / SPEC section 1: the file that is only in files_duration (r<seed>_empty.wav) is an evaluated file: its duration is scored silence (a per-file row; true negatives in TOTAL)"
    ),
    'diarization_statistics|random?|*"files_duration": true*': (
        "issue 18 item 17 / SPEC section 1: the file that is only in files_duration (r<seed>_empty.wav) is an evaluated file: its duration is scored silence (a row of the empty reference/hypothesis)"
    ),
    'diarization_report|random?|*"files_duration": true*': (
        "issue 18 item 17 / SPEC section 1: the file that is only in files_duration (r<seed>_empty.wav) is an evaluated file: a per-file row with nothing to score (DER of 0/0); TOTAL unchanged"
    ),
    'segment_*|*|*"files_duration": false, "labels": "subset"*': (
        "issue 18 item 3: without files_duration a file's length is the latest end over all "
        "rows of both inputs, not only the rows of the labels selected, so true negatives "
        "(tn, accuracy, specificity) no longer change with the other labels selected"
    ),
    '*_report|*|*"per_file": true*': (
        "issue 16 item 6 / issue 18 item 11: one per-file report shape for the label families: "
        "a block of rows per file (labels, micro, macro) indexed by (file, label) and a last "
        "block TOTAL; event_report(per_file=True) gave one pooled row per file, "
        "segment_report(per_file=True) had no TOTAL block"
    ),
    'event_fscore|random2|*"labels": null*': (
        "issue 18 item 16 / SPEC section 1: a category of a categorical input that occurs in "
        "neither input (random2 has one) is left out of macro averages, with a warning, "
        "unless labels are given; it counted as F = zero_division before"
    ),
    'event_report|random2|*"labels": null*': (
        "issue 18 item 16 / SPEC section 1: a category of a categorical input that occurs in "
        "neither input (random2 has one) is left out of macro averages, with a warning, "
        "unless labels are given; it counted as F = zero_division before"
    ),
    "event_statistics": (
        "issue 32 item 1: event tables hold only the (file, label) pairs that occur "
        "(a file without events keeps one row of zeros with the first label; the labels are "
        "the categories of the label level), so they have fewer rows; the whole grid is "
        "event_statistics(..., dense=True), which test_event_statistics_dense_view checks "
        "against every stored entry"
    ),
    'segment_fscore|random2|*"labels": null*': (
        "issue 18 item 16 / SPEC section 1: a category of a categorical input that occurs in "
        "neither input (random2 has one) is left out of macro averages, with a warning, "
        "unless labels are given; it counted as F = zero_division before"
    ),
    'segment_report|random2|*"labels": null*': (
        "issue 18 item 16 / SPEC section 1: a category of a categorical input that occurs in "
        "neither input (random2 has one) is left out of macro averages, with a warning, "
        "unless labels are given; it counted as F = zero_division before"
    ),
}

RTOL = 1e-12
ATOL = 1e-14  # only absorbs a 0 that became a rounding residue (or back)


def _load_generator():
    spec = importlib.util.spec_from_file_location(
        "audeval_make_snapshot", os.path.join(HERE, "make_snapshot.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


snapshot = _load_generator()


@functools.lru_cache(maxsize=1)
def _stored() -> dict:
    with open(snapshot.OUTPUTS) as fp:
        return json.load(fp)


@functools.lru_cache(maxsize=None)
def _case(name: str) -> dict:
    return snapshot.build_case(_stored()["cases"][name])


def _functions() -> list[str]:
    return sorted({entry["function"] for entry in _stored()["entries"].values()})


def _changed(key: str, function: str) -> bool:
    return any(fnmatch.fnmatchcase(key, p) or p == function for p in OUTPUT_CHANGES)


def _is_float(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)) or (
        isinstance(value, dict) and set(value) == {"float"}
    )


def _as_float(value) -> float:
    return float(value["float"]) if isinstance(value, dict) else float(value)


def _stored_columns(expected, actual):
    """``actual`` DataFrame encoding restricted to the columns of ``expected``.

    A new column (e.g. a new report column) is an addition, like a new public
    name, and is fine; a removed column stays a difference.
    """
    if not (
        isinstance(expected, dict)
        and isinstance(actual, dict)
        and expected.get("type") == actual.get("type") == "DataFrame"
    ):
        return actual
    position = {c: i for i, c in enumerate(actual["columns"])}
    keep = [position[c] for c in expected["columns"] if c in position]
    if len(keep) < len(expected["columns"]):
        return actual  # a column is missing: report the whole difference
    return {
        **actual,
        "columns": [actual["columns"][i] for i in keep],
        "kinds": [actual["kinds"][i] for i in keep],
        "data": [[row[i] for i in keep] for row in actual["data"]],
    }


def _compare(expected, actual, where: str, out: list[str]) -> None:
    """Append a description of every difference of two encoded results to ``out``."""
    actual = _stored_columns(expected, actual)
    if _is_float(expected) and _is_float(actual):
        if isinstance(expected, int) and isinstance(actual, int):
            if expected != actual:
                out.append(f"{where}: {actual} != {expected}")
            return
        e, a = _as_float(expected), _as_float(actual)
        same = (math.isnan(e) and math.isnan(a)) or e == a
        if not same and math.isfinite(e) and math.isfinite(a):
            same = abs(a - e) <= ATOL + RTOL * abs(e)
        if not same:
            out.append(f"{where}: {a!r} != {e!r}")
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        if set(expected) != set(actual):
            out.append(f"{where}: fields {sorted(actual)} != {sorted(expected)}")
            return
        for field in expected:
            _compare(expected[field], actual[field], f"{where}.{field}", out)
        return
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            out.append(f"{where}: length {len(actual)} != {len(expected)}: {actual!r:.200}")
            return
        for i, (e, a) in enumerate(zip(expected, actual)):
            _compare(e, a, f"{where}[{i}]", out)
        return
    if type(expected) is not type(actual) or expected != actual:
        out.append(f"{where}: {actual!r:.200} != {expected!r:.200}")


def _parameters(signature: str) -> list[tuple[str, str, str | None]]:
    """(name, kind, default) of every parameter of a signature string; annotations ignored."""
    if not signature.startswith("("):
        return [("", signature, None)]
    head = signature.rsplit(") ->", 1)[0] + ")" if ") ->" in signature else signature
    tree = ast.parse(f"def f{head}: pass").body[0].args
    out = []
    positional = [*tree.posonlyargs, *tree.args]
    defaults = [None] * (len(positional) - len(tree.defaults)) + list(tree.defaults)
    for arg, default in zip(positional, defaults):
        out.append((arg.arg, "positional", None if default is None else ast.dump(default)))
    if tree.vararg:
        out.append((tree.vararg.arg, "*args", None))
    for arg, default in zip(tree.kwonlyargs, tree.kw_defaults):
        out.append((arg.arg, "keyword", None if default is None else ast.dump(default)))
    if tree.kwarg:
        out.append((tree.kwarg.arg, "**kwargs", None))
    return out


def _compatible(before: str, after: str) -> bool:
    """Code written against ``before`` still runs: same parameters in the same order
    with the same defaults; new parameters only keyword-only with a default.
    Type annotations may widen."""
    old, new = _parameters(before), _parameters(after)
    if not old or not new or old[0][0] == "":
        return before == after
    new_named = {name: (kind, default) for name, kind, default in new}
    if [p for p in new if p[0] in {o[0] for o in old}] != old:
        return False
    added = [p for p in new if p[0] not in {o[0] for o in old}]
    return all(kind == "keyword" and default is not None for _, kind, default in added) and bool(new_named)


def test_compatible_signatures():
    assert _compatible("(a, b=1, *, c=2) -> 'float'", "(a: 'x', b=1, *, c=2, d=None) -> 'float'")
    assert not _compatible("(a, b=1, *, c=2)", "(a, b=2, *, c=2)")
    assert not _compatible("(a, b=1)", "(a, *, b=1)")
    assert not _compatible("(a, *, c=2)", "(a, *, c=2, d)")


def _as_series_if_was(expected, actual):
    """Per-class results became dicts (issue 16 item 6): compare a dict with the stored
    Series by its labels and values (the values must be unchanged)."""
    if (
        isinstance(expected, dict)
        and expected.get("type") == "Series"
        and isinstance(actual, dict)
        and actual.get("type") == "dict"
    ):
        return {
            **expected,
            "index": [str(k) for k, _ in actual["items"]],
            "data": [v for _, v in actual["items"]],
        }
    return actual


def test_compare_helper():
    out = []
    _compare({"float": "nan"}, {"float": "nan"}, "a", out)
    _compare(0.5, 0.5 * (1 + 1e-14), "b", out)
    _compare(0.0, 1e-17, "c", out)
    _compare([1, "x", True], [1, "x", True], "d", out)
    assert out == []
    _compare(0.5, 0.5 * (1 + 1e-9), "e", out)
    _compare({"float": "nan"}, 0.0, "f", out)
    _compare(3, 4, "g", out)
    _compare(True, 1, "h", out)
    _compare([1, 2], [1], "i", out)
    _compare({"error": "ValueError"}, 0.5, "j", out)
    frame = {"type": "DataFrame", "index": ["a"], "columns": ["x"], "kinds": ["f"]}
    wider = {**frame, "columns": ["y", "x"], "kinds": ["i", "f"], "data": [[1, 0.5]]}
    _compare({**frame, "data": [[0.5]]}, wider, "k", out)  # a new column is fine
    _compare({**frame, "data": [[0.25]]}, wider, "l", out)
    _compare({**frame, "columns": ["z"], "data": [[0.5]]}, wider, "m", out)
    heads = [line.split(":")[0] for line in out]
    assert heads[:7] == ["e", "f", "g", "h", "i", "j", "l.data[0][0]"]
    assert heads[7] == "m.columns" and all(h.startswith("m.") for h in heads[7:])


def test_signatures():
    with open(snapshot.SIGNATURES) as fp:
        stored = json.load(fp)
    current = snapshot.signatures()
    problems = []
    for name, signature in stored.items():
        if name in SIGNATURE_CHANGES:
            continue
        if name not in current:
            problems.append(f"{name}: removed from the public API")
        elif current[name] != signature and not _compatible(signature, current[name]):
            problems.append(f"{name}: {current[name]} != {signature}")
    assert not problems, "\n".join(problems)


def test_changes_name_known_entries():
    with open(snapshot.SIGNATURES) as fp:
        names = set(json.load(fp))
    assert set(SIGNATURE_CHANGES) <= names
    entries = _stored()["entries"]
    functions = set(_functions())
    unknown = [
        k
        for k in OUTPUT_CHANGES
        if k not in functions and not any(fnmatch.fnmatchcase(e, k) for e in entries)
    ]
    assert not unknown


def test_grid_matches_snapshot():
    """The stored entries are what the generator's grid asks for."""
    keys = [snapshot.key(name, case, options) for name, case, options in snapshot.grid()]
    assert keys == list(_stored()["entries"])


@pytest.mark.parametrize("function", _functions())
def test_outputs(function):
    problems = []
    for key, entry in _stored()["entries"].items():
        if entry["function"] != function or _changed(key, function):
            continue
        data = _case(entry["case"]) if entry["case"] else None
        actual = snapshot.outcome(function, entry["options"], data)
        # round trip through JSON, as the stored result did
        actual = json.loads(json.dumps(actual))
        actual = _as_series_if_was(entry["result"], actual)
        found = []
        _compare(entry["result"], actual, "result", found)
        problems += [f"{key}\n    {line}" for line in found[:3]]
    assert not problems, f"{len(problems)} difference(s):\n" + "\n".join(problems[:10])


def test_event_statistics_dense_view(monkeypatch):
    """``event_statistics(dense=True)`` (the grid) gives every stored table (issue 32 item 1)."""
    import functools

    import audeval

    dense = functools.partial(audeval.event_statistics, dense=True)
    monkeypatch.setattr(audeval, "event_statistics", dense)
    problems = []
    checked = 0
    for key, entry in _stored()["entries"].items():
        other_changes = [p for p in OUTPUT_CHANGES if p != "event_statistics"]
        if entry["function"] != "event_statistics" or any(fnmatch.fnmatchcase(key, p) for p in other_changes):
            continue
        checked += 1
        data = _case(entry["case"]) if entry["case"] else None
        actual = json.loads(json.dumps(snapshot.outcome("event_statistics", entry["options"], data)))
        found = []
        _compare(entry["result"], actual, "result", found)
        problems += [f"{key}\n    {line}" for line in found[:3]]
    assert checked > 10
    assert not problems, f"{len(problems)} difference(s):\n" + "\n".join(problems[:10])
