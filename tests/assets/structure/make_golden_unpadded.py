"""Golden values of mir_eval.segment.detection / deviation called on the rows as given.

``boundary_detection(..., pad=False)`` and ``boundary_deviation(..., pad=False)``
take the boundaries of the rows without ``mir_eval.segment.evaluate``'s padding
and cropping; with ``compat="mir_eval"`` they equal these calls
(issue 18 item 9).

Create the environment and run (from the repository root):

    python3 -m venv /tmp/mir_eval_env
    /tmp/mir_eval_env/bin/pip install "mir_eval==0.8.2" "numpy<2" scipy
    /tmp/mir_eval_env/bin/python tests/assets/structure/make_golden_unpadded.py

It reads ``truth.csv`` and ``prediction.csv`` (written by ``make_golden.py``)
and writes ``unpadded.csv``: one row per ``(file, trim)`` with
``Precision@0.5`` ... ``F-measure@3.0`` of ``mir_eval.segment.detection``
and ``Ref-to-est deviation``, ``Est-to-ref deviation`` of ``mir_eval.segment.deviation``.
"""

import csv
import os
import warnings

import numpy as np

import mir_eval


HERE = os.path.dirname(os.path.abspath(__file__))


def read(name):
    rows = {}
    with open(os.path.join(HERE, f"{name}.csv")) as fp:
        for row in csv.DictReader(fp):
            rows.setdefault(row["file"], []).append((float(row["start"]), float(row["end"])))
    return rows


def main():
    truth, prediction = read("truth"), read("prediction")
    files = sorted(set(truth) | set(prediction))
    out = []
    for file in files:
        ref = np.array(truth.get(file, []), dtype=float).reshape(-1, 2)
        est = np.array(prediction.get(file, []), dtype=float).reshape(-1, 2)
        for trim in (False, True):
            row = {"file": file, "trim": trim}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for window in (0.5, 3.0):
                    p, r, f = mir_eval.segment.detection(ref, est, window=window, trim=trim)
                    row[f"Precision@{window}"] = p
                    row[f"Recall@{window}"] = r
                    row[f"F-measure@{window}"] = f
                t_to_p, p_to_t = mir_eval.segment.deviation(ref, est, trim=trim)
            row["Ref-to-est deviation"] = t_to_p
            row["Est-to-ref deviation"] = p_to_t
            out.append(row)
    with open(os.path.join(HERE, "unpadded.csv"), "w", newline="") as fp:
        writer = csv.DictWriter(fp, fieldnames=list(out[0]))
        writer.writeheader()
        for row in out:
            writer.writerow({k: repr(v) if isinstance(v, float) else v for k, v in row.items()})


if __name__ == "__main__":
    main()
