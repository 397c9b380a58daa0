"""Golden values of score-based metrics from sed_scores_eval (and psds_eval).

sed_scores_eval 0.0.4 and psds_eval 0.5.3 need pandas < 3 and numpy < 2,
so this script runs in its own venv, never in audeval's::

    python3 -m venv /work/venvs/h3
    /work/venvs/h3/bin/pip install "pandas<3" "numpy<2" sed_scores_eval==0.0.4 psds_eval==0.5.3
    /work/venvs/h3/bin/python tests/assets/scores/make_golden.py

It writes, next to itself, random data
(``scores.csv``: file, start, end and one column per class, seconds;
``truth.csv``: file, start, end, label; ``durations.csv``: file, duration)
and ``golden.json`` with sed_scores_eval's results on it
(its default 6-decimal rounding of times, i.e. audeval's ``compat="sed_scores_eval"``).
The data: 7 files of 4-12 s, frames of 64 ms, 3 classes,
scores rounded to 2 decimals in one class (many ties),
random-walk scores in the others; truth events of a class never touch
(sed_scores_eval rejects touching events); one file has no truth at all.
"""

import json
import os

import numpy as np
import pandas as pd

import sed_scores_eval
from sed_scores_eval.base_modules.precision_recall import (
    average_precision_from_intermediate_statistics,
)
from sed_scores_eval.base_modules.roc import roc_curve_from_intermediate_statistics
from sed_scores_eval.base_modules.scores import create_score_dataframe

HERE = os.path.dirname(os.path.abspath(__file__))
CLASSES = ["alarm", "dog", "speech"]
HOP = 0.064


def make_data(seed=1):
    rng = np.random.default_rng(seed)
    scores, truth, durations = {}, [], {}
    for f in range(7):
        file = f"file{f}"
        n = int(rng.integers(60, 190))
        timestamps = np.round(np.arange(n + 1) * HOP, 6)
        values = np.empty((n, len(CLASSES)))
        values[:, 0] = np.round(rng.random(n), 2)
        for c in (1, 2):
            walk = np.cumsum(rng.normal(0, 0.15, n))
            values[:, c] = 1 / (1 + np.exp(-walk + rng.normal(0, 0.3)))
        scores[file] = (timestamps, values)
        durations[file] = float(timestamps[-1])
        if f == 3:
            continue  # a file without truth
        for label in CLASSES:
            t = float(rng.uniform(0, 1.0))
            while True:
                length = float(rng.uniform(0.1, 2.5))
                if t + length > timestamps[-1]:
                    break
                truth.append((file, round(t, 3), round(t + length, 3), label))
                t += length + float(rng.uniform(0.05, 3.0))
    return scores, truth, durations


def write_data(scores, truth, durations):
    rows = []
    for file, (timestamps, values) in scores.items():
        frame = pd.DataFrame(values, columns=CLASSES)
        frame.insert(0, "end", timestamps[1:])
        frame.insert(0, "start", timestamps[:-1])
        frame.insert(0, "file", file)
        rows.append(frame)
    pd.concat(rows).to_csv(os.path.join(HERE, "scores.csv"), index=False, float_format="%.17g")
    pd.DataFrame(truth, columns=["file", "start", "end", "label"]).to_csv(
        os.path.join(HERE, "truth.csv"), index=False
    )
    pd.Series(durations, name="duration").rename_axis("file").to_csv(
        os.path.join(HERE, "durations.csv")
    )


def as_list(x):
    return np.asarray(x, dtype=float).tolist()


