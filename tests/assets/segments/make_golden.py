"""Golden values for the segment-based metrics from sed_eval.

Run by hand with the reference environment (sed_eval 0.2.1, dcase_util):

    /opt/refenv/bin/python tests/assets/segments/make_golden.py

It writes, next to this script,

* ``events.csv``: the inputs (case, side, file, start, end, label),
  times as integer nanoseconds;
* ``durations.csv``: the duration (ns) of every file of every case;
* ``golden.json``: sed_eval's SegmentBasedMetrics results
  (counts, overall, class-wise and class-wise average metrics)
  for every case and setting
  (time resolution; evaluated length from the latest offset,
  from the durations of all files, or of every other file).

Times are drawn as decimal seconds with 0 to 6 decimals,
converted exactly to integer nanoseconds
(``pd.to_timedelta(x, unit="s")`` truncates and can lose 1 ns, e.g. 3.513388 s),
and sed_eval is fed ``ns / 1e9``, which equals the decimal float
(checked): the float seconds that audeval's ``compat="sed_eval"`` uses.
The tests (``tests/test_segments.py``) only read these files.
"""

import decimal
import json
import os

import numpy as np
import pandas as pd
import sed_eval


HERE = os.path.dirname(os.path.abspath(__file__))
LABELS = ["bird", "car", "dog", "music", "speech"]
RESOLUTIONS = [1.0, 0.1, 0.01]
DURATION_MODES = ["latest", "all", "partial"]


def random_case(seed, n_files, max_events):
    """Random polyphonic events, times with 0 to 6 decimals."""
    rng = np.random.default_rng(seed)
    rows = []
    durations = {}
    for f in range(n_files):
        file = f"s{seed}_f{f:02d}"
        duration = round(float(rng.uniform(3, 30)), int(rng.choice([0, 1, 2, 3])))
        durations[file] = duration
        # some files only in truth or only in prediction
        sides = ["truth", "prediction"]
        if f % 7 == 3:
            sides = ["truth"]
        elif f % 7 == 5:
            sides = ["prediction"]
        for side in sides:
            for _ in range(int(rng.integers(1, max_events + 1))):
                decimals = int(rng.choice([0, 1, 2, 3, 6]))
                onset = round(float(rng.uniform(0, duration * 1.05)), decimals)
                length = round(float(rng.exponential(3.0)), decimals)
                if rng.random() < 0.05:
                    length = 0.0  # zero-length events
                offset = round(onset + length, decimals)
                label = LABELS[int(rng.integers(len(LABELS)))]
                rows.append((side, file, onset, offset, label))
            if rng.random() < 0.5 and rows:
                # an explicit same-label overlap
                side_, file_, onset, offset, label = rows[-1]
                if side_ == side and file_ == file:
                    start = round(onset + (offset - onset) / 3, 3)
                    rows.append((side, file, start, round(offset + 1.5, 6), label))
    return rows, durations


def edge_case():
    """Hand-made: grid boundaries, float binning, zero length, beyond the duration."""
    rows = [
        # events exactly on 1 s / 0.1 s boundaries
        ("truth", "e1", 0.0, 1.0, "speech"),
        ("truth", "e1", 1.0, 2.0, "music"),
        ("prediction", "e1", 0.0, 2.0, "speech"),
        ("prediction", "e1", 2.0, 3.0, "music"),
        # float binning: 0.3 / 0.1 = 2.9999999999999996, 0.7 / 0.1 = 6.999999999999999
        ("truth", "e2", 0.3, 0.7, "dog"),
        ("prediction", "e2", 0.7, 1.1, "dog"),
        ("truth", "e2", 2.3, 2.9, "bird"),
        ("prediction", "e2", 0.6, 2.3, "bird"),
        # zero-length events on and off the grid
        ("truth", "e3", 1.0, 1.0, "car"),
        ("prediction", "e3", 1.25, 1.25, "car"),
        ("truth", "e3", 0.0, 4.5, "music"),
        # overlapping events of one label and a long event beyond the duration
        ("truth", "e4", 0.0, 3.0, "speech"),
        ("truth", "e4", 1.5, 4.0, "speech"),
        ("prediction", "e4", 0.5, 12.0, "speech"),
        ("prediction", "e4", 9.0, 11.0, "dog"),
        # a file with prediction only, a file with truth only
        ("prediction", "e5", 0.2, 0.9, "bird"),
        ("truth", "e6", 3.05, 5.55, "car"),
    ]
    durations = {"e1": 3.0, "e2": 3.0, "e3": 5.0, "e4": 6.5, "e5": 2.0, "e6": 4.0}
    return rows, durations


