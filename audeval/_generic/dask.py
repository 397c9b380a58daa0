"""Statistics on dask collections partitioned by file (SPEC section 8, optional ``dask`` extra).

Each pair of partitions (truth, prediction) is evaluated where it is,
by the family's own statistics function on pandas objects,
and the counts of the partitions travel back as arrays (:class:`audeval._generic.rows.Rows`)
to be put one after the other, or summed (SPEC section 2).
That is exact as long as no file is split across partitions,
which is checked: a split file raises ``ValueError`` naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
import functools
import sys
import uuid

import numpy as np
import pandas as pd

from audeval._core.sides import Coded
from audeval._generic.dask_groups import gather, gather_all, split_error
from audeval._generic.dask_partitions import entries, to_coded, to_frame, to_series
from audeval._generic.registry import Batches, family_of, split_options
from audeval._generic.rows import Rows, concatenate_rows, rows_of, rows_of_counts, table_of_rows
from audeval._generic.sum import sum_statistics


def import_dask():
    """``dask`` and ``dask.dataframe``, or an ImportError naming the extra."""
    try:
        import dask
        import dask.dataframe
    except ImportError as error:
        raise ImportError(
            "dask is needed for statistics on dask collections; "
            "install it with: pip install 'audeval[dask]' "
            f"(dask[dataframe] and distributed). ({error})"
        ) from error
    return dask, dask.dataframe


def is_dask_collection(obj: object) -> bool:
    """Whether ``obj`` is a dask collection (without importing dask)."""
    dask = sys.modules.get("dask")
    if dask is None:
        return False
    return dask.is_dask_collection(obj)


# -------------------------------------------------------------------------
# One pair of partitions
# -------------------------------------------------------------------------


def _partition_statistics(
    batches: Batches, truth, prediction, column: object | None = None, pieces=None, table: bool = False
) -> tuple:
    """The statistics of one pair of partitions (or of lists of consecutive partitions),
    the labels it found and the warnings it kept (to issue once for all partitions);
    with ``pieces`` (the rows of each pair of a group put one after the other)
    also the file levels and codes of both sides and ``pieces``.
    The statistics are arrays (:class:`Rows`) to travel and be put together,
    or with ``table=True`` (the partitions of the whole collection) the table itself.
    The partitions reach the family's statistics as the arrays the validation gate reads
    (:class:`audeval._core.sides.Coded`, where the family declares ``coded_input``), else as Series."""
    family = batches.family
    truth = (to_coded if family.coded_input else to_series)(truth, "truth", column)
    if family.scores_input:
        prediction = to_frame(prediction, "prediction")
    elif family.coded_input:  # (it shares the truth's file Index where both hold the same files)
        prediction = to_coded(prediction, "prediction", column, like=truth)
    else:
        prediction = to_series(prediction, "prediction", column)
    files = () if pieces is None else ((_file_codes(truth), _file_codes(prediction), pieces),)
    batches = batches.copy()  # (a worker may run several partitions)
    rows = None if table else _counted(batches, truth, prediction)
    if rows is None:
        computed = batches.statistics(truth, prediction)
        # the counts travel as arrays (a table only where it is not a (file, label) table of counts)
        rows = None if table else rows_of(computed)
        if rows is None:
            return (computed, batches.found, batches.pending, *files)
    return (rows, batches.found, batches.pending, *files)


def _file_codes(obj: pd.Series | pd.DataFrame | Coded) -> tuple[pd.Index, np.ndarray]:
    """The file level of a converted partition and the code of each row (-1: missing)."""
    if isinstance(obj, Coded):
        return obj.files, obj.file_codes
    index = obj.index
    if isinstance(index, pd.MultiIndex):
        return index.levels[0], np.asarray(index.codes[0], dtype=np.int64)
    codes, level = pd.factorize(index)
    return pd.Index(level), np.asarray(codes, dtype=np.int64)


def _counted(batches: Batches, truth: pd.Series, prediction: pd.Series) -> Rows | None:
    """The counts of a pair of partitions as :class:`Rows` straight from the family's arrays
    (no statistics table built on the worker and taken apart again), where the family
    computes them so (its batch arrays have ``counts()``, e.g. events); else ``None``."""
    family = batches.family
    if family.parts is None or batches.deferred or not isinstance(truth, (pd.Series, Coded)):
        return None
    pending = batches.statistics(truth, prediction, parts=True)
    counts = getattr(pending, "counts", None)
    if counts is None:
        return None
    inputs, columns, keys = batches._warning_once(counts)
    return rows_of_counts(family.name, inputs.files, list(inputs.labels), columns, keys, dict(pending.recorded))


# -------------------------------------------------------------------------
# Whole collections
# -------------------------------------------------------------------------


def _check_collection(obj: object, name: str, dd) -> None:
    if not isinstance(obj, (dd.DataFrame, dd.Series)):
        raise TypeError(
            f"{name} must be a dask DataFrame or Series partitioned by file; "
            f"got {type(obj).__name__}."
        )
    meta = obj._meta  # (the empty pandas object: no expression built to read names)
    if isinstance(obj, dd.DataFrame):
        columns = entries(meta.columns)
        if meta.index.name != "file" and "file" not in columns:
            raise ValueError(
                f"{name} must have 'file' as its index or as a column; got columns {columns}."
            )
        has_start, has_end = "start" in columns, "end" in columns
        if has_start != has_end:
            raise ValueError(f"{name} has only one of the columns 'start' and 'end'.")
    elif meta.index.name != "file":
        raise ValueError(
            f"{name}: a dask Series must be indexed by 'file' (one label per file); "
            "pass a DataFrame with columns 'start', 'end' and the label for segments."
        )


def _with_divisions(obj, name: str):
    """A collection indexed by file with its divisions computed, if they can be."""
    if obj.known_divisions:
        return obj
    try:
        return obj.compute_current_divisions(set_divisions=True)
    except ValueError as error:
        raise ValueError(
            f"{name} is indexed by file but its partitions overlap "
            "(a file is in several partitions, or the index is not sorted): "
            "partition it by file with ddf.set_index('file'). "
            f"({error})"
        ) from None
    except Exception:  # e.g. empty partitions: pair the partitions by position
        return obj


def _aligned(truth, prediction) -> tuple:
    """The two collections with partitions holding the same files (partition *i* of each),
    and whether they are paired by known file divisions (then no file can be in two partitions)."""
    by_file = truth._meta.index.name == "file" and prediction._meta.index.name == "file"
    if by_file:
        truth = _with_divisions(truth, "truth")
        prediction = _with_divisions(prediction, "prediction")
    by_divisions = bool(by_file and truth.known_divisions and prediction.known_divisions)
    if by_divisions:
        if tuple(truth.divisions) != tuple(prediction.divisions):
            # the inner divisions of the side with more partitions, the outer bounds of both
            ours = truth.divisions if truth.npartitions >= prediction.npartitions else prediction.divisions
            try:
                low = min(truth.divisions[0], prediction.divisions[0])
                high = max(truth.divisions[-1], prediction.divisions[-1])
            except TypeError:
                raise ValueError(
                    "the file divisions of truth and prediction cannot be ordered together."
                ) from None
            divisions = (low, *ours[1:-1], high)
            if tuple(truth.divisions) != divisions:
                truth = truth.repartition(divisions=divisions, force=True)
            if tuple(prediction.divisions) != divisions:
                prediction = prediction.repartition(divisions=divisions, force=True)
    elif truth.npartitions != prediction.npartitions:
        raise ValueError(
            f"truth has {truth.npartitions} partitions and prediction {prediction.npartitions}: "
            "without known file divisions on both, partition i of truth "
            "must hold the same files as partition i of prediction. "
            "Index both by file with known divisions, e.g. "
            "ddf.set_index('file') or dd.read_parquet(..., index='file', calculate_divisions=True)."
        )
    return truth, prediction, by_divisions


def _graph(obj) -> tuple[dict, list]:
    """A collection's task graph and the key of each partition (persisted partitions: the key of their data).

    Where every partition is held in memory (persisted) the graph is taken as it is;
    else it is the graph of the optimised expression (what ``to_delayed`` hands out).
    """
    graph, keys = obj.__dask_graph__(), obj.__dask_keys__()
    targets = [_target(graph, key) for key in keys]
    if all(isinstance(_value(graph.get(key)), (pd.DataFrame, pd.Series)) for key in targets):
        return dict(graph), targets
    obj = obj.optimize()
    graph = dict(obj.__dask_graph__())
    return graph, [_target(graph, key) for key in obj.__dask_keys__()]


def _check_split(tables: list[pd.DataFrame], where: list) -> None:
    """Raise if a file is in the tables of several partitions
    (``where[k]``: the partition of table *k*, or of each of its files)."""
    files = []
    partitions = []
    for table, origin in zip(tables, where):
        unique = pd.Index(pd.unique(table.index.get_level_values("file")), dtype=object)
        files.append(unique)
        if isinstance(origin, pd.Series):  # a group of partitions: the partition of each file
            partitions.append(origin.to_numpy()[origin.index.get_indexer(unique)])
        else:
            partitions.append(np.full(len(unique), origin, dtype=np.int64))
    if not files:
        return
    all_files = files[0].append(files[1:]) if len(files) > 1 else files[0]
    partition = np.concatenate(partitions)
    duplicated = all_files.duplicated(keep=False)
    if duplicated.any():
        raise split_error(pd.Series(partition[duplicated], index=all_files[duplicated]))


def _run(dask, batches: Batches, truth, prediction, column, by_divisions: bool = False) -> list:
    """:func:`_partition_statistics` of every pair of partitions on dask's current scheduler,
    each result with the partition it is of.

    One task per pair, in a plain task graph handed to the scheduler
    (the collections' graphs optimised once, :func:`_graph`,
    and no hash of the options object to name the tasks);
    on the synchronous scheduler a chain of tasks that evaluates
    consecutive small pairs together (:mod:`audeval._generic.dask_groups`),
    run here without the scheduler where every partition is held in memory
    (persisted: its data read off the collection's expression, :func:`_persisted`, else off its graph;
    there is nothing to schedule; dask's callbacks see no task).
    """
    get = _scheduler(dask, [truth, prediction])
    evaluate = functools.partial(_partition_statistics, batches, column=column)
    if get is dask.local.get_sync:
        held = _persisted_pairs(truth, prediction)
        if held:  # (persisted partitions: the chain runs here, without a graph to build or order)
            return gather_all(evaluate, held, not by_divisions)
    token = uuid.uuid4().hex
    graph, truth_keys = _graph(truth)
    if prediction is truth:
        prediction_keys = truth_keys
    else:
        prediction_graph, prediction_keys = _graph(prediction)
        graph.update(prediction_graph)
    pairs = list(zip(truth_keys, prediction_keys))
    if get is dask.local.get_sync and pairs:
        held = _held(graph, pairs)
        if held is not None:  # (persisted partitions: the chain runs here, without a graph to order)
            return gather_all(evaluate, held, not by_divisions)
        name = f"audeval-group-{token}"
        previous = None
        for k, (t, p) in enumerate(pairs):
            graph[(name, k)] = (gather, evaluate, previous, k, t, p, k == len(pairs) - 1, not by_divisions)
            previous = (name, k)
        return get(graph, previous).results
    # (the options travel with every task: a few hundred bytes, no task of their own to fetch)
    # (the counts travel in the smallest types that hold them)
    evaluate = functools.partial(_packed, evaluate)
    keys = []
    for k, (t, p) in enumerate(pairs):
        key = (f"audeval-statistics-{token}", k)
        graph[key] = (evaluate, t, p)
        keys.append(key)
    return [(*result, k) for k, result in enumerate(get(graph, keys))]


def _scheduler(dask, collections: list) -> Callable:
    """dask's scheduler for the collections (``dask.base.get_scheduler``); one named in dask's config
    (``scheduler="sync"``, ...) is taken as dask takes it, without its look for a distributed client
    that a named local scheduler does not use."""
    name = dask.config.get("scheduler", None)
    if isinstance(name, str) and name.lower() in dask.base.named_schedulers:
        return dask.base.named_schedulers[name.lower()]
    return dask.base.get_scheduler(collections=collections)


def _packed(evaluate: Callable, truth, prediction) -> tuple:
    """A partition's result with its counts packed for the way back (:meth:`Rows.packed`)."""
    part, *rest = evaluate(truth, prediction)
    return (part.packed() if isinstance(part, Rows) else part, *rest)


def _persisted_pairs(truth, prediction) -> list | None:
    """The pandas objects of every pair where both collections are persisted
    (their partitions read off their expressions, :func:`_persisted`), else ``None``."""
    truths = _persisted(truth)
    predictions = truths if prediction is truth else _persisted(prediction)
    if truths is None or predictions is None or len(truths) != len(predictions):
        return None
    return [list(pair) for pair in zip(truths, predictions)]


def _persisted(obj) -> list | None:
    """The pandas object of every partition of a persisted collection, else ``None``.

    A persisted collection's expression holds its data by key
    (dask's ``FromGraph``: operands ``layer``, the data, and ``keys``, one per partition in order);
    reading them there skips the lowering of the expression that its graph would take
    (0.07 ms with cold caches, a third of the dask call's own fixed cost on the synchronous scheduler).
    """
    expr = getattr(obj, "expr", None)
    if expr is None or type(expr).__name__ != "FromGraph":
        return None
    try:
        layer, keys = expr.operand("layer"), expr.operand("keys")
    except (AttributeError, KeyError, ValueError):  # (a dask whose FromGraph has other operands)
        return None
    if not isinstance(layer, dict) or len(keys) != obj.npartitions:
        return None
    values = [_value(layer.get(_target(layer, key))) for key in keys]
    if not all(isinstance(v, (pd.DataFrame, pd.Series)) for v in values):
        return None
    return values


def _held(graph: dict, pairs: list) -> list | None:
    """The pandas objects of every pair where all are held in memory (persisted partitions:
    the graph maps their keys to the objects), else ``None`` (a partition is a task to run)."""
    held = []
    for keys in pairs:
        values = [_value(graph.get(key)) for key in keys]
        if not all(isinstance(v, (pd.DataFrame, pd.Series)) for v in values):
            return None
        held.append(values)
    return held


def _value(node: object) -> object:
    """The value of a graph entry that holds data (else the entry itself)."""
    from dask._task_spec import DataNode

    return node.value if isinstance(node, DataNode) else node


def _target(graph: dict, key):
    """The key a partition's key stands for (persisted partitions: an alias of the data's key)."""
    from dask._task_spec import Alias

    seen = {key}
    while isinstance(graph.get(key), Alias) and graph[key].target in graph and graph[key].target not in seen:
        key = graph[key].target
        seen.add(key)
    return key


def dask_statistics(
    statistics: Callable,
    truth,
    prediction,
    labels: Sequence[object] | None = None,
    *,
    column: object | None = None,
    **options,
) -> pd.DataFrame:
    r"""A statistics function on dask collections partitioned by file.

    ``statistics`` (e.g. :func:`audeval.event_statistics`)
    is called on every pair of truth and prediction partitions
    as pandas Series, where the partitions are
    (their columns coded straight into a segmented index),
    and the counts travel back as arrays:
    partitions that follow each other in file order
    are put one after the other,
    others are summed with :func:`audeval.sum_statistics`.
    The result is identical to the statistics of the whole pandas Series,
    and every metric of the family accepts it in place of ``truth``.
    The work runs on dask's current scheduler
    (e.g. a ``dask.distributed`` client);
    on the synchronous scheduler consecutive small partitions
    (up to 50,000 rows of truth and prediction together)
    are evaluated in one call.

    ``truth`` and ``prediction`` are dask DataFrames
    with ``file`` as index or column,
    columns ``start`` and ``end``
    (timedeltas, or seconds as numbers; ``end`` may be NaT)
    and one label column
    (or a dask Series indexed by ``file`` for one label per file).
    Every file must be in one partition only,
    and partition *i* of truth and of prediction must hold the same files:
    when both are indexed by ``file`` with known divisions
    (``set_index("file")``,
    or ``dd.read_parquet(..., index="file", calculate_divisions=True)``)
    they are repartitioned to common divisions;
    else they are paired by position.
    A file found in two partitions raises ``ValueError`` naming it.

    With ``labels=None`` every partition finds its own labels
    and the tables are summed over the union of labels,
    which for non-categorical labels is the sorted union
    (as for pandas input);
    categorical label columns keep their category order.

    Args:
        statistics: statistics function of a metric family
        truth: truth events (dask DataFrame partitioned by file)
        prediction: predicted events (dask DataFrame partitioned by file)
        labels: labels to evaluate
        column: label column, if there is more than one
            besides ``file``, ``start`` and ``end``
        **options: options of the statistics function
            (tolerances, ``files_duration``, ``uem``, ``positive_labels``, ...)

    Returns:
        statistics table indexed by ``(file, label)``

    Raises:
        ImportError: if dask is not installed (``pip install 'audeval[dask]'``)
        TypeError, ValueError: on invalid input,
            or if a file is split across partitions

    Examples:
        >>> import dask.dataframe as dd
        >>> import audeval
        >>> truth = pd.DataFrame(
        ...     {
        ...         "file": ["f1", "f2"],
        ...         "start": pd.to_timedelta([0.0, 0.0], unit="s"),
        ...         "end": pd.to_timedelta([1.0, 1.0], unit="s"),
        ...         "label": ["a", "b"],
        ...     }
        ... )
        >>> prediction = truth.assign(label=["a", "a"])
        >>> stats = audeval.dask_statistics(
        ...     audeval.event_statistics,
        ...     dd.from_pandas(truth.set_index("file"), npartitions=2),
        ...     dd.from_pandas(prediction.set_index("file"), npartitions=2),
        ... )
        >>> audeval.event_fscore(stats, None)
        0.5

    """
    dask, dd = import_dask()
    if not callable(statistics):
        raise TypeError(
            f"statistics must be a statistics function; got {type(statistics).__name__}."
        )
    family = family_of(statistics)
    if statistics is not family.statistics:
        raise TypeError(
            f"statistics must be a statistics function such as {family.statistics.__name__}; "
            f"got {statistics.__name__}."
        )
    statistics_options, _ = split_options(family, None, options)  # (unknown options raise)
    _check_collection(truth, "truth", dd)
    _check_collection(prediction, "prediction", dd)
    truth, prediction, by_divisions = _aligned(truth, prediction)
    batches = Batches(family, labels, statistics_options)
    results = _run(dask, batches, truth, prediction, column, by_divisions)
    for _, found, pending, _ in results:
        batches.merge(found, pending)
    batches.check()  # (labels that must occur: over all partitions)
    parts = [part.unpacked() if isinstance(part, Rows) else part for part, _, _, _ in results]
    # partitions by file in file order (the usual case): the tables one after the other
    if len(parts) == 1:  # (one call: its table as the direct call's)
        summed = table_of_rows(parts[0]) if isinstance(parts[0], Rows) else parts[0]
    else:
        summed = concatenate_rows(parts) if all(isinstance(p, Rows) for p in parts) else None
    if summed is None:
        tables = [table_of_rows(p) if isinstance(p, Rows) else p for p in parts]
        _check_split(tables, [where for *_, where in results])
        summed = sum_statistics(tables)
    # files of files_duration (or uem) in no partition: evaluated as in a direct call
    unseen = batches.unseen(summed)
    total = summed if unseen is None else sum_statistics([summed, unseen])
    batches.warn(total)  # (once for all partitions, as the direct call)
    return total


__all__ = ["dask_statistics"]
