"""Golden values of median filtering, piPSDS and error rates from sed_scores_eval 0.0.4 (issue 29).

sed_scores_eval 0.0.4 needs pandas < 3 and numpy < 2, so this script runs in its own venv::

    python3 -m venv /work/venvs/pipsds-sse
    /work/venvs/pipsds-sse/bin/pip install "sed_scores_eval==0.0.4" "numpy<2" "pandas<3"
    /work/venvs/pipsds-sse/bin/python tests/assets/scores/make_pipsds_golden.py

Data:

* ``random``: the data of ``make_golden.py`` next to this script
  (``scores.csv``, ``truth.csv``, ``durations.csv``: 7 files, 64 ms frames, 3 classes);
* ``desed``: the first 60 files of the DESED validation truth
  (``/work/shared/fixtures/desed``) with scores at 64 ms frames made from the truth
  (a smoothed, noisy indicator, 3 decimals), written to ``desed_scores.csv.gz``
  with the truth rows of those files in ``desed_truth.csv``.

Writes ``pipsds_golden.json``: the median filter of every class at the frame centres
(``medfilt``, random data; ``medfilt_even``: lengths that are even multiples of the frame length),
``median_filter_independent_psds`` (value and pi-PSD-ROC; ``pipsds_even``: with such lengths) and the
intersection- and collar-based error rate curves and best error rates.
"""

import json
import os

import numpy as np
import pandas as pd

import sed_scores_eval
from sed_scores_eval.base_modules.postprocessing import medfilt
from sed_scores_eval.base_modules.scores import create_score_dataframe

HERE = os.path.dirname(os.path.abspath(__file__))
DESED = "/work/shared/fixtures/desed"
HOP = 0.064
LENGTHS = [0.0, 0.1, 0.192, 0.3, 0.45, 1.0]
"""Filter lengths on 64 ms frames: below one frame, an odd multiple (3 frames),
windows whose outer frames count less or more than half."""
EVEN = [0.128, 0.256, 0.512, 1.024]
"""Even multiples of the 64 ms frames (2, 4, 8, 16 frames): sed_scores_eval's state at the ties."""


def as_list(x):
    return np.asarray(x, dtype=float).tolist()


def read_random():
    frame = pd.read_csv(os.path.join(HERE, "scores.csv"))
    classes = [c for c in frame.columns if c not in ("file", "start", "end")]
    truth = pd.read_csv(os.path.join(HERE, "truth.csv"))
    durations = pd.read_csv(os.path.join(HERE, "durations.csv"))
    return frame, classes, truth, dict(zip(durations["file"], durations["duration"]))


def make_desed(n_files=60, seed=3):
    truth = pd.read_csv(os.path.join(DESED, "validation.tsv"), sep="\t").dropna()
    files = sorted(truth["filename"].unique())[:n_files]
    truth = truth[truth["filename"].isin(files)]
    classes = sorted(pd.read_csv(os.path.join(DESED, "validation.tsv"), sep="\t").dropna()["event_label"].unique())
    rng = np.random.default_rng(seed)
    n = 157
    kernel = np.hanning(5)
    kernel /= kernel.sum()
    rows = []
    for file in files:
        active = np.zeros((n, len(classes)))
        for _, row in truth[truth["filename"] == file].iterrows():
            c = classes.index(row["event_label"])
            active[int(row["onset"] / HOP): max(int(row["offset"] / HOP), int(row["onset"] / HOP) + 1), c] = 1
        raw = 1.6 * active + rng.normal(0, 1.0, active.shape) - 1.1
        smooth = np.apply_along_axis(lambda x: np.convolve(x, kernel, mode="same"), 0, raw)
        values = np.round(1 / (1 + np.exp(-3 * smooth)), 3)
        part = pd.DataFrame(values, columns=classes)
        part.insert(0, "end", np.round((np.arange(n) + 1) * HOP, 6))
        part.insert(0, "start", np.round(np.arange(n) * HOP, 6))
        part.insert(0, "file", file)
        rows.append(part)
    frame = pd.concat(rows, ignore_index=True)
    frame.to_csv(os.path.join(HERE, "desed_scores.csv.gz"), index=False, float_format="%.6f")
    end = n * HOP
    truth = truth.assign(offset=truth["offset"].clip(upper=end))
    truth = truth.rename(columns={"filename": "file", "onset": "start", "offset": "end", "event_label": "label"})
    truth[["file", "start", "end", "label"]].to_csv(os.path.join(HERE, "desed_truth.csv"), index=False)
    durations = {file: round(end, 6) for file in files}
    return frame, classes, truth, durations


def to_sse(frame, classes, truth, durations):
    scores = {}
    for file, part in frame.groupby("file", sort=True):
        timestamps = np.append(part["start"].to_numpy(), part["end"].to_numpy()[-1])
        scores[file] = create_score_dataframe(part[classes].to_numpy(), timestamps, classes)
    gt = {file: [] for file in scores}
    for row in truth.itertuples(index=False):
        gt[row.file].append((float(row.start), float(row.end), row.label))
    return scores, gt, {f: float(durations[f]) for f in scores}


def at_centres(filtered, part):
    """sed_scores_eval's filtered scores read at the input's frame centres."""
    t = np.append(filtered["onset"].to_numpy(), filtered["offset"].to_numpy()[-1])
    centre = (part["start"].to_numpy() + part["end"].to_numpy()) / 2
    idx = np.searchsorted(t, centre, side="right") - 1
    classes = [c for c in filtered.columns if c not in ("onset", "offset")]
    return filtered[classes].to_numpy()[idx]


