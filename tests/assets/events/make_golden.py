"""Golden values of the event-based metrics from the reference packages.

Run by hand in the reference environment (not in CI)::

    /opt/refenv/bin/python tests/assets/events/make_golden.py

It is deterministic (fixed seed) and writes, next to this script:

* ``inputs/<scenario>.truth.csv`` and ``inputs/<scenario>.prediction.csv``
  with columns ``file,start,end,label`` (seconds).
  Rows are shuffled over all files,
  so audeval sees unsorted input;
* ``sed_eval.json``: results of
  ``sed_eval.sound_event.EventBasedMetrics`` (sed_eval 0.2.1)
  for several parameter sets per scenario,
  evaluated file by file over the union of files,
  each file's events sorted by (onset, offset);
* ``audmetric.json``: results of the event functions of audmetric 1.4.2.

Times: truth times lie on the microsecond grid,
predicted times on the microsecond grid shifted by 0.25 us.
Every truth-prediction difference is then k + 0.25 or k + 0.75 us,
while every tolerance used below
(collars in whole microseconds, 0.5 or 0.2 of a truth duration
in whole microseconds)
is a multiple of 0.2 or 0.5 us:
no tolerance is ever met exactly (the margin is at least 50 ns),
so float64 seconds (the references) and integer nanoseconds (audeval)
must take the same decisions.
:func:`check_margins` verifies this with exact fractions.
Only the scenario ``exact_copies`` (tolerance 0 for audmetric)
has predictions equal to truth events on purpose.

NaN is written as ``null`` in the JSON files.
"""

from __future__ import annotations

import fractions
import itertools
import json
import math
import os
import warnings

import numpy as np
import pandas as pd

import audformat

# The references (audmetric, dcase_util, sed_eval) exist only in the reference
# environment: they are imported where they are used,
# so that importing this module (pytest --doctest-modules) needs none of them.


SEED = 20240611
HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(HERE, "inputs")
LABELS = ["alarm", "bird", "car", "dog", "engine"]
US = 1e-6
SHIFT = 0.25  # predictions are shifted by a quarter microsecond
MIN_MARGIN = fractions.Fraction(40, 10**9)  # 40 ns


# -------------------------------------------------------------------------
# Random scenarios
# -------------------------------------------------------------------------


def snap(x: float, shift: float) -> float:
    """Round to the microsecond grid (+ shift microseconds)."""
    return (round(x / US) + shift) * US


def fmt(x: float) -> str:
    return f"{x:.8f}"


class Builder:
    """Collects the events of one scenario."""

    def __init__(self):
        self.truth = []  # (file, start, end, label) with start/end as strings
        self.prediction = []
        self.shuffle = True

    def add_truth(self, file, start, end, label):
        start = max(start, 0.0)
        end = max(end, start + 0.01)
        self.truth.append((file, fmt(snap(start, 0)), fmt(snap(end, 0)), label))

    def add_prediction(self, file, start, end, label, shift=SHIFT):
        start = max(start, 0.0)
        end = max(end, start + 0.01)
        self.prediction.append((file, fmt(snap(start, shift)), fmt(snap(end, shift)), label))


def sparse(
    rng,
    *,
    n_files,
    labels,
    rate,
    file_length=20.0,
    durations=(0.2, 2.0),
    onset_jitter=0.15,
    offset_jitter=0.3,
    p_detect=0.8,
    p_substitute=0.15,
    insertion_rate=1.5,
    truth_only_files=1,
    prediction_only_files=1,
    truth_labels=None,
    prediction_labels=None,
):
    """Random events and noisy detections of them, several files."""
    truth_labels = truth_labels or labels
    prediction_labels = prediction_labels or labels
    b = Builder()
    n_both = n_files - truth_only_files - prediction_only_files
    kinds = (
        ["both"] * n_both
        + ["truth"] * truth_only_files
        + ["prediction"] * prediction_only_files
    )
    for k, kind in enumerate(kinds):
        file = f"f{k:02d}.wav"
        if kind != "prediction":
            n = max(1, rng.poisson(rate))
            for _ in range(n):
                start = rng.uniform(0, file_length)
                end = start + rng.uniform(*durations)
                label = str(rng.choice(truth_labels))
                b.add_truth(file, start, end, label)
                if kind == "truth" or rng.random() > p_detect:
                    continue
                pred_label = label
                if rng.random() < p_substitute:
                    others = [x for x in prediction_labels if x != label]
                    pred_label = str(rng.choice(others))
                elif label not in prediction_labels:
                    continue
                p_start = start + rng.normal(0, onset_jitter)
                p_end = end + rng.normal(0, offset_jitter)
                b.add_prediction(file, p_start, p_end, pred_label)
        if kind != "truth":
            n = rng.poisson(insertion_rate) + (kind == "prediction")
            for _ in range(n):
                start = rng.uniform(0, file_length)
                end = start + rng.uniform(*durations)
                b.add_prediction(file, start, end, str(rng.choice(prediction_labels)))
    return b


