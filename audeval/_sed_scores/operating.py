"""Intersection-based statistics of operating points (psds_eval's input).

An operating point is the detection Series a system gives at one threshold;
``operating_points`` maps thresholds to them.
Per operating point and ``(file, label)`` the counts of
:mod:`audeval._sed_scores.intersection` are computed for the given detections
(detections of one class are not joined: as psds_eval, a truth event's coverage
sums the intersections of the relevant detections);
the table holds their changes from one operating point to the next lower one,
so it has the layout of the score table and every score metric reads it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import numbers

import numpy as np
import pandas as pd

from audeval._sed_scores.inputs import ScoreInputs
from audeval._sed_scores.intersection import NS, Truth, meets
from audeval._io.scores import FileSeconds
from audeval._core.validation import NAT, durations_ns, check_inputs, seconds_to_ns


def check_operating_points(operating_points: Mapping) -> tuple[list[float], list[pd.Series]]:
    """Thresholds (descending) and their detection Series."""
    if isinstance(operating_points, pd.Series) or not isinstance(operating_points, Mapping):
        raise TypeError(
            "scores must be a score DataFrame or a mapping threshold -> detection Series; "
            f"got {type(operating_points).__name__}."
        )
    if not operating_points:
        raise ValueError("operating_points is empty: pass at least one threshold -> detections.")
    bad = [k for k in operating_points if isinstance(k, bool) or not isinstance(k, numbers.Real)
           or not np.isfinite(k)]  # type: ignore[call-overload]  # a numbers.Real (numpy's stubs do not know it)
    if bad:
        raise TypeError(f"operating_points keys must be finite float thresholds; got {bad[:5]}.")
    thresholds = sorted((float(k) for k in operating_points), reverse=True)
    by_value = {float(k): v for k, v in operating_points.items()}
    return thresholds, [by_value[t] for t in thresholds]


def truth_classes(truth) -> list | None:
    """psds_eval's classes: the labels of the truth, sorted where they can be ordered."""
    if not isinstance(truth, pd.Series):
        return None  # the gate reports what is wrong with it
    values = pd.unique(truth.dropna().to_numpy(dtype=object))
    try:
        return sorted(values)
    except TypeError:
        return list(values)