def medfilt_cases(frame, classes, scores):
    out = []
    lengths = LENGTHS + [dict(zip(classes, [0.3, 0.1, 1.0][: len(classes)] + [0.45] * (len(classes) - 3)))]
    for length in lengths:
        arg = np.array([length[c] for c in classes]) if isinstance(length, dict) else length
        filtered = medfilt(scores, filter_length_in_sec=arg)
        values = {}
        for file, part in frame.groupby("file", sort=True):
            values[file] = at_centres(filtered[file], part).tolist()
        out.append({"length": length, "values": values})
    return out


def medfilt_even_cases(frame, classes, scores):
    """Even multiples of the frame length (2, 4, 8, 16 frames), one of them per class beside others."""
    out = []
    mixed = dict(zip(classes, [0.128, 0.192, 0.512][: len(classes)] + [0.256] * (len(classes) - 3)))
    for length in EVEN + [mixed]:
        arg = np.array([length[c] for c in classes]) if isinstance(length, dict) else length
        filtered = medfilt(scores, filter_length_in_sec=arg)
        values = {}
        for file, part in frame.groupby("file", sort=True):
            values[file] = at_centres(filtered[file], part).tolist()
        out.append({"length": length, "values": values})
    return out


def pipsds_cases(scores, gt, durations, n_classes, settings=None):
    out = []
    settings = settings or [
        (0.7, 0.7, None, 0.0, 0.0, 100.0, LENGTHS),
        (0.7, 0.7, None, 0.0, 1.0, 100.0, [0.0, 0.3, 1.0]),
        (0.1, 0.1, 0.3, 0.5, 1 / np.sqrt(max(n_classes - 1, 1)), 100.0, [0.1, 0.45]),
        (0.5, 0.3, None, 0.0, 0.0, 300.0, [0.192, 0.3]),
    ]
    for dtc, gtc, cttc, alpha_ct, alpha_st, max_efpr, lengths in settings:
        value, _, (etpr, efpr), *_ = sed_scores_eval.intersection_based.median_filter_independent_psds(
            scores=scores, ground_truth=gt, audio_durations=durations,
            median_filter_lengths_in_sec=lengths, dtc_threshold=dtc, gtc_threshold=gtc,
            cttc_threshold=cttc, alpha_ct=alpha_ct, alpha_st=alpha_st, max_efpr=max_efpr,
        )
        single = [
            sed_scores_eval.intersection_based.psds(
                scores=medfilt(scores, filter_length_in_sec=length), ground_truth=gt,
                audio_durations=durations, dtc_threshold=dtc, gtc_threshold=gtc,
                cttc_threshold=cttc, alpha_ct=alpha_ct, alpha_st=alpha_st, max_efpr=max_efpr,
            )[0]
            for length in lengths
        ]
        out.append({
            "dtc": dtc, "gtc": gtc, "cttc": cttc, "alpha_ct": alpha_ct, "alpha_st": float(alpha_st),
            "max_efpr": max_efpr, "lengths": lengths, "pipsds": float(value),
            "etpr": as_list(etpr), "efpr": as_list(efpr), "psds": [float(v) for v in single],
        })
    return out


def error_rate_cases(scores, gt):
    out = []
    for criterion, kwargs in [
        ("intersection", dict(dtc_threshold=0.7, gtc_threshold=0.7)),
        ("intersection", dict(dtc_threshold=0.5, gtc_threshold=0.3)),
        ("collar", dict(onset_collar=0.2, offset_collar=0.2, offset_collar_rate=0.2)),
        ("collar", dict(onset_collar=0.5, offset_collar=0.3, offset_collar_rate=0.0)),
    ]:
        module = getattr(sed_scores_eval, f"{criterion}_based")
        curves = module.error_rate_curve(scores=scores, ground_truth=gt, **kwargs)
        er, ir, dr, thresholds, _ = module.best_error_rate(scores=scores, ground_truth=gt, **kwargs)
        out.append({
            "criterion": criterion, "options": kwargs,
            "curve": {
                cls: {"er": as_list(e), "ir": as_list(i), "dr": as_list(d), "threshold": as_list(s)}
                for cls, (e, i, d, s, _) in curves.items()
            },
            "best": {
                "er": {k: float(v) for k, v in er.items()},
                "ir": {k: float(v) for k, v in ir.items()},
                "dr": {k: float(v) for k, v in dr.items()},
                "threshold": {k: float(v) for k, v in thresholds.items()},
            },
        })
    return out


def main():
    golden = {"version": sed_scores_eval.__version__ if hasattr(sed_scores_eval, "__version__") else "0.0.4"}
    for name, data in [("random", read_random()), ("desed", make_desed())]:
        frame, classes, truth, durations = data
        scores, gt, durations = to_sse(frame, classes, truth, durations)
        golden[name] = {
            "pipsds": pipsds_cases(scores, gt, durations, len(classes)),
            "error_rate": error_rate_cases(scores, gt),
        }
        golden[name]["pipsds_even"] = pipsds_cases(scores, gt, durations, len(classes), settings=[
            (0.5, 0.3, None, 0.0, 0.0, 300.0, [0.0, 0.128, 0.256]),
            (0.3, 0.3, None, 0.0, 1.0, 1000.0, [0.128, 0.3, 0.512, 1.024]),
            (0.1, 0.1, 0.3, 0.5, 1 / np.sqrt(max(len(classes) - 1, 1)), 100.0, [0.256, 0.45]),
        ])
        if name == "random":  # DESED's filtered scores are checked through piPSDS
            golden[name]["medfilt"] = medfilt_cases(frame, classes, scores)
            golden[name]["medfilt_even"] = medfilt_even_cases(frame, classes, scores)
        else:  # DESED's curves through the best error rates
            for case in golden[name]["error_rate"]:
                del case["curve"]
    with open(os.path.join(HERE, "pipsds_golden.json"), "w") as f:
        json.dump(golden, f)


if __name__ == "__main__":
    main()