def dense(
    rng,
    *,
    n_files,
    labels,
    n_events,
    spacing=(0.03, 0.2),
    durations=(0.3, 1.0),
    onset_jitter=0.12,
    offset_jitter=0.15,
    p_detect=0.9,
    p_substitute=0.2,
    n_insertions=3,
):
    """Many events of few labels close together: many candidate pairs."""
    b = Builder()
    for k in range(n_files):
        file = f"d{k:02d}.wav"
        t = rng.uniform(0, 0.5)
        for _ in range(n_events):
            t += rng.uniform(*spacing)
            end = t + rng.uniform(*durations)
            label = str(rng.choice(labels))
            b.add_truth(file, t, end, label)
            if rng.random() < p_detect:
                pred_label = label
                if len(labels) > 1 and rng.random() < p_substitute:
                    pred_label = str(rng.choice([x for x in labels if x != label]))
                b.add_prediction(
                    file,
                    t + rng.normal(0, onset_jitter),
                    end + rng.normal(0, offset_jitter),
                    pred_label,
                )
        for _ in range(n_insertions):
            start = rng.uniform(0, t)
            b.add_prediction(file, start, start + rng.uniform(*durations), str(rng.choice(labels)))
    return b


def tie_break():
    """Two maximum matchings that leave different leftovers (hand-made).

    Truth ``a`` at 0.5 s can match either predicted ``a`` (onset collar 0.5 s);
    only the later one (0.9 s) can substitute the truth ``b`` at 1.3 s.
    sed_eval (both modes) matches the first, leaving a substitution: ER = 0.5.
    The prediction rows are written latest first, not shuffled.
    """
    b = Builder()
    b.add_truth("t.wav", 0.5, 1.5, "alarm")
    b.add_truth("t.wav", 1.3, 2.3, "bird")
    b.add_prediction("t.wav", 0.9, 1.9, "alarm")
    b.add_prediction("t.wav", 0.1, 1.1, "alarm")
    b.shuffle = False
    return b


def exact_copies(rng):
    """Predictions that copy truth events exactly (tolerance 0 in audmetric)."""
    b = Builder()
    for k in range(3):
        file = f"e{k:02d}.wav"
        for _ in range(6):
            start = rng.uniform(0, 10)
            end = start + rng.uniform(0.2, 2)
            label = str(rng.choice(LABELS[:3]))
            b.add_truth(file, start, end, label)
            u = rng.random()
            if u < 0.5:
                b.add_prediction(file, start, end, label, shift=0)  # exact copy
            elif u < 0.65:
                other = str(rng.choice([x for x in LABELS[:3] if x != label]))
                b.add_prediction(file, start, end, other, shift=0)  # substitution
            elif u < 0.8:
                b.add_prediction(file, start, end + 0.05, label)  # offset off
    return b


# -------------------------------------------------------------------------
# Parameter sets
# -------------------------------------------------------------------------