def intersection(sse_scores, gt, durations):
    out = {"statistics": [], "psds": [], "fscore": []}
    for dtc, gtc, cttc in [(0.7, 0.7, 0.3), (0.1, 0.1, 0.3), (0.5, 0.3, 0.2)]:
        stats, _ = sed_scores_eval.intersection_based.accumulated_intermediate_statistics(
            scores=sse_scores, ground_truth=gt, dtc_threshold=dtc, gtc_threshold=gtc,
            cttc_threshold=cttc,
        )
        per_class = {}
        for cls, (thresholds, s) in stats.items():
            per_class[cls] = {
                "threshold": as_list(thresholds), "tp": as_list(s["tps"]), "fp": as_list(s["fps"]),
                "ct": {o: as_list(v) for o, v in s["cts"].items()},
                "n_truth": int(s["n_ref"]), "truth_duration": float(s["t_ref"]),
            }
        ap = average_precision_from_intermediate_statistics(
            {cls: (thr, s) for cls, (thr, s) in stats.items()}
        )[0]
        out["statistics"].append({
            "dtc": dtc, "gtc": gtc, "cttc": cttc, "per_class": per_class,
            "average_precision": {k: float(v) for k, v in ap.items()},
        })
    for dtc, gtc, cttc, alpha_ct, alpha_st, max_efpr in [
        (0.7, 0.7, None, 0.0, 1.0, 100.0),
        (0.1, 0.1, 0.3, 0.5, 1.0, 100.0),
        (0.5, 0.5, None, 0.0, 0.0, 50.0),
        (0.7, 0.7, 0.3, 1.0, 0.5, 300.0),
    ]:
        value, per_class, (etpr, efpr), _ = sed_scores_eval.intersection_based.psds(
            scores=sse_scores, ground_truth=gt, audio_durations=durations,
            dtc_threshold=dtc, gtc_threshold=gtc, cttc_threshold=cttc,
            alpha_ct=alpha_ct, alpha_st=alpha_st, max_efpr=max_efpr,
        )
        out["psds"].append({
            "dtc": dtc, "gtc": gtc, "cttc": cttc, "alpha_ct": alpha_ct, "alpha_st": alpha_st,
            "max_efpr": max_efpr, "psds": float(value),
            "per_class": {k: float(v) for k, v in per_class.items()},
            "etpr": as_list(etpr), "efpr": as_list(efpr),
        })
    for dtc, gtc in [(0.7, 0.7), (0.5, 0.5)]:
        f, p, r, thr, _ = sed_scores_eval.intersection_based.best_fscore(
            scores=sse_scores, ground_truth=gt, dtc_threshold=dtc, gtc_threshold=gtc,
        )
        fc, pc, rc, thrc, _ = sed_scores_eval.intersection_based.best_fscore(
            scores=sse_scores, ground_truth=gt, dtc_threshold=dtc, gtc_threshold=gtc,
            min_precision=0.5, min_recall=0.3,
        )
        f5, p5, r5, _ = sed_scores_eval.intersection_based.fscore(
            scores=sse_scores, ground_truth=gt, threshold=0.5,
            dtc_threshold=dtc, gtc_threshold=gtc,
        )
        out["fscore"].append({
            "dtc": dtc, "gtc": gtc,
            "best": {"f": dict(f), "p": dict(p), "r": dict(r), "threshold": dict(thr)},
            "best_constrained": {"f": dict(fc), "p": dict(pc), "r": dict(rc), "threshold": dict(thrc)},
            "at_0.5": {"f": dict(f5), "p": dict(p5), "r": dict(r5)},
        })
    return out


def collar(sse_scores, gt):
    """Collar-based statistics, best F and F at 0.5 (DCASE's 200 ms / 20 % and two others)."""
    out = []
    for onset, offset, rate in [(0.2, 0.2, 0.2), (0.5, 0.5, 0.0), (0.1, 0.05, 0.5)]:
        kwargs = dict(onset_collar=onset, offset_collar=offset, offset_collar_rate=rate)
        stats, _ = sed_scores_eval.collar_based.accumulated_intermediate_statistics(
            scores=sse_scores, ground_truth=gt, **kwargs
        )
        f, p, r, thr, _ = sed_scores_eval.collar_based.best_fscore(
            scores=sse_scores, ground_truth=gt, **kwargs
        )
        f5, p5, r5, _ = sed_scores_eval.collar_based.fscore(
            scores=sse_scores, ground_truth=gt, threshold=0.5, **kwargs
        )
        out.append({
            "onset": onset, "offset": offset, "rate": rate,
            "per_class": {
                cls: {"threshold": as_list(t), "tp": as_list(st["tps"]), "fp": as_list(st["fps"]),
                      "n_truth": int(st["n_ref"])}
                for cls, (t, st) in stats.items()
            },
            "best": {"f": dict(f), "p": dict(p), "r": dict(r), "threshold": dict(thr)},
            "at_0.5": {"f": dict(f5), "p": dict(p5), "r": dict(r5)},
        })
    return out


