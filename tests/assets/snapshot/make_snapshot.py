"""Guardrail snapshot of audeval's public API and of its label-family outputs.

Written before the family-protocol refactor, so that ``tests/test_snapshot.py``
can prove that the refactor changed no signature and no number
(or lists each intended change in ``SIGNATURE_CHANGES`` / ``OUTPUT_CHANGES``).

Run it with the package version to snapshot on the path
(no extra environment is needed; the shared venv has everything)::

    PYTHONPATH=<checkout> /work/venv/bin/python tests/assets/snapshot/make_snapshot.py

It writes next to this script:

* ``signatures.json``: ``str(inspect.signature(obj))`` of every public
  function and class of ``audeval``, ``audeval.separation`` and
  ``audeval.plot`` (and of the public methods of the classes);
* ``outputs.json``: the input cases (as rows of integer nanoseconds, so the
  test rebuilds exactly the same Series without any random generator)
  and, for every call of the grid, the function, case, options and the
  encoded result (or the name of the exception it raised).

Floats are stored exactly: finite ones as JSON numbers (``json`` writes
``repr``, which round-trips), NaN and infinities as tagged strings.
DataFrames are stored with ``to_dict(orient="split")``, index labels and
column labels as strings, plus the kind of each column's dtype.

The test imports this module (via importlib) for :data:`CASES`,
:func:`grid`, :func:`build_case`, :func:`call` and :func:`encode`,
so generator and test share one definition of the grid.
"""

from __future__ import annotations

import inspect
import json
import math
import os
import warnings

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
SIGNATURES = os.path.join(HERE, "signatures.json")
OUTPUTS = os.path.join(HERE, "outputs.json")
NS = 1_000_000_000

# -------------------------------------------------------------------------
# Input cases
# -------------------------------------------------------------------------

LABEL_CASES = ("example", "random0", "random1", "random2")
STRUCTURE_CASES = ("partition0", "partition1", "partition2")
CASES = LABEL_CASES + STRUCTURE_CASES


def _rows(series: pd.Series) -> list[list]:
    """(file, start_ns, end_ns, label) rows of a segmented Series."""
    files = series.index.get_level_values("file").astype(str)
    starts = series.index.get_level_values("start").as_unit("ns").asi8
    ends = series.index.get_level_values("end").as_unit("ns").asi8
    labels = series.astype(object).tolist()
    return [
        [str(f), int(s), int(e), lab]
        for f, s, e, lab in zip(files, starts, ends, labels)
    ]


def _random_events(seed: int) -> dict:
    """A few files, 2-4 labels, overlapping events; prediction = perturbed truth."""
    rng = np.random.default_rng(seed)
    n_labels = 2 + seed % 3
    labels = ["alarm", "bird", "car", "dog"][:n_labels]
    n_files = 3 + seed % 2
    files = [f"r{seed}_{i}.wav" for i in range(n_files)]
    duration_ms = 20_000
    truth, prediction = [], []
    # the last file has no truth events (only false alarms), one more file
    # only exists in files_duration (true negatives only)
    for i, file in enumerate(files):
        n = int(rng.integers(3, 9))
        for _ in range(n):
            onset = int(rng.integers(0, duration_ms - 600)) // 10 * 10
            length = int(rng.integers(200, 5000)) // 10 * 10
            offset = min(onset + length, duration_ms)
            label = labels[int(rng.integers(0, n_labels))]
            if i < n_files - 1:
                truth.append([file, onset, offset, label])
            fate = rng.random()
            if fate < 0.15:
                continue  # missed
            if fate < 0.3:
                label = labels[int(rng.integers(0, n_labels))]  # maybe substituted
            shift_on = int(rng.integers(-400, 401)) // 10 * 10
            shift_off = int(rng.integers(-400, 401)) // 10 * 10
            p_on = max(0, onset + shift_on)
            p_off = min(duration_ms, max(p_on + 50, offset + shift_off))
            prediction.append([file, p_on, p_off, label])
        if rng.random() < 0.7:  # an insertion
            onset = int(rng.integers(0, duration_ms - 1000)) // 10 * 10
            label = labels[int(rng.integers(0, n_labels))]
            prediction.append([file, onset, onset + 700, label])
    ms = 1_000_000
    truth = [[f, s * ms, e * ms, lab] for f, s, e, lab in _unique(truth)]
    prediction = [[f, s * ms, e * ms, lab] for f, s, e, lab in _unique(prediction)]
    durations = {f: duration_ms * ms for f in files + [f"r{seed}_empty.wav"]}
    categories = None
    if seed == 2:  # categorical labels with a category that never occurs
        categories = labels + ["zebra"]
    return {
        "truth": truth,
        "prediction": prediction,
        "files_duration": durations,
        "categories": categories,
        "labels": labels,
    }