# sed_eval: (evaluate_onset, evaluate_offset, t_collar, percentage_of_length)
SED_STANDARD = [
    (True, True, 0.2, 0.5),
    (True, False, 0.2, 0.5),
    (False, True, 0.2, 0.5),
]
SED_COLLARS = [
    (True, True, 0.05, 0.5),
    (True, True, 0.5, 0.5),
    (True, True, 0.2, 0.2),
]
SED_DURATION = [
    (True, True, 0.05, 0.5),
    (True, True, 0.05, 0.2),
    (False, True, 0.05, 0.5),
    (False, True, 0.05, 0.2),
    (True, True, 0.05, 0.0),
    (True, False, 0.5, 0.5),
]
MATCHINGS = ["optimal", "greedy"]

# audmetric: (onset_tolerance, offset_tolerance, duration_tolerance)
AUDMETRIC_STANDARD = [
    (0.2, 0.2, None),
    (None, 0.2, None),
    (0.05, 0.5, None),
    (0.2, None, 0.5),
    (0.5, None, None),
    (0.1, 0.05, 0.2),
]
AUDMETRIC_DURATION = [
    (0.05, 0.05, 0.5),
    (None, 0.05, 0.2),
    (0.2, 0.05, 0.2),
    (None, None, 0.5),
]
AUDMETRIC_EXACT = [
    (0.0, 0.0, None),
    (0.0, None, None),
    (None, 0.0, None),
]


def scenarios(rng):
    """(name, kind, builder, sed parameter sets, audmetric parameter sets, options)."""
    out = []

    def add(name, kind, builder, sed=(), audm=(), extra_label=False, label_order=False):
        out.append(
            dict(
                name=name,
                kind=kind,
                builder=builder,
                sed=list(sed),
                audmetric=list(audm),
                extra_label=extra_label,
                label_order=label_order,
            )
        )

    add(
        "sparse_a",
        "sparse",
        sparse(rng, n_files=5, labels=LABELS[:3], rate=6),
        SED_STANDARD + SED_COLLARS,
        AUDMETRIC_STANDARD,
        label_order=True,
    )
    add(
        "sparse_b",
        "sparse",
        sparse(
            rng,
            n_files=6,
            labels=LABELS,
            rate=5,
            p_substitute=0.35,
            truth_only_files=2,
            prediction_only_files=1,
        ),
        SED_STANDARD + SED_COLLARS,
        AUDMETRIC_STANDARD,
        extra_label=True,
    )
    add(
        "sparse_c",
        "sparse",
        sparse(rng, n_files=4, labels=LABELS[:2], rate=8, onset_jitter=0.3, offset_jitter=0.4),
        SED_STANDARD + SED_COLLARS,
        AUDMETRIC_STANDARD,
    )
    add(
        "sparse_overlap",
        "sparse",
        # long events of few labels at a high rate: same-label events overlap
        sparse(
            rng,
            n_files=3,
            labels=LABELS[:2],
            rate=12,
            file_length=15.0,
            durations=(1.0, 5.0),
            truth_only_files=0,
            prediction_only_files=0,
        ),
        SED_STANDARD,
        AUDMETRIC_STANDARD[:3],
    )
    add(
        "long_events",
        "sparse",
        sparse(
            rng,
            n_files=4,
            labels=LABELS[:4],
            rate=5,
            file_length=40.0,
            durations=(0.5, 8.0),
            onset_jitter=0.03,
            offset_jitter=1.0,
            p_substitute=0.2,
        ),
        SED_DURATION,
        AUDMETRIC_DURATION,
    )
    add(
        "one_side_labels",
        "sparse",
        sparse(
            rng,
            n_files=4,
            labels=LABELS[:4],
            truth_labels=LABELS[:3],  # "dog" only predicted
            prediction_labels=[LABELS[0], LABELS[1], LABELS[3]],  # "car" only in truth
            rate=6,
            p_substitute=0.25,
        ),
        SED_STANDARD,
        AUDMETRIC_STANDARD[:4],
    )
    add(
        "dense_one_label",
        "dense",
        dense(rng, n_files=2, labels=LABELS[:1], n_events=25, n_insertions=2),
        SED_STANDARD + SED_COLLARS,
        AUDMETRIC_STANDARD[:3],
    )
    add(
        "dense_three_labels",
        "dense",
        dense(rng, n_files=2, labels=LABELS[:3], n_events=30, spacing=(0.02, 0.1)),
        SED_STANDARD + SED_COLLARS,
        AUDMETRIC_STANDARD[:3],
    )
    for k in range(6):
        add(
            f"dense_small_{k}",
            "dense",
            dense(
                rng,
                n_files=1,
                labels=LABELS[:2],
                n_events=int(rng.integers(8, 14)),
                spacing=(0.02, 0.12),
                onset_jitter=0.15,
                p_substitute=0.4,
            ),
            [(True, True, 0.2, 0.5), (True, False, 0.2, 0.5), (True, False, 0.5, 0.5)],
        )
    add(
        "empty_prediction",
        "sparse",
        _without(
            sparse(
                rng,
                n_files=3,
                labels=LABELS[:3],
                rate=4,
                truth_only_files=0,
                prediction_only_files=0,
            ),
            "prediction",
        ),
        [(True, True, 0.2, 0.5)],
        [(0.2, 0.2, None)],
    )
    add(
        "empty_truth",
        "sparse",
        _without(
            sparse(
                rng,
                n_files=3,
                labels=LABELS[:3],
                rate=4,
                truth_only_files=0,
                prediction_only_files=0,
            ),
            "truth",
        ),
        [(True, True, 0.2, 0.5)],
        [(0.2, 0.2, None)],
    )
    add("exact_copies", "hand", exact_copies(rng), (), AUDMETRIC_EXACT)
    add(
        "tie_break",
        "hand",
        tie_break(),
        [(True, False, 0.5, 0.5), (True, True, 0.5, 0.5)],
        [(0.5, None, None), (0.5, 0.5, None)],
    )
    return out


