"""The registry-driven contract (SPEC section 2): whichever path, the same number, or an error.

Every family in ``audeval._generic.registry.FAMILIES`` and every metric it declares
goes through every path with several options:

* direct: ``metric(truth, prediction, **options)``
* table: ``metric(statistics(truth, prediction, **statistics_options), None, **metric_options)``
* shards: the tables of disjoint sets of files summed with ``sum_statistics``
* ``Accumulator`` over batches of files
* ``bootstrap(...).value`` (the metric over all files)
* ``dask_statistics`` on a dask collection partitioned by file

and every path must give the direct call's value (1e-12),
or raise ``ValueError`` where a table cannot honour an option (``labels`` of a
metric that counts across labels). A new family must add its data to ``DATA``.
"""

from __future__ import annotations

import inspect
import math
import warnings

import audformat
import numpy as np
import pandas as pd
import pytest
from conftest import MAY_WARN_FILES_WITHOUT_ROWS

import audeval
from audeval._generic.registry import FAMILIES
from audeval._generic.registry import reduce, split_options

pytestmark = pytest.mark.usefixtures("dask_sync")  # the paths, not the schedulers (tests/test_dask.py)


FILES = [f"f{i}" for i in range(6)]
DURATION = 12.0
FILES_DURATION = {f: DURATION for f in FILES}


def _labels(seed: int, n: int, labels=("a", "b", "c")) -> pd.Series:
    rng = np.random.default_rng(seed)
    files = rng.choice(FILES, n)
    start = np.round(rng.uniform(0, DURATION - 2, n), 2)
    end = np.round(start + rng.uniform(0.05, 2, n), 2)
    index = audformat.segmented_index(files, start, end)
    return pd.Series(rng.choice(list(labels), n), index=index)


def _partition(seed: int, labels=("x", "y", "z")) -> pd.Series:
    """One label at a time, covering each file from 0 to DURATION (structure)."""
    rng = np.random.default_rng(seed)
    files, starts, ends, values = [], [], [], []
    for file in FILES:
        bounds = np.unique(np.round(rng.uniform(0, DURATION, 4), 1))
        edges = [0.0, *[b for b in bounds if 0 < b < DURATION], DURATION]
        for s, e in zip(edges[:-1], edges[1:]):
            files.append(file)
            starts.append(s)
            ends.append(e)
            values.append(rng.choice(list(labels)))
    return pd.Series(values, index=audformat.segmented_index(files, starts, ends))


def _levels(seed: int) -> pd.DataFrame:
    """A two-level hierarchy (sections, then phrases) covering each file (hierarchy)."""
    fine = _partition(seed, labels=("p", "q", "r", "s"))
    # sections change only where the phrases do (adjacent equal labels are one segment):
    # every section boundary is a phrase boundary (a consistent hierarchy, issue 29 item 5)
    files = fine.index.get_level_values("file")
    run = np.cumsum(np.r_[True, (fine.to_numpy()[1:] != fine.to_numpy()[:-1]) | (files[1:] != files[:-1])])
    coarse = np.where(run % 3 == 1, "A", "B")
    return pd.DataFrame({"sections": coarse, "phrases": fine.to_numpy()}, index=fine.index)


def _scores(seed: int, frame: float = 0.1) -> tuple[pd.Series, pd.DataFrame]:
    """Events without same-class overlap and a frame score table of classes a, b, c (scores)."""
    rng = np.random.default_rng(seed)
    n = int(DURATION / frame)
    starts = np.round(np.arange(n) * frame, 6)
    index = audformat.segmented_index(np.repeat(FILES, n), np.tile(starts, len(FILES)),
                                      np.tile(np.round(starts + frame, 6), len(FILES)))
    scores = pd.DataFrame(np.round(rng.uniform(0, 1, (len(index), 3)), 2), index=index, columns=list("abc"))
    rows = []
    for file in FILES:
        for label in "abc":
            edges = np.sort(rng.choice(np.arange(1, 12), 4, replace=False)).astype(float)
            rows += [(file, edges[0], edges[1], label), (file, edges[2], edges[3], label)]
    files, start, end, values = zip(*rows)
    truth = pd.Series(values, index=audformat.segmented_index(files, start, end))
    return truth, scores