def file_seconds(detections: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Start and end of every row in seconds as the file wrote them (NaN: not known).

    :func:`audeval.read_operating_points` keeps the seconds of its files
    in ``attrs["seconds"]`` (:class:`FileSeconds`).
    """
    kept = detections.attrs.get("seconds")
    if isinstance(kept, FileSeconds) and len(kept) == len(detections):
        return kept.start, kept.end
    return np.full(len(detections), np.nan), np.full(len(detections), np.nan)


def _seconds(kept: np.ndarray, ns: np.ndarray) -> np.ndarray:
    """The kept seconds where they round to the gate's ns, else ``ns / 1e9``.

    A Series changed after reading keeps stale seconds: those rows take ``ns / 1e9``,
    the same float as the file's decimal for times of up to 9 decimals.
    """
    same = np.isfinite(kept) & (seconds_to_ns(np.nan_to_num(kept)) == ns)
    return np.where(same, kept, ns / NS)


def operating_point_inputs(truth, operating_points, labels, files_duration, *, float_ratios=False):
    """Shared files and labels, truth arrays and all detections with their operating point.

    ``float_ratios`` (``compat="psds_eval"``): without ``labels`` the classes are the truth's
    (:func:`truth_classes`, psds_eval's rule; detections of other classes are left out),
    and the detections carry their seconds as the files gave them (:func:`file_seconds`).
    """
    thresholds, series = check_operating_points(operating_points)
    for threshold, detections in zip(thresholds, series):
        if not isinstance(detections, pd.Series):
            raise TypeError(
                f"operating_points[{threshold}] must be a detection Series; "
                f"got {type(detections).__name__}."
            )
    if float_ratios and labels is None:
        labels = truth_classes(truth) or None
    sizes = np.array([len(s) for s in series], dtype=np.int64)
    everything = pd.concat(series) if sizes.sum() else series[0]
    inputs = check_inputs(truth, everything, labels=labels, files_duration=files_duration,
                          allow_filewise=False)
    op = np.repeat(np.arange(len(series), dtype=np.int64), sizes)[inputs.prediction.position]
    durations = np.where(inputs.durations == NAT, inputs.latest, inputs.durations)
    files = inputs.files
    if files_duration is not None:  # files without events count for the false positive rate
        listed = pd.Index(pd.Series(files_duration).index)
        files = files.append(listed.difference(files))
        try:
            files = files.sort_values()
        except TypeError:
            pass
        files = pd.Index(files, name="file")
        position = files.get_indexer(inputs.files)
        all_durations = durations_ns(files_duration, files)
        all_durations[position] = durations
        durations = np.where(all_durations == NAT, 0, all_durations)
    else:
        position = np.arange(len(files))
    empty = np.zeros(0, dtype=np.int64)
    truth_file = position[inputs.truth.file]
    truth_end = inputs.truth.end
    if not float_ratios:  # crop to [0, duration] as the validation gate announces
        truth_end = np.minimum(truth_end, durations[truth_file])
    score_inputs = ScoreInputs(
        files, list(inputs.labels), empty, empty, empty, np.zeros((0, inputs.n_labels)),
        truth_file, inputs.truth.start, truth_end, inputs.truth.label, durations,
    )
    detections = (position[inputs.prediction.file], inputs.prediction.start,
                  inputs.prediction.end, inputs.prediction.label, op)
    if float_ratios:
        seconds = [file_seconds(s) for s in series]
        kept = [np.concatenate([s[i] for s in seconds])[inputs.prediction.position] for i in (0, 1)]
        detections += (_seconds(kept[0], inputs.prediction.start), _seconds(kept[1], inputs.prediction.end))
    return score_inputs, thresholds, detections


def operating_point_counts(
    inputs: ScoreInputs, detections, n_ops: int, *, dtc: float, gtc: float, cttc: float | None,
    float_ratios: bool = False,
) -> dict[str | tuple[str, int], np.ndarray]:
    r"""``(n_ops, n_groups)`` counts ``tp``, ``fp`` (and ``("ct", label)``).

    ``float_ratios``: compare sums of float ratios in seconds, as psds_eval does
    (:math:`\sum_g |d \cap g| / |d| \ge \rho`), instead of exact integer ns,
    and counts false positives only where a detection starts before the file's end;
    else events are cropped to the file's duration.
    """
    file, start, end, label, op = detections[:5]
    duration = inputs.durations[file]
    if float_ratios:  # psds_eval: false positives only where a detection overlaps the file
        inside = start < duration
        start_s, end_s = detections[5:] if len(detections) == 7 else (start / NS, end / NS)
    else:  # crop to [0, duration] as the validation gate announces
        end = np.minimum(end, duration)
        inside = np.ones(len(end), dtype=bool)
        start_s = end_s = np.zeros(len(end))
    keep = end > start
    file, start, end, label, op = file[keep], start[keep], end[keep], label[keep], op[keep]
    inside, start_s, end_s = inside[keep], start_s[keep], end_s[keep]
    n_groups = inputs.n_labels * inputs.n_files
    truth = Truth(inputs)
    truth.check_disjoint(inputs)
    group = label * inputs.n_files + file
    length = end - start
    if float_ratios:
        relevant = _float_criterion(truth, group, start, end, dtc, start_s, end_s)
    else:
        inter = truth.covered(group, end) - truth.covered(group, start)
        relevant = meets(inter, dtc, length, None)
    false = ~relevant & inside
    counts: dict[str | tuple[str, int], np.ndarray] = {"fp": _count(op[false], group[false], n_ops, n_groups)}
    # GTC: coverage of each truth event per operating point
    k = np.flatnonzero(relevant)
    query, item = truth.overlapping(group[k], start[k], end[k])
    det = k[query]
    amount = np.minimum(end[det], truth.end[item]) - np.maximum(start[det], truth.start[item])
    n_truth = max(len(truth.group), 1)
    keys, inverse = np.unique(op[det] * n_truth + item, return_inverse=True)
    event = keys % n_truth
    if float_ratios:
        ratio = _seconds_overlap(start_s[det], end_s[det], truth.start[item], truth.end[item]) / (
            truth.end[item] / NS - truth.start[item] / NS)
        covered = np.zeros(len(keys))
        np.add.at(covered, inverse.ravel(), ratio)
        hit = covered >= gtc
    else:
        covered = np.zeros(len(keys), dtype=np.int64)
        np.add.at(covered, inverse.ravel(), amount)
        hit = meets(covered, gtc, truth.length[event], None)
    counts["tp"] = _count((keys // n_truth)[hit], truth.group[event][hit], n_ops, n_groups)
    if cttc is not None:
        false = np.flatnonzero(~relevant)
        for other in range(inputs.n_labels):
            other_group = other * inputs.n_files + file[false]
            mask = (label[false] != other) & truth.present[other_group]
            f = false[mask]
            og = other_group[mask]
            if float_ratios:
                ct = f[_float_criterion(truth, og, start[f], end[f], cttc, start_s[f], end_s[f])]
            else:
                inter_o = truth.covered(og, end[f]) - truth.covered(og, start[f])
                ct = f[meets(inter_o, cttc, length[f], None)]
            counts[("ct", other)] = _count(op[ct], group[ct], n_ops, n_groups)
    return counts


def _seconds_overlap(a_start_s, a_end_s, b_start, b_end) -> np.ndarray:
    """Overlap in float seconds of detections (seconds) and truth events (ns)."""
    return np.minimum(a_end_s, b_end / NS) - np.maximum(a_start_s, b_start / NS)


def _float_criterion(truth: Truth, group, start, end, ratio: float, start_s, end_s) -> np.ndarray:
    """psds_eval's float rule: the sum over truth events of overlap / detection length >= ratio.

    The pairs that overlap are found in ns (``start``, ``end``),
    the shares are float64 on the detections' seconds ``start_s``, ``end_s``.
    """
    query, item = truth.overlapping(group, start, end)
    part = _seconds_overlap(start_s[query], end_s[query], truth.start[item], truth.end[item]) / (
        end_s[query] - start_s[query])
    total = np.zeros(len(group))
    np.add.at(total, query, part)
    has = np.zeros(len(group), dtype=bool)
    has[query] = True
    return has & (total >= ratio)


def _count(op: np.ndarray, group: np.ndarray, n_ops: int, n_groups: int) -> np.ndarray:
    flat = np.bincount(op * n_groups + group, minlength=n_ops * n_groups)
    return flat.reshape(n_ops, n_groups).astype(np.int64)


def operating_point_deltas(counts: dict, thresholds: Sequence[float]):
    """Changes from each operating point to the next lower one, as (group, level, columns)."""
    names = list(counts)
    n_ops, n_groups = counts["tp"].shape
    deltas = {n: np.diff(np.vstack([np.zeros((1, n_groups), np.int64), counts[n]]), axis=0)
              for n in names}
    changed = np.zeros((n_ops, n_groups), dtype=bool)
    for n in names:
        changed |= deltas[n] != 0
    group, op = np.nonzero(changed.T)  # by group, then threshold descending
    level = np.asarray(thresholds, dtype=np.float64)[op]
    return group.astype(np.int64), level, {n: deltas[n][op, group] for n in names}