def _unique(rows: list[list]) -> list[list]:
    seen, out = set(), []
    for row in rows:
        if tuple(row) not in seen:
            seen.add(tuple(row))
            out.append(row)
    return out


def _random_partition(seed: int) -> dict:
    """Partitions of each file (one label at a time) for the structure metrics."""
    rng = np.random.default_rng(100 + seed)
    files = [f"p{seed}_{i}.wav" for i in range(2 + seed % 2)]
    duration_ms = 30_000
    truth, prediction, durations = [], [], {}
    ms = 1_000_000
    for file in files:
        n = int(rng.integers(3, 8))
        bounds = np.unique(rng.integers(1, duration_ms // 10, n) * 10)
        edges = [0, *bounds.tolist(), duration_ms]
        for s, e in zip(edges[:-1], edges[1:]):
            truth.append([file, s * ms, e * ms, "ABC"[int(rng.integers(0, 3))]])
        jitter = rng.integers(-80, 81, len(bounds)) * 10
        pbounds = np.unique(np.clip(bounds + jitter, 10, duration_ms - 10))
        if rng.random() < 0.8:  # an extra predicted boundary
            pbounds = np.unique([*pbounds.tolist(), int(rng.integers(1, duration_ms // 10)) * 10])
        pedges = [0, *pbounds.tolist(), duration_ms]
        for s, e in zip(pedges[:-1], pedges[1:]):
            prediction.append([file, s * ms, e * ms, "xy"[int(rng.integers(0, 2))]])
        durations[file] = duration_ms * ms
    return {
        "truth": truth,
        "prediction": prediction,
        "files_duration": durations,
        "categories": None,
        "labels": ["A", "B", "C"],
    }


def make_cases() -> dict:
    """The input cases as JSON-able rows (times in integer nanoseconds)."""
    import audeval

    truth, prediction, durations = audeval.example_data()
    cases = {
        "example": {
            "truth": _rows(truth),
            "prediction": _rows(prediction),
            "files_duration": {
                str(f): int(pd.Timedelta(d).value) for f, d in durations.items()
            },
            "categories": None,
            "labels": sorted(set(truth)),
        }
    }
    for seed in range(3):
        cases[f"random{seed}"] = _random_events(seed)
    for seed in range(3):
        cases[f"partition{seed}"] = _random_partition(seed)
    return cases


def _series(rows: list[list], categories) -> pd.Series:
    import audformat

    files = [r[0] for r in rows]
    starts = pd.to_timedelta([r[1] for r in rows], unit="ns")
    ends = pd.to_timedelta([r[2] for r in rows], unit="ns")
    index = audformat.segmented_index(files, starts, ends)
    labels = [r[3] for r in rows]
    if categories is not None:
        values = pd.Categorical(labels, categories=categories)
    else:
        values = pd.array(labels, dtype="object")
    return pd.Series(values, index=index, name="label")


def build_case(case: dict) -> dict:
    """Series and durations of one stored case."""
    durations = pd.Series(
        pd.to_timedelta(list(case["files_duration"].values()), unit="ns"),
        index=pd.Index(list(case["files_duration"]), name="file"),
        name="duration",
    )
    return {
        "truth": _series(case["truth"], case["categories"]),
        "prediction": _series(case["prediction"], case["categories"]),
        "files_duration": durations,
        "labels": case["labels"],
    }


# -------------------------------------------------------------------------
# The grid of calls
# -------------------------------------------------------------------------


def _product(**axes) -> list[dict]:
    combos = [{}]
    for name, values in axes.items():
        combos = [{**c, name: v} for c in combos for v in values]
    return combos


# (onset_tolerance, offset_tolerance, duration_tolerance)
TOLERANCES = [
    (0.0, 0.0, None),
    (0.2, 0.2, None),
    (0.2, None, None),
    (None, 0.2, None),
    (0.5, None, 0.5),
    (0.25, 0.3, 0.2),
]


def _event_options() -> list[dict]:
    out = []
    for onset, offset, dur in TOLERANCES:
        for matching in ("optimal", "greedy"):
            for labels in (None, "subset"):
                out.append(
                    {
                        "onset_tolerance": onset,
                        "offset_tolerance": offset,
                        "duration_tolerance": dur,
                        "matching": matching,
                        "labels": labels,
                    }
                )
    return out


def _with_duration(options: list[dict]) -> list[dict]:
    """Every option set with files_duration, the first ones also without."""
    out = [{**o, "files_duration": True} for o in options]
    out += [{**o, "files_duration": False} for o in options[:4]]
    return out


def _event_grid() -> list[tuple[str, dict]]:
    # every option set through the statistics and the micro F-score, every
    # other metric (a reduction of the same table) through a strided subset
    base = _with_duration(_event_options())
    calls = []
    for i, options in enumerate(base):
        calls.append(("event_statistics", options))
        calls.append(("event_fscore", {**options, "average": "micro"}))
        if i % 2 == 0:
            calls.append(("event_fscore", {**options, "average": "macro"}))
            calls.append(("event_error_rate", options))
            calls.append(("event_report", options))
        if i % 4 == 1:
            calls.append(("event_fscore_per_class", options))
            calls.append(("event_precision_per_class", options))
            calls.append(("event_recall_per_class", options))
            calls.append(("event_error_rate_per_class", options))
            calls.append(("event_unweighted_average_fscore", options))
            calls.append(("event_confusion_matrix", options))
    first = base[1]
    calls.append(("event_statistics", {**first, "confusion": True}))
    calls.append(("event_confusion_matrix", {**first, "normalize": True}))
    calls.append(("event_report", {**first, "per_file": True}))
    calls.append(("event_fscore", {**first, "average": "macro", "zero_division": 1.0}))
    calls.append(("event_fscore", {**first, "average": "macro", "propagate_nans": True}))
    calls.append(("event_error_rate", {**first, "zero_division": 1.0}))
    # metrics from a statistics table
    for options in base[1:8:2]:
        for name in (
            "event_fscore",
            "event_error_rate",
            "event_fscore_per_class",
            "event_error_rate_per_class",
            "event_report",
        ):
            calls.append((name, {**options, "path": "table"}))
    return calls


def _segment_grid() -> list[tuple[str, dict]]:
    base = _product(
        time_resolution=[1.0, 0.01, None],
        labels=[None, "subset"],
        compat=[None, "sed_eval"],
        files_duration=[True, False],
    )
    calls = []
    for i, options in enumerate(base):
        calls.append(("segment_statistics", options))
        calls.append(("segment_fscore", {**options, "average": "micro"}))
        if i % 3 == 0:
            calls.append(("segment_fscore", {**options, "average": "macro"}))
            calls.append(("segment_error_rate", options))
            calls.append(("segment_accuracy", options))
            calls.append(("segment_fscore_per_class", options))
            calls.append(("segment_precision_per_class", options))
            calls.append(("segment_recall_per_class", options))
            calls.append(("segment_error_rate_per_class", options))
            calls.append(("segment_report", options))
    first = base[0]
    calls.append(("segment_report", {**first, "per_file": True}))
    calls.append(("segment_fscore", {**first, "average": "macro", "zero_division": 1.0}))
    calls.append(("segment_fscore", {**first, "average": "macro", "propagate_nans": True}))
    for options in (base[0], base[3], base[9], base[10]):
        for name in ("segment_fscore", "segment_error_rate", "segment_accuracy", "segment_report"):
            calls.append((name, {**options, "path": "table"}))
    return calls


def _detection_grid() -> list[tuple[str, dict]]:
    base = _product(
        positive_labels=[None, "subset"],
        collar=[0.0, 0.25],
        skip_overlap=[False, True],
        files_duration=[True, False],
    )
    calls = []
    for options in base:
        calls.append(("detection_statistics", options))
        calls.append(("detection_error_rate", options))
        calls.append(("detection_report", options))
    calls.append(("detection_report", {**base[0], "beta": 0.5, "zero_division": 0.0}))
    for options in base[:4]:
        for name in ("detection_error_rate", "detection_report"):
            calls.append((name, {**options, "path": "table"}))
    return calls


def _diarization_grid() -> list[tuple[str, dict]]:
    base = _product(
        collar=[0.0, 0.25],
        skip_overlap=[False, True],
        files_duration=[True, False],
    )
    calls = []
    for options in base:
        calls.append(("diarization_statistics", options))
        calls.append(("identification_error_rate", options))
        for mapping in ("optimal", "greedy"):
            for individual in (True, False):
                more = {**options, "mapping": mapping, "individual_file_mapping": individual}
                calls.append(("diarization_error_rate", more))
                if individual or mapping == "optimal":
                    calls.append(("jaccard_error_rate", more))
                    calls.append(("diarization_report", more))
    for options in base[:4]:
        calls.append(("identification_error_rate", {**options, "path": "table"}))
        for name in ("diarization_error_rate", "jaccard_error_rate", "diarization_report"):
            calls.append((name, {**options, "path": "table"}))
    return calls


def _structure_grid() -> list[tuple[str, dict]]:
    calls = []
    for fd in (True, False):
        for compat in (None, "mir_eval"):
            common = {"files_duration": fd, "compat": compat}
            for frame_size in (0.1, None):
                frame = {**common, "frame_size": frame_size}
                calls.append(("rand_index", frame))
                calls.append(("adjusted_rand_index", frame))
                calls.append(("mutual_information", frame))
                for beta in (1.0, 0.5):
                    calls.append(("pairwise_clustering", {**frame, "beta": beta}))
                    calls.append(("v_measure", {**frame, "beta": beta}))
                    for marginal in (False, True):
                        calls.append(
                            (
                                "normalized_conditional_entropy",
                                {**frame, "beta": beta, "marginal": marginal},
                            )
                        )
            for trim in (False, True):
                calls.append(("boundary_deviation", {**common, "trim": trim}))
                for window in (0.5, 3.0):
                    for beta in (1.0, 0.5):
                        calls.append(
                            (
                                "boundary_detection",
                                {**common, "trim": trim, "window": window, "beta": beta},
                            )
                        )
                for frame_size in (0.1, None):
                    calls.append(
                        ("structure_report", {**common, "trim": trim, "frame_size": frame_size})
                    )
    calls.append(("structure_report", {"windows": [0.25, 1.0], "beta": 0.5}))
    return calls


def grid() -> list[tuple[str, str, dict]]:
    """Every (function, case, options) call of the snapshot."""
    label_calls = (
        _event_grid() + _segment_grid() + _detection_grid() + _diarization_grid()
    )
    out = [("example_data", "", {})]
    for case in LABEL_CASES:
        out += [(name, case, options) for name, options in label_calls]
    for case in STRUCTURE_CASES:
        out += [(name, case, options) for name, options in _structure_grid()]
    return out


def key(name: str, case: str, options: dict) -> str:
    """The stable key of one call."""
    return f"{name}|{case}|{json.dumps(options, sort_keys=True)}"


# -------------------------------------------------------------------------
# Calling
# -------------------------------------------------------------------------

STATISTICS = {
    "event": "event_statistics",
    "segment": "segment_statistics",
    "detection": "detection_statistics",
    "diarization": "diarization_statistics",
    "identification": "diarization_statistics",
    "jaccard": "diarization_statistics",
}
TABLE_OPTIONS = {
    "event_statistics": (
        "labels",
        "onset_tolerance",
        "offset_tolerance",
        "duration_tolerance",
        "matching",
        "files_duration",
    ),
    "segment_statistics": ("labels", "time_resolution", "compat", "files_duration"),
    "detection_statistics": ("positive_labels", "collar", "skip_overlap", "files_duration"),
    "diarization_statistics": ("collar", "skip_overlap", "files_duration"),
}


def _resolve(options: dict, data: dict) -> dict:
    """Keyword arguments from stored options (subset labels, durations)."""
    kwargs = {}
    for name, value in options.items():
        if name == "path":
            continue
        if name == "files_duration":
            if value:
                kwargs[name] = data["files_duration"]
        elif name in ("labels", "positive_labels") and value == "subset":
            kwargs[name] = data["labels"][:2]
        elif name == "windows":
            kwargs[name] = tuple(value)
        else:
            kwargs[name] = value
    return kwargs


def call(name: str, options: dict, data: dict | None):
    """Run one call of the grid with the installed audeval; return its result."""
    import audeval

    func = getattr(audeval, name)
    if data is None:
        return func()
    kwargs = _resolve(options, data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if options.get("path") != "table":
            return func(data["truth"], data["prediction"], **kwargs)
        statistics = STATISTICS[name.split("_")[0]]
        table_kwargs = {k: v for k, v in kwargs.items() if k in TABLE_OPTIONS[statistics]}
        rest = {k: v for k, v in kwargs.items() if k not in TABLE_OPTIONS[statistics]}
        table = getattr(audeval, statistics)(data["truth"], data["prediction"], **table_kwargs)
        return func(table, None, **rest)


def outcome(name: str, options: dict, data: dict | None):
    """Encoded result of a call, or ``{"error": <exception class name>}``."""
    try:
        return encode(call(name, options, data))
    except (ValueError, TypeError, KeyError) as error:
        return {"error": type(error).__name__}


# -------------------------------------------------------------------------
# Encoding
# -------------------------------------------------------------------------


def _float(value: float):
    value = float(value)
    if math.isfinite(value):
        return value
    return {"float": repr(value)}  # 'nan', 'inf', '-inf'


def _scalar(value):
    if value is None or isinstance(value, (bool, np.bool_)):
        return None if value is None else bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return _float(value)
    if isinstance(value, pd.Timedelta):
        return {"timedelta_ns": int(value.value)}
    if value is pd.NaT or (not isinstance(value, str) and pd.isna(value)):
        return {"float": "nan"}
    return str(value)


def _kind(dtype) -> str:
    if isinstance(dtype, pd.CategoricalDtype):
        return "category"
    if pd.api.types.is_string_dtype(dtype) or dtype == object:
        return "str"
    return np.dtype(dtype).kind


def encode(value):
    """JSON-able, exact encoding of a result."""
    if isinstance(value, pd.DataFrame):
        split = value.to_dict(orient="split")
        return {
            "type": "DataFrame",
            "index": [str(i) for i in split["index"]],
            "columns": [str(c) for c in split["columns"]],
            "kinds": [_kind(t) for t in value.dtypes],
            "data": [[_scalar(v) for v in row] for row in split["data"]],
        }
    if isinstance(value, pd.Series):
        return {
            "type": "Series",
            "name": None if value.name is None else str(value.name),
            "index": [str(i) for i in value.index],
            "kind": _kind(value.dtype),
            "data": [_scalar(v) for v in value.tolist()],
        }
    if isinstance(value, np.ndarray):
        return {"type": "ndarray", "items": [encode(v) for v in value.tolist()]}
    if isinstance(value, dict):
        return {"type": "dict", "items": [[_scalar(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return {"type": type(value).__name__, "items": [encode(v) for v in value]}
    return _scalar(value)


# -------------------------------------------------------------------------
# Signatures
# -------------------------------------------------------------------------


def _signature(obj) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "<no signature>"


def public_names(module) -> list[str]:
    """Public functions and classes of a module (``__all__`` where given)."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    out = []
    for name in names:
        obj = getattr(module, name)
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and getattr(
            obj, "__module__", ""
        ).startswith("audeval"):
            out.append(name)
    return sorted(out)


def signatures() -> dict[str, str]:
    """``{qualified name: signature}`` of the public API."""
    import audeval
    import audeval.plot
    import audeval.separation

    out = {}
    for module in (audeval, audeval.separation, audeval.plot):
        for name in public_names(module):
            obj = getattr(module, name)
            qualified = f"{module.__name__}.{name}"
            out[qualified] = _signature(obj)
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if not attr.startswith("_") and callable(member):
                        out[f"{qualified}.{attr}"] = _signature(member)
    return out


# -------------------------------------------------------------------------
# Main
# -------------------------------------------------------------------------


def main() -> None:
    import audeval

    print("audeval from", audeval.__file__)
    with open(SIGNATURES, "w") as fp:
        json.dump(signatures(), fp, indent=1, sort_keys=True)
        fp.write("\n")
    cases = make_cases()
    built = {name: build_case(case) for name, case in cases.items()}
    entries = {}
    for name, case, options in grid():
        entries[key(name, case, options)] = {
            "function": name,
            "case": case,
            "options": options,
            "result": outcome(name, options, built.get(case)),
        }
    with open(OUTPUTS, "w") as fp:
        json.dump({"cases": cases, "entries": entries}, fp, separators=(",", ":"))
        fp.write("\n")
    errors = sum(
        isinstance(e["result"], dict) and "error" in e["result"] for e in entries.values()
    )
    print(f"{len(entries)} entries ({errors} raise), {os.path.getsize(OUTPUTS)} bytes")


if __name__ == "__main__":
    main()