LABELS = (_labels(1, 40), _labels(2, 40))
UEM = audformat.segmented_index(
    ["f0", "f0", "f1", "f2", "f3", "f4", "f5"],
    [0.5, 6.0, 1.0, 0.0, 2.5, 0.0, 3.0],
    [4.5, 11.0, 10.0, 12.0, 9.5, 6.0, 12.0],
)
"""Scored intervals of every file (several in f0), for the families that take ``uem``."""
RATERS = {"r1": _labels(5, 30), "r2": _labels(6, 30)}  # cohen_kappa takes two raters
DATA = {
    # family -> (truth, prediction, [statistics options], {metric: [metric options]}, labels)
    "event": (
        *LABELS,
        [
            dict(onset_tolerance=0.2, offset_tolerance=None),
            dict(onset_tolerance=0.2, offset_tolerance=0.2, duration_tolerance=0.5, matching="greedy"),
            dict(onset_tolerance=0.2, offset_tolerance=0.2, compat="sed_eval"),
        ],
        {"event_fscore": [{}, {"average": "macro"}], "event_report": [{}, {"per_file": True}]},
        ["c", "a"],
    ),
    "segment": (
        *LABELS,
        [
            dict(time_resolution=1.0),
            dict(time_resolution=None),
            dict(time_resolution=0.01, compat="sed_eval", files_duration=FILES_DURATION),
        ],
        {"segment_fscore": [{}, {"average": "macro"}], "segment_report": [{}, {"per_file": True}]},
        ["c", "a"],
    ),
    "detection": (
        *LABELS,
        [
            dict(files_duration=FILES_DURATION, collar=0.5),
            dict(files_duration=FILES_DURATION, skip_overlap=True),
            dict(files_duration=FILES_DURATION, uem=UEM, collar=0.5, collar_convention="per_side"),
            dict(files_duration=FILES_DURATION, positive_labels=["c", "a"]),
            dict(uem=UEM, positive_labels=["b"]),
        ],
        {},
        None,
    ),
    "diarization": (
        *LABELS,
        [
            dict(files_duration=FILES_DURATION),
            dict(files_duration=FILES_DURATION, collar=0.5, skip_overlap=True),
            dict(files_duration=FILES_DURATION, uem=UEM, collar=0.5, collar_convention="per_side"),
            dict(uem=UEM, compat="pyannote"),
        ],
        {"diarization_error_rate": [{}, {"mapping": "greedy"}]},
        None,
    ),
    "score": (
        *_scores(15),
        [dict(), dict(dtc_threshold=0.5, gtc_threshold=0.5), dict(criterion="collar"), dict(compat="sed_scores_eval")],
        {},
        None,
    ),
    "speaker_change": (
        _partition(13),
        _partition(14),
        [dict(tolerance=0.5), dict(tolerance=0.0, gap_tolerance=0.2)],
        {},
        None,
    ),
    "speaker_set": (
        *LABELS,
        [
            dict(files_duration=FILES_DURATION),
            dict(files_duration=FILES_DURATION, frame_size=0.01),
            dict(files_duration=FILES_DURATION, uem=UEM),
        ],
        {},
        None,
    ),
    "structure": (
        _partition(3),
        _partition(4),
        [dict(frame_size=None), dict(frame_size=0.1), dict(frame_size=0.1, compat="mir_eval")],
        {},
        None,
    ),
    "hierarchy": (
        _levels(8),
        _levels(9),
        [dict(frame_size=0.1), dict(frame_size=0.25, monotonic=True), dict(frame_size=0.1, compat="mir_eval")],
        {},
        None,
    ),
    "agreement": (
        RATERS,
        None,
        [dict(), dict(per_label=True, frame_size=0.5), dict(unrated="missing")],
        {"krippendorff_alpha": [{}, {"per_file": True}]},
        None,
    ),
}
NO_DASK = {"agreement", "hierarchy"}
# metrics that take other option sets than their family's (ROC curves are of segments or clips;
# PSD-ROC is intersection-based)
METRIC_OPTIONS = {
    "roc_curve": [dict(criterion="segment"), dict(criterion="segment", segment_length=0.5), dict(criterion="clip")],
    "auroc": [dict(criterion="segment"), dict(criterion="segment", segment_length=0.5), dict(criterion="clip")],
    "psds": [
        dict(),
        dict(dtc_threshold=0.5, gtc_threshold=0.5, cttc_threshold=0.3),
        dict(compat="sed_scores_eval", files_duration=FILES_DURATION),
    ],
    "psd_roc": [dict(), dict(dtc_threshold=0.5, gtc_threshold=0.5, cttc_threshold=0.3)],
    "pipsds": [
        dict(),
        dict(median_filter_lengths=[0.0, 1.5], dtc_threshold=0.5, gtc_threshold=0.5, cttc_threshold=0.3,
             alpha_ct=0.5, alpha_st=1.0),
        dict(median_filter_lengths=[0.3, 1.5], compat="sed_scores_eval", files_duration=FILES_DURATION),
    ],
    "pi_psd_roc": [dict(), dict(median_filter_lengths=[0.0, 1.5], dtc_threshold=0.5, gtc_threshold=0.5)],
}