def absent_case():
    """Labels without truth (sed_eval divides by eps) or without any event."""
    rows = [
        ("truth", "a1", 0.0, 2.5, "speech"),
        ("prediction", "a1", 0.5, 2.0, "speech"),
        ("prediction", "a1", 1.0, 3.0, "bird"),
        ("truth", "a2", 0.25, 1.0, "speech"),
        ("prediction", "a2", 1.5, 2.5, "car"),
    ]
    durations = {"a1": 4.0, "a2": 3.0}
    return rows, durations


def exact_ns(seconds):
    """Decimal seconds (up to 9 decimals) as exact integer nanoseconds."""
    value = decimal.Decimal(repr(float(seconds))) * 10**9
    assert value == int(value), f"{seconds!r} has more than 9 decimals"
    ns = int(value)
    assert ns / 1e9 == float(seconds)
    return ns


def run_sed_eval(rows, durations, resolution, duration_mode):
    files = sorted({r[1] for r in rows})
    metrics = sed_eval.sound_event.SegmentBasedMetrics(
        event_label_list=LABELS, time_resolution=resolution
    )
    for i, file in enumerate(files):
        truth = [
            {"event_label": r[4], "onset": r[2] / 1e9, "offset": r[3] / 1e9, "filename": file}
            for r in rows
            if r[1] == file and r[0] == "truth"
        ]
        prediction = [
            {"event_label": r[4], "onset": r[2] / 1e9, "offset": r[3] / 1e9, "filename": file}
            for r in rows
            if r[1] == file and r[0] == "prediction"
        ]
        if duration_mode == "all" or (duration_mode == "partial" and i % 2 == 0):
            length = durations[file] / 1e9
        else:
            length = None
        metrics.evaluate(truth, prediction, evaluated_length_seconds=length)
    return {
        "counts": {k: float(v) for k, v in metrics.overall.items()},
        "class_counts": {
            label: {k: float(v) for k, v in metrics.class_wise[label].items()} for label in LABELS
        },
        "results": metrics.results(),
    }


def to_jsonable(value):
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (np.floating, float)):
        return float(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    return value


def main():
    cases = {
        "edge": edge_case(),
        "random1": random_case(1, 14, 8),
        "random2": random_case(2, 10, 15),
        "random3": random_case(3, 21, 4),
        "absent": absent_case(),
    }
    event_rows = []
    duration_rows = []
    golden = {"sed_eval": sed_eval.__version__, "labels": LABELS, "cases": {}}
    for name, (rows, durations) in cases.items():
        rows = [(side, file, exact_ns(a), exact_ns(b), label) for side, file, a, b, label in rows]
        durations = {file: exact_ns(d) for file, d in durations.items()}
        event_rows += [(name, *r) for r in rows]
        duration_rows += [(name, f, d) for f, d in durations.items()]
        settings = []
        for resolution in RESOLUTIONS:
            for mode in DURATION_MODES:
                result = run_sed_eval(rows, durations, resolution, mode)
                settings.append({"time_resolution": resolution, "durations": mode, **result})
        golden["cases"][name] = settings
    pd.DataFrame(event_rows, columns=["case", "side", "file", "start", "end", "label"]).to_csv(
        os.path.join(HERE, "events.csv"), index=False
    )
    pd.DataFrame(duration_rows, columns=["case", "file", "duration"]).to_csv(
        os.path.join(HERE, "durations.csv"), index=False
    )
    with open(os.path.join(HERE, "golden.json"), "w") as fp:
        json.dump(to_jsonable(golden), fp, indent=1, sort_keys=True, allow_nan=True)
    back = pd.read_csv(os.path.join(HERE, "events.csv"))
    assert back["start"].dtype == np.int64 and back["end"].dtype == np.int64
    print(f"{len(event_rows)} events, {len(duration_rows)} files written to {HERE}")


if __name__ == "__main__":
    main()