def _without(builder, side):
    setattr(builder, side, [])
    return builder


# -------------------------------------------------------------------------
# Checks on the inputs
# -------------------------------------------------------------------------


def check_margins(truth, prediction, sed_sets, audmetric_sets):
    """No tolerance is met exactly (or within 40 ns), in exact arithmetic."""
    rules = []  # (onset tolerance or None, offset tolerance or None, duration or None)
    for onset, offset, collar, pct in sed_sets:
        rules.append(
            (collar if onset else None, collar if offset else None, pct if offset else None)
        )
    for onset, offset, duration in audmetric_sets:
        rules.append((onset, offset if offset is not None else 0.0, duration))
    F = fractions.Fraction
    by_file = {}
    for file, start, end, _ in prediction:
        by_file.setdefault(file, []).append((F(start), F(end)))
    for file, start, end, _ in truth:
        ts, te = F(start), F(end)
        for ps, pe in by_file.get(file, []):
            for onset, offset, duration in rules:
                if onset is not None:
                    d = abs(ts - ps)
                    if d != 0:
                        assert abs(d - F(str(onset))) >= MIN_MARGIN, (file, start, ps)
                if offset is not None or duration is not None:
                    allowed = F(str(offset or 0.0))
                    if duration is not None:
                        allowed = max(allowed, F(str(duration)) * (te - ts))
                    d = abs(te - pe)
                    if d != 0:
                        assert abs(d - allowed) >= MIN_MARGIN, (file, end, pe)


def check_unique(rows, side):
    keys = [(f, s, e) for f, s, e, _ in rows]
    assert len(keys) == len(set(keys)), f"duplicate (file, start, end) in {side}"


# -------------------------------------------------------------------------
# References
# -------------------------------------------------------------------------


def nan_to_none(x):
    if isinstance(x, (list, tuple)):
        return [nan_to_none(v) for v in x]
    if isinstance(x, dict):
        return {k: nan_to_none(v) for k, v in x.items()}
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return None if math.isnan(x) else x
    if isinstance(x, (np.integer,)):
        return int(x)
    return x