def option_sets(name: str, metric) -> list[dict]:
    return METRIC_OPTIONS.get(metric.__name__, DATA[name][2])  # several raters / several levels are no pair of Series


def assert_same(actual, expected, what):
    if isinstance(expected, pd.DataFrame):
        pd.testing.assert_frame_equal(
            actual, expected, check_exact=False, rtol=1e-12, atol=1e-12, check_index_type=False, obj=what
        )
    elif isinstance(expected, pd.Series):
        pd.testing.assert_series_equal(actual, expected, check_exact=False, rtol=1e-12, atol=1e-12, obj=what)
    elif isinstance(expected, dict):
        assert list(actual) == list(expected), what
        for key in expected:
            assert_same(actual[key], expected[key], f"{what}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected), what
        for k, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, f"{what}[{k}]")
    else:
        a, e = float(actual), float(expected)
        if math.isnan(e):
            assert math.isnan(a), what
        else:
            assert a == pytest.approx(e, rel=1e-12, abs=1e-12), what


def cases():
    for name in sorted(FAMILIES):
        family = FAMILIES[name]
        if name not in DATA:
            continue
        truth, prediction, statistics_options, metric_options, labels = DATA[name]
        for metric in family.metrics:
            for options in option_sets(name, metric):
                for extra in metric_options.get(metric.__name__, [{}]):
                    yield pytest.param(name, metric, {**options, **extra}, id=f"{metric.__name__}-{options}-{extra}")


def test_every_family_has_contract_data():
    """A registered family without data here would escape the contract."""
    assert set(FAMILIES) <= set(DATA), f"add {sorted(set(FAMILIES) - set(DATA))} to DATA"


def _subset(data, files):
    """The rows of some files: of a Series, a DataFrame or a mapping rater -> Series."""
    if data is None:
        return None
    if isinstance(data, dict):
        return {key: _subset(value, files) for key, value in data.items()}
    keep = data.index.get_level_values("file").isin(list(files))
    return data[keep]


def _batch(options, files):
    """Statistics options of a shard: ``files_duration`` and ``uem`` of its own files only (SPEC section 1)."""
    options = dict(options)
    if options.get("files_duration") is not None:
        options["files_duration"] = {f: d for f, d in dict(options["files_duration"]).items() if f in set(files)}
    if options.get("uem") is not None:
        options["uem"] = options["uem"][options["uem"].get_level_values("file").isin(list(files))]
    return options


def _call(metric, truth, prediction, labels, options, family):
    if labels is not None and family.takes_labels:
        return metric(truth, prediction, labels, **options)
    return metric(truth, prediction, **options)