def stable_staircase(tpr, fpr, max_fpr):
    """sed_scores_eval's staircase AUROC (points ordered by FPR, then TPR) with a stable sort.

    sed_scores_eval 0.0.4 re-sorts the ROC points by FPR alone with numpy's default
    (unstable) sort inside ``staircase_auc``, so where several points share an FPR
    the TPR it uses for the next step can be any of theirs (not always the highest);
    this is the same area with the order kept.
    """
    order = np.lexsort((tpr, fpr))
    tpr, fpr = tpr[order], fpr[order]
    if max_fpr is None:
        return float(np.sum(tpr[:-1] * np.diff(fpr)))
    cut = int(np.searchsorted(fpr, max_fpr, side="right"))
    x = np.append(fpr[:cut], max_fpr)
    return float(np.sum(tpr[:cut] * np.diff(x)) / max_fpr)


def items(sse_scores, gt, durations, criterion):
    """Segment-based (1 s and 0.5 s) or clip-based statistics, AP, AUROC, pAUC, best F."""
    out = []
    lengths = [1.0, 0.5] if criterion == "segment" else [None]
    for length in lengths:
        if criterion == "segment":
            module = sed_scores_eval.segment_based
            kwargs = {"audio_durations": durations, "segment_length": length}
            truth = gt
        else:
            module = sed_scores_eval.clip_based
            kwargs = {}
            truth = {file: sorted({label for _, _, label in events}) for file, events in gt.items()}
        stats, _ = module.accumulated_intermediate_statistics(
            scores=sse_scores, ground_truth=truth, **kwargs
        )
        auroc, _ = module.auroc(scores=sse_scores, ground_truth=truth, **kwargs)
        pauc, _ = module.auroc(scores=sse_scores, ground_truth=truth, max_fpr=0.1, **kwargs)
        pauc3, _ = module.auroc(scores=sse_scores, ground_truth=truth, max_fpr=0.3, **kwargs)
        stable = {}
        for max_fpr in (None, 0.1, 0.3):
            rocs = roc_curve_from_intermediate_statistics(stats)
            values = {cls: stable_staircase(tpr, fpr, max_fpr) for cls, (tpr, fpr, *_) in rocs.items()}
            values["mean"] = float(np.mean(list(values.values())))
            stable[str(max_fpr)] = values
        ap, _ = module.average_precision(scores=sse_scores, ground_truth=truth, **kwargs)
        f, p, r, thr, _ = module.best_fscore(scores=sse_scores, ground_truth=truth, **kwargs)
        f5, p5, r5, _ = module.fscore(scores=sse_scores, ground_truth=truth, threshold=0.5, **kwargs)
        out.append({
            "segment_length": length,
            "per_class": {
                cls: {"threshold": as_list(t), "tp": as_list(s["tps"]), "fp": as_list(s["fps"]),
                      "n_truth": int(s["n_ref"])}
                for cls, (t, s) in stats.items()
            },
            "auroc": dict(auroc), "pauc_0.1": dict(pauc), "pauc_0.3": dict(pauc3),
            "stable": stable,
            "average_precision": dict(ap),
            "best": {"f": dict(f), "p": dict(p), "r": dict(r), "threshold": dict(thr)},
            "at_0.5": {"f": dict(f5), "p": dict(p5), "r": dict(r5)},
        })
    return out


DESED = "/work/shared/fixtures/desed"
PSDS_CONFIGS = [
    # dtc, gtc, cttc, alpha_ct, alpha_st, max_efpr
    (0.7, 0.7, 0.3, 0.0, 1.0, 100.0),
    (0.1, 0.1, 0.3, 0.5, 1.0, 100.0),
    (0.5, 0.3, 0.2, 1.0, 0.0, 50.0),
]


# the random set is about a minute long: false positive rates per hour are large
RANDOM_PSDS_CONFIGS = [
    (0.7, 0.7, 0.3, 0.0, 1.0, 5000.0),
    (0.1, 0.1, 0.3, 0.5, 1.0, 20000.0),
    (0.5, 0.3, 0.2, 1.0, 0.0, 10000.0),
]