def run_sed_eval(truth, prediction, labels, onset, offset, collar, pct, matching):
    import dcase_util
    import sed_eval

    metrics = sed_eval.sound_event.EventBasedMetrics(
        event_label_list=list(labels),
        evaluate_onset=onset,
        evaluate_offset=offset,
        t_collar=float(collar),
        percentage_of_length=float(pct),
        event_matching_type=matching,
    )
    files = sorted({r[0] for r in truth} | {r[0] for r in prediction})

    def events(rows, file):
        items = [
            {"filename": f, "event_label": lab, "onset": float(s), "offset": float(e)}
            for f, s, e, lab in rows
            if f == file
        ]
        items.sort(key=lambda item: (item["onset"], item["offset"]))
        return dcase_util.containers.MetaDataContainer(items)

    for file in files:
        metrics.evaluate(events(truth, file), events(prediction, file))
    results = metrics.results()
    cw = results["class_wise"]
    overall = results["overall"]
    average = results["class_wise_average"]
    return {
        "class_wise": {
            "precision": [cw[c]["f_measure"]["precision"] for c in labels],
            "recall": [cw[c]["f_measure"]["recall"] for c in labels],
            "f_measure": [cw[c]["f_measure"]["f_measure"] for c in labels],
            "error_rate": [cw[c]["error_rate"]["error_rate"] for c in labels],
            "deletion_rate": [cw[c]["error_rate"]["deletion_rate"] for c in labels],
            "insertion_rate": [cw[c]["error_rate"]["insertion_rate"] for c in labels],
            "Nref": [int(metrics.class_wise[c]["Nref"]) for c in labels],
            "Nsys": [int(metrics.class_wise[c]["Nsys"]) for c in labels],
            "Ntp": [int(metrics.class_wise[c]["Ntp"]) for c in labels],
        },
        "overall": {
            "precision": overall["f_measure"]["precision"],
            "recall": overall["f_measure"]["recall"],
            "f_measure": overall["f_measure"]["f_measure"],
            "error_rate": overall["error_rate"]["error_rate"],
            "substitution_rate": overall["error_rate"]["substitution_rate"],
            "deletion_rate": overall["error_rate"]["deletion_rate"],
            "insertion_rate": overall["error_rate"]["insertion_rate"],
            "Nref": int(metrics.overall["Nref"]),
            "Nsys": int(metrics.overall["Nsys"]),
            "Ntp": int(metrics.overall["Ntp"]),
            "Nsubs": int(metrics.overall["Nsubs"]),
        },
        "class_wise_average": {
            "precision": average["f_measure"]["precision"],
            "recall": average["f_measure"]["recall"],
            "f_measure": average["f_measure"]["f_measure"],
            "error_rate": average["error_rate"]["error_rate"],
            "deletion_rate": average["error_rate"]["deletion_rate"],
            "insertion_rate": average["error_rate"]["insertion_rate"],
        },
    }


def series(rows):
    files = [r[0] for r in rows]
    starts = [float(r[1]) for r in rows]
    ends = [float(r[2]) for r in rows]
    index = audformat.segmented_index(files, starts, ends)
    return pd.Series([r[3] for r in rows], index=index, dtype=object)


def run_audmetric(truth, prediction, labels, onset, offset, duration):
    import audmetric

    t, p = series(truth), series(prediction)
    tol = dict(onset_tolerance=onset, offset_tolerance=offset, duration_tolerance=duration)
    nan = float("nan")
    out = {}
    for key, zd, prop in (("zero", 0.0, False), ("nan", nan, True), ("one", 1.0, False)):
        out[f"precision_{key}"] = list(
            audmetric.event_precision_per_class(t, p, labels, zero_division=zd, **tol).values()
        )
        out[f"recall_{key}"] = list(
            audmetric.event_recall_per_class(t, p, labels, zero_division=zd, **tol).values()
        )
        out[f"fscore_{key}"] = list(
            audmetric.event_fscore_per_class(
                t, p, labels, zero_division=zd, propagate_nans=prop, **tol
            ).values()
        )
        out[f"uaf_{key}"] = audmetric.event_unweighted_average_fscore(
            t, p, labels, zero_division=zd, propagate_nans=prop, **tol
        )
    out["confusion_matrix"] = audmetric.event_confusion_matrix(t, p, labels, **tol)
    out["confusion_matrix_normalized"] = audmetric.event_confusion_matrix(
        t, p, labels, normalize=True, **tol
    )
    return out


# -------------------------------------------------------------------------
# Main
# -------------------------------------------------------------------------


