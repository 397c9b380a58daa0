"""Golden values of ``compat="sed_eval"`` for the event-based metrics.

Run by hand (not in CI) in a venv with sed_eval 0.2.1::

    python3 -m venv /work/venvs/h10
    /work/venvs/h10/bin/pip install sed_eval==0.2.1 'setuptools<81' 'numpy<2' 'pandas<3'
    /work/venvs/h10/bin/python tests/assets/events/make_golden_compat.py

It is deterministic (fixed seed), needs neither audformat nor audeval,
and writes ``sed_eval_compat.json`` next to this script:
the events of every scenario (``[file, onset_ms, offset_ms, label]``,
integer milliseconds) and, per parameter set,
the results of ``sed_eval.sound_event.EventBasedMetrics``
evaluated file by file over the union of files,
each file's events sorted by (onset, offset).
sed_eval receives the times as ``ms / 1000`` (float64 seconds,
the same values as ``Timedelta.total_seconds()``).

Unlike ``make_golden.py`` (whose times never meet a tolerance exactly),
these times lie on a 1 ms grid, predictions often on a 64 ms grid
or at exactly a tolerance away from the truth,
so many pairs meet a tolerance *exactly*:
there float64 decides ``|2.2 - 2.0| <= 0.2`` as false,
and the exact rule of audeval as true.
``exact_ties`` counts, per parameter set, the same-file pairs
whose onset or offset difference equals its tolerance exactly.

If ``/work/shared/fixtures/desed`` exists (DESED validation set and the
DCASE 2021 baseline's predictions at threshold 0.5, see its ``NOTICE.md``),
the entry ``desed`` holds sed_eval's results there
(collar 0.2 s, 20 % of length; evaluated over the reference files,
as the DCASE baseline does; every predicted file is one of them).
"""

from __future__ import annotations

import json
import os

import numpy as np


SEED = 20261124
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "sed_eval_compat.json")
DESED = "/work/shared/fixtures/desed"
LABELS = ["alarm", "dog", "speech"]

# (evaluate_onset, evaluate_offset, t_collar, percentage_of_length)
PARAMETERS = [
    (True, True, 0.2, 0.2),
    (True, True, 0.2, 0.5),
    (True, False, 0.2, 0.2),
    (False, True, 0.2, 0.2),
    (True, True, 0.064, 0.2),
    (True, True, 0.1, 0.0),
]
MATCHINGS = ["optimal", "greedy"]