def psds_eval_values(gt_frame, meta_frame, ops, configs=PSDS_CONFIGS):
    """psds_eval's PSDS of operating points ``{threshold: detection DataFrame}``."""
    from psds_eval import PSDSEval

    out = []
    for dtc, gtc, cttc, alpha_ct, alpha_st, max_efpr in configs:
        evaluator = PSDSEval(dtc_threshold=dtc, gtc_threshold=gtc, cttc_threshold=cttc,
                             ground_truth=gt_frame, metadata=meta_frame)
        for threshold, detections in sorted(ops.items()):
            evaluator.add_operating_point(detections, info={"threshold": threshold})
        value = evaluator.psds(alpha_ct=alpha_ct, alpha_st=alpha_st, max_efpr=max_efpr)
        out.append({"dtc": dtc, "gtc": gtc, "cttc": cttc, "alpha_ct": alpha_ct,
                    "alpha_st": alpha_st, "max_efpr": max_efpr, "psds": float(value.value)})
    return out


def operating_points_random(sse_scores, gt, durations):
    """psds_eval on operating points of the random scores (thresholds 0.1, ..., 0.9)."""
    from sed_scores_eval.base_modules.detection import scores_to_event_list

    ops, rows = {}, []
    for threshold in np.round(np.arange(0.1, 1.0, 0.1), 1):
        events = scores_to_event_list(sse_scores, thresholds=float(threshold))
        frame = pd.DataFrame(
            [(file, on, off, label) for file, evs in events.items() for on, off, label in evs],
            columns=["filename", "onset", "offset", "event_label"],
        )
        ops[float(threshold)] = frame
        rows.append(frame.assign(threshold=float(threshold)))
    pd.concat(rows).to_csv(os.path.join(HERE, "operating_points.csv"), index=False,
                           float_format="%.17g")
    gt_frame = pd.DataFrame(
        [(file, on, off, label) for file, evs in gt.items() for on, off, label in evs],
        columns=["filename", "onset", "offset", "event_label"],
    )
    meta = pd.DataFrame(list(durations.items()), columns=["filename", "duration"])
    return psds_eval_values(gt_frame, meta, ops, RANDOM_PSDS_CONFIGS)


def operating_points_desed():
    """psds_eval on the DCASE 2021 baseline's 50 operating points of DESED validation."""
    gt_frame = pd.read_csv(os.path.join(DESED, "validation.tsv"), sep="\t")
    meta = pd.read_csv(os.path.join(DESED, "validation_durations.tsv"), sep="\t")
    ops = {}
    folder = os.path.join(DESED, "ops")
    for name in sorted(os.listdir(folder)):
        threshold = float(name[len("predictions_th_"):-len(".tsv")])
        frame = pd.read_csv(os.path.join(folder, name), sep="\t")
        ops[threshold] = frame[["filename", "onset", "offset", "event_label"]]
    return psds_eval_values(gt_frame, meta, ops)


def floats(obj):
    if isinstance(obj, dict):
        return {str(k): floats(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [floats(v) for v in obj]
    if isinstance(obj, (np.floating, np.integer)):
        return float(obj)
    return obj


def main():
    scores, truth, durations = make_data()
    write_data(scores, truth, durations)
    sse_scores = {
        file: create_score_dataframe(values, timestamps, CLASSES)
        for file, (timestamps, values) in scores.items()
    }
    gt = {file: [] for file in scores}
    for file, start, end, label in truth:
        gt[file].append((start, end, label))
    golden = {
        "intersection": intersection(sse_scores, gt, durations),
        "collar": collar(sse_scores, gt),
        "segment": items(sse_scores, gt, durations, "segment"),
        "clip": items(sse_scores, gt, durations, "clip"),
        "operating_points": operating_points_random(sse_scores, gt, durations),
        "desed_operating_points": operating_points_desed(),
    }
    with open(os.path.join(HERE, "golden.json"), "w") as fp:
        json.dump(floats(golden), fp, indent=1)


if __name__ == "__main__":
    main()