def write_csv(rows, path, rng, shuffle=True):
    # unsorted rows for audeval
    order = rng.permutation(len(rows)) if shuffle else range(len(rows))
    with open(path, "w") as fp:
        fp.write("file,start,end,label\n")
        for k in order:
            fp.write(",".join(rows[k]) + "\n")


def main():
    import audmetric
    import sed_eval

    # references warn on 0 / 0 and on the mean of all-NaN values
    warnings.simplefilter("ignore", RuntimeWarning)
    rng = np.random.default_rng(SEED)
    os.makedirs(INPUTS, exist_ok=True)
    sed_cases = []
    audmetric_cases = []
    for sc in scenarios(rng):
        name = sc["name"]
        b = sc["builder"]
        check_unique(b.truth, "truth")
        check_unique(b.prediction, "prediction")
        check_margins(b.truth, b.prediction, sc["sed"], sc["audmetric"])
        write_csv(b.truth, os.path.join(INPUTS, f"{name}.truth.csv"), rng, b.shuffle)
        write_csv(b.prediction, os.path.join(INPUTS, f"{name}.prediction.csv"), rng, b.shuffle)
        union = sorted({r[3] for r in b.truth} | {r[3] for r in b.prediction})

        label_sets = [None]
        if sc["extra_label"]:
            label_sets.append(union + ["zebra"])  # a label without any event

        tp = {}
        for (onset, offset, collar, pct), matching, labels in itertools.product(
            sc["sed"], MATCHINGS, label_sets
        ):
            result = run_sed_eval(
                b.truth, b.prediction, labels or union, onset, offset, collar, pct, matching
            )
            tag = "on" * onset + "off" * offset
            case_id = f"{name}-{tag}-c{collar}-p{pct}-{matching}" + ("-labels" if labels else "")
            tp[(onset, offset, collar, pct, matching, bool(labels))] = result["overall"]["Ntp"]
            sed_cases.append(
                dict(
                    id=case_id,
                    scenario=name,
                    kind=sc["kind"],
                    evaluate_onset=onset,
                    evaluate_offset=offset,
                    t_collar=collar,
                    percentage_of_length=pct,
                    matching=matching,
                    labels=labels,
                    label_list=labels or union,
                    **result,
                )
            )
        if sc["kind"] == "dense":
            differ = [
                k
                for k in tp
                if k[4] == "optimal" and tp[k] != tp[k[:4] + ("greedy",) + k[5:]]
            ]
            print(f"{name}: greedy != optimal TP for {len(differ)} of {len(tp) // 2} sets")

        audmetric_label_sets = [None]
        if sc["label_order"]:
            audmetric_label_sets.append(list(reversed(union)))
        for (onset, offset, duration), labels in itertools.product(
            sc["audmetric"], audmetric_label_sets
        ):
            result = run_audmetric(b.truth, b.prediction, labels, onset, offset, duration)
            case_id = f"{name}-on{onset}-off{offset}-dur{duration}" + ("-labels" if labels else "")
            audmetric_cases.append(
                dict(
                    id=case_id,
                    scenario=name,
                    onset_tolerance=onset,
                    offset_tolerance=offset,
                    duration_tolerance=duration,
                    labels=labels,
                    label_list=labels or union,
                    **result,
                )
            )

    for path, reference, version, cases in (
        ("sed_eval.json", "sed_eval", sed_eval.__version__, sed_cases),
        ("audmetric.json", "audmetric", audmetric.__version__, audmetric_cases),
    ):
        with open(os.path.join(HERE, path), "w") as fp:
            header = dict(
                reference=reference, version=version, seed=SEED, generator="make_golden.py"
            )
            fp.write('{"meta":' + json.dumps(header, separators=(",", ":")) + ',"cases":[\n')
            fp.write(
                ",\n".join(
                    json.dumps(nan_to_none(case), separators=(",", ":"), allow_nan=False)
                    for case in cases
                )
            )
            fp.write("\n]}\n")
    print(f"{len(sed_cases)} sed_eval cases, {len(audmetric_cases)} audmetric cases")


if __name__ == "__main__":
    main()