def frozen(value):
    """A hashable stand-in equal for equal option values (mappings, lists, indexes)."""
    if isinstance(value, dict):
        return ("dict", tuple(sorted((k, frozen(v)) for k, v in value.items())))
    if isinstance(value, (pd.Index, np.ndarray, list, tuple)):
        items = value.tolist() if isinstance(value, (pd.Index, np.ndarray)) else value
        return (type(value).__name__, tuple(frozen(v) for v in items))
    hash(value)
    return (type(value).__name__, value)


_TABLES: dict = {}
"""(family, path, labels, statistics options) -> (table, error): the cases of a family that differ only
in options of the metric share the statistics table of the same options (each case reduces it).
The key holds no data: every caller computes on the family's inputs ``DATA[family]``."""


def shared_table(key, compute):
    """The table ``compute()`` gives (or its ``TypeError``/``ValueError``), computed once per key; a copy."""
    key = frozen(key)
    if key not in _TABLES:
        try:
            _TABLES[key] = compute(), None
        except (TypeError, ValueError) as error:
            _TABLES[key] = None, error
    computed, error = _TABLES[key]
    if error is not None:
        raise error
    return computed.copy()


@pytest.mark.parametrize("name, metric, options", list(cases()))
def test_every_path_gives_the_direct_value(name, metric, options):
    family = FAMILIES[name]
    truth, prediction, _, _, labels = DATA[name]
    statistics_options, metric_options = split_options(family, metric, options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for selection in (None, labels) if labels is not None else (None,):
            direct = _call(metric, truth, prediction, selection, options, family)
            table = shared_table(
                (name, "table", selection, statistics_options),
                lambda: family.compute(truth, prediction, selection, statistics_options),
            )
            assert_same(_call(metric, table, None, selection, metric_options, family), direct, "table")

            def shards():
                halves = [FILES[:2], FILES[2:]]
                shards = [
                    family.compute(
                        _subset(truth, f), _subset(prediction, f), selection, _batch(statistics_options, f)
                    )
                    for f in halves
                ]
                return audeval.sum_statistics(shards)

            summed = shared_table((name, "shards", selection, statistics_options), shards)
            assert_same(_call(metric, summed, None, selection, metric_options, family), direct, "shards")
            accumulator = audeval.Accumulator(metric, selection, **options)
            for files in ([FILES[0]], FILES[1:4], FILES[4:]):
                accumulator.update(_subset(truth, files), _subset(prediction, files))
            assert_same(accumulator.compute(), direct, "Accumulator")
            if not isinstance(direct, pd.DataFrame) and not options.get("per_file"):
                # (a bootstrap interval is of the metric over files, not of per-file values)
                result = audeval.bootstrap(metric, truth, prediction, selection, n_boot=3, **options)
                assert_same(result.value, direct, "bootstrap")


@pytest.mark.parametrize("name", sorted(n for n in FAMILIES if DATA.get(n, (0,) * 5)[4] is not None))
def test_labels_on_a_table_give_the_direct_value_or_raise(name):
    family = FAMILIES[name]
    truth, prediction, statistics_options, _, labels = DATA[name]
    options = statistics_options[0]
    for metric in family.metrics:
        table = family.compute(truth, prediction, None, {**options, **family.required_options(metric)})
        direct = metric(truth, prediction, labels, **options)
        if metric in family.cross_label:
            with pytest.raises(ValueError, match=f"pass labels to {family.statistics.__name__}"):
                metric(table, None, labels)
        else:
            assert_same(metric(table, None, labels), direct, metric.__name__)


@pytest.mark.parametrize("name", sorted(n for n in FAMILIES if n in DATA))
def test_options_that_differ_from_the_table_raise(name):
    family = FAMILIES[name]
    truth, prediction, _, _, _ = DATA[name]
    checked = 0
    for metric in family.metrics:
        first, second = option_sets(name, metric)[:2]
        differing = {
            k: v
            for k, v in second.items()
            if k in family.options
            and (k not in first or family.normalised({k: v}) != family.normalised({k: first[k]}))
        }
        if not differing:
            continue
        table = family.compute(truth, prediction, None, {**first, **family.required_options(metric)})
        key, value = next(iter(differing.items()))
        with pytest.raises(ValueError, match=f"pass {key} to {family.statistics.__name__}"):
            metric(table, None, **{key: value})
        checked += 1
    if not checked:
        pytest.skip("the option sets differ only in options that tables do not record")


@pytest.mark.parametrize(
    "name, k",
    [
        pytest.param(name, k, id=f"{name}-{options}")
        for name in sorted(n for n in FAMILIES if n in DATA and n not in NO_DASK)
        for k, options in enumerate(DATA[name][2])
    ],
)
def test_dask_gives_the_pandas_table(name, k):
    """Every option set of a family (``compat``, ``uem``, ``positive_labels``, ...) on dask."""
    pytest.importorskip("dask.dataframe")
    family = FAMILIES[name]
    truth, prediction, statistics_options, _, _ = DATA[name]
    options = statistics_options[k]
    frame = _dask_frame

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = shared_table(
            (name, "table", None, options), lambda: family.compute(truth, prediction, None, options)
        )
        actual = shared_table(
            (name, "dask", None, options),
            lambda: audeval.dask_statistics(family.statistics, frame(truth), frame(prediction), **options),
        )
    if name == "score":
        # (summed score tables list thresholds ascending, as sum_statistics of pandas shards does)
        actual, expected = actual.sort_index(), expected.sort_index()
    pd.testing.assert_frame_equal(actual, expected, check_index_type=False)
    for metric in family.metrics:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            statistics_options, metric_options = split_options(family, metric, options)
            if family.required_options(metric):  # (ROC metrics: a table of their own criterion)
                continue
            assert_same(
                reduce(metric, actual, None, metric_options, family),
                reduce(metric, expected, None, metric_options, family),
                f"dask {metric.__name__}",
            )


_DASK_FRAMES: dict = {}
"""id of an input -> (the input, its dask DataFrame): collections are immutable, so the cases of a
family share them (the inputs of DATA live as long as the module)."""


def _dask_frame(data):
    """A Series of labels (or a score table) as a dask DataFrame partitioned by file."""
    dd = pytest.importorskip("dask.dataframe")
    known = _DASK_FRAMES.get(id(data))
    if known is not None and known[0] is data:
        return known[1]
    df = data.reset_index() if isinstance(data, pd.DataFrame) else data.rename("label").reset_index()
    frame = dd.from_pandas(df.set_index("file").sort_index(), npartitions=2, sort=True)
    # (held in memory, as a user's persisted data: from_pandas would cut and convert the frame
    # anew for every call's graph; tests/test_dask*.py also run collections computed by tasks)
    frame = frame.persist(scheduler="sync")
    _DASK_FRAMES[id(data)] = data, frame
    return frame


SILENT = {**FILES_DURATION, "silent1": DURATION, "silent2": DURATION / 2}
"""Durations of every file and of two files with no rows in truth or prediction."""


def _with_silent_files(options: dict) -> dict | None:
    if "files_duration" not in options:
        return None
    return {**options, "files_duration": SILENT}


@MAY_WARN_FILES_WITHOUT_ROWS
@pytest.mark.parametrize(
    "name, metric, options",
    [
        pytest.param(name, metric, silent, id=f"{metric.__name__}-{k}")
        # (scores: every evaluated file needs frames; test_psds_with_files_without_frames)
        for name in sorted(n for n in FAMILIES if n in DATA and n != "score")
        for metric in FAMILIES[name].metrics
        for k, options in enumerate(option_sets(name, metric))
        if (silent := _with_silent_files(options)) is not None
    ],
)
def test_files_only_in_files_duration_through_every_path(name, metric, options):
    """Files of ``files_duration`` without rows are evaluated by every path (issue 18, item 17).

    The Accumulator and dask see only the files of their batches;
    the files no batch held are added when the sum is taken.
    """
    family = FAMILIES[name]
    truth, prediction, _, _, _ = DATA[name]
    statistics_options, metric_options = split_options(family, metric, options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = _call(metric, truth, prediction, None, options, family)
        table = shared_table(
            (name, "table", None, statistics_options),
            lambda: family.compute(truth, prediction, None, statistics_options),
        )
        accumulator = audeval.Accumulator(metric, **options)
        for files in ([FILES[0]], FILES[1:4], FILES[4:]):
            accumulator.update(_subset(truth, files), _subset(prediction, files))
        before = accumulator.compute()
        accumulated = accumulator.statistics
        accumulator.update(_subset(truth, []), _subset(prediction, []))  # an empty batch changes nothing
    files = set(table.index.get_level_values("file"))
    if name not in ("structure", "hierarchy"):
        assert {"silent1", "silent2"} <= files
    pd.testing.assert_frame_equal(
        accumulated.sort_index(), table.sort_index(), check_index_type=False, obj="Accumulator table"
    )
    assert_same(before, direct, "Accumulator")
    assert_same(accumulator.compute(), direct, "Accumulator after an empty batch")
    if name in NO_DASK or family.single_input:
        return
    dd = pytest.importorskip("dask.dataframe")

    frame = _dask_frame

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        actual = shared_table(
            (name, "dask", None, statistics_options),
            lambda: audeval.dask_statistics(family.statistics, frame(truth), frame(prediction), **statistics_options),
        )
    pd.testing.assert_frame_equal(actual.sort_index(), table.sort_index(), check_index_type=False, obj="dask")


def test_sum_statistics_rejects_mixed_families_and_options():
    truth, prediction = LABELS
    events = audeval.event_statistics(truth, prediction)
    segments = audeval.segment_statistics(truth, prediction)
    with pytest.raises(ValueError, match="different families"):
        audeval.sum_statistics([events.iloc[:3], segments.iloc[3:]])
    a = audeval.event_statistics(_subset(truth, FILES[:3]), _subset(prediction, FILES[:3]), onset_tolerance=0.1)
    b = audeval.event_statistics(_subset(truth, FILES[3:]), _subset(prediction, FILES[3:]), onset_tolerance=0.2)
    with pytest.raises(ValueError, match="different options"):
        audeval.sum_statistics([a, b])


def test_the_probes_of_issue_16():
    """The example data with labels ["music", "noise"]: one number per path, or a clear error."""
    truth, prediction, durations = audeval.example_data()
    labels = ["music", "noise"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = audeval.segment_error_rate(truth, prediction, labels)
        accumulator = audeval.Accumulator(audeval.segment_error_rate, labels)
        accumulator.update(truth, prediction)
        assert accumulator.compute() == direct
        assert audeval.bootstrap(audeval.segment_error_rate, truth, prediction, labels, n_boot=5).value == direct

        direct = audeval.event_error_rate(truth, prediction, labels)
        table = audeval.event_statistics(truth, prediction)
        with pytest.raises(ValueError, match="pass labels to event_statistics"):
            audeval.event_error_rate(table, None, labels)
        table = audeval.event_statistics(truth, prediction, labels)
        assert audeval.event_error_rate(table, None, labels) == direct

        table = audeval.event_statistics(truth, prediction, labels, confusion=True)
        assert audeval.event_confusion_matrix(table, None, labels) == audeval.event_confusion_matrix(
            truth, prediction, labels
        )

        accumulator = audeval.Accumulator(audeval.rand_index)
        partitions = _partition(11), _partition(12)
        for files in (FILES[:3], FILES[3:]):
            accumulator.update(_subset(partitions[0], files), _subset(partitions[1], files))
        assert accumulator.compute() == pytest.approx(audeval.rand_index(*partitions), abs=1e-15)


@pytest.mark.parametrize("name", ["event", "segment"])
def test_files_duration_with_a_table_raises(name):
    """Options given with a statistics table are checked, never ignored (issue 16)."""
    family = FAMILIES[name]
    truth, prediction = LABELS
    table = family.compute(truth, prediction, None, {})
    for metric in family.metrics:
        with pytest.raises(ValueError, match=f"pass it to {family.statistics.__name__}"):
            metric(table, None, files_duration=FILES_DURATION)