def shifted(rng, truth, grid):
    """Predictions near the truth events: exact tolerance offsets, grid snapping, noise."""
    out = []
    for file, on, off, label in truth:
        r = rng.random()
        if r < 0.1:
            continue
        steps = [-200, 200, -100, 100, -64, 64, 0, 0]
        d_on = int(rng.choice(steps)) if rng.random() < 0.7 else int(rng.integers(-300, 301))
        d_off = int(rng.choice(steps)) if rng.random() < 0.7 else int(rng.integers(-300, 301))
        length = off - on
        if rng.random() < 0.2:  # meet percentage_of_length * length exactly (0.2 or 0.5)
            d_off = int(rng.choice([1, -1])) * (length // 5 if rng.random() < 0.5 else length // 2)
        p_on, p_off = on + d_on, off + d_off
        if grid:
            p_on, p_off = grid * round(p_on / grid), grid * round(p_off / grid)
        p_on = max(p_on, 0)
        if p_off <= p_on:
            p_off = p_on + grid if grid else p_on + 50
        if rng.random() < 0.15:
            label = str(rng.choice(LABELS))
        out.append([file, int(p_on), int(p_off), label])
    for _ in range(len(truth) // 10):  # insertions
        file = f"f{int(rng.integers(0, 8))}"
        on = int(rng.integers(0, 9000))
        if grid:
            on = grid * (on // grid)
        out.append([file, on, on + int(rng.integers(1, 20)) * (grid or 50), str(rng.choice(LABELS))])
    return out


def make_truth(rng, n_files, per_file, length_grid):
    truth = []
    for f in range(n_files):
        for _ in range(per_file):
            on = int(rng.integers(0, 9000))
            if length_grid:
                on = length_grid * (on // length_grid)
            length = int(rng.integers(1, 40)) * (length_grid or 50)
            truth.append([f"f{f}", on, on + length, str(rng.choice(LABELS))])
    return truth


def scenarios(rng):
    out = {}
    truth = make_truth(rng, 8, 12, 0)
    out["ms_grid"] = (truth, shifted(rng, truth, 0))
    truth = make_truth(rng, 8, 12, 0)
    out["pred_64ms"] = (truth, shifted(rng, truth, 64))
    truth = make_truth(rng, 8, 12, 100)
    out["both_100ms"] = (truth, shifted(rng, truth, 100))
    return out


def exact_ties(truth, prediction, onset, offset, collar, pct):
    """Same-file pairs whose difference meets a tolerance exactly (integer ms)."""
    n = 0
    for f, t_on, t_off, _ in truth:
        for g, p_on, p_off, _ in prediction:
            if f != g:
                continue
            c = round(collar * 1000)
            if onset and abs(t_on - p_on) == c:
                n += 1
            elif offset and abs(t_off - p_off) * 1000 == max(c * 1000, round(pct * 1000) * (t_off - t_on)):
                n += 1
    return n


def read_tsv(path):
    """Files and events of a DESED table (times as float seconds, as dcase_util reads them)."""
    import csv

    with open(path) as fp:
        rows = list(csv.DictReader(fp, delimiter="\t"))
    events = [
        {"filename": r["filename"], "event_label": r["event_label"],
         "onset": float(r["onset"]), "offset": float(r["offset"])}
        for r in rows
        if r["onset"]
    ]
    return {r["filename"] for r in rows}, events


def run_desed():
    import dcase_util
    import sed_eval

    files, truth = read_tsv(os.path.join(DESED, "validation.tsv"))
    _, prediction = read_tsv(os.path.join(DESED, "student_pred05_clean.tsv"))
    labels = sorted({e["event_label"] for e in truth})
    out = {}
    for matching in MATCHINGS:
        metrics = sed_eval.sound_event.EventBasedMetrics(
            event_label_list=labels, t_collar=0.2, percentage_of_length=0.2,
            event_matching_type=matching,
        )
        for file in sorted(files):
            metrics.evaluate(
                dcase_util.containers.MetaDataContainer([e for e in truth if e["filename"] == file]),
                dcase_util.containers.MetaDataContainer([e for e in prediction if e["filename"] == file]),
            )
        results = metrics.results()
        out[matching] = {
            "f_measure": results["overall"]["f_measure"]["f_measure"],
            "error_rate": results["overall"]["error_rate"]["error_rate"],
            **{k: int(metrics.overall[k]) for k in ("Nref", "Nsys", "Ntp", "Nsubs")},
        }
    return out


def run_sed_eval(truth, prediction, onset, offset, collar, pct, matching):
    import dcase_util
    import sed_eval

    metrics = sed_eval.sound_event.EventBasedMetrics(
        event_label_list=LABELS,
        evaluate_onset=onset,
        evaluate_offset=offset,
        t_collar=collar,
        percentage_of_length=pct,
        event_matching_type=matching,
    )

    def events(rows, file):
        items = [
            {"filename": f, "event_label": lab, "onset": s / 1000, "offset": e / 1000}
            for f, s, e, lab in rows
            if f == file
        ]
        items.sort(key=lambda item: (item["onset"], item["offset"]))
        return dcase_util.containers.MetaDataContainer(items)

    for file in sorted({r[0] for r in truth} | {r[0] for r in prediction}):
        metrics.evaluate(events(truth, file), events(prediction, file))
    results = metrics.results()
    cw = results["class_wise"]
    return {
        "overall": {
            "f_measure": results["overall"]["f_measure"]["f_measure"],
            "error_rate": results["overall"]["error_rate"]["error_rate"],
            "Nref": int(metrics.overall["Nref"]),
            "Nsys": int(metrics.overall["Nsys"]),
            "Ntp": int(metrics.overall["Ntp"]),
            "Nsubs": int(metrics.overall["Nsubs"]),
        },
        "class_wise": {
            "f_measure": [cw[c]["f_measure"]["f_measure"] for c in LABELS],
            "error_rate": [cw[c]["error_rate"]["error_rate"] for c in LABELS],
            "Ntp": [int(metrics.class_wise[c]["Ntp"]) for c in LABELS],
        },
    }


def main():
    import sed_eval

    rng = np.random.default_rng(SEED)
    out = {"sed_eval": sed_eval.__version__, "labels": LABELS, "scenarios": {}}
    for name, (truth, prediction) in scenarios(rng).items():
        cases = []
        for onset, offset, collar, pct in PARAMETERS:
            ties = exact_ties(truth, prediction, onset, offset, collar, pct)
            for matching in MATCHINGS:
                result = run_sed_eval(truth, prediction, onset, offset, collar, pct, matching)
                cases.append(
                    {
                        "evaluate_onset": onset,
                        "evaluate_offset": offset,
                        "t_collar": collar,
                        "percentage_of_length": pct,
                        "matching": matching,
                        "exact_ties": ties,
                        **result,
                    }
                )
        out["scenarios"][name] = {"truth": truth, "prediction": prediction, "cases": cases}
    if os.path.isdir(DESED):
        out["desed"] = run_desed()
    with open(OUT, "w") as fp:
        json.dump(out, fp, indent=1)
        fp.write("\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
