"""Golden AUROC values of sklearn's ``roc_auc_score`` on segments with tied scores (issue 33, item 22).

Runs in a venv with scikit-learn (any venv; here the one of psds_eval)::

    /work/venvs/scores-psds/bin/pip install scikit-learn
    /work/venvs/scores-psds/bin/python tests/assets/scores_sklearn/make_golden.py

Writes, next to itself, ``frames.csv`` (file, start, end, one column of scores per class,
scores rounded to one decimal: many ties between positive and negative segments),
``truth.csv`` (file, start, end, label; events cover whole seconds)
and ``golden.json``: per class sklearn's ``roc_auc_score(y, s)`` and
``roc_auc_score(y, s, max_fpr=m)`` (McClish-standardised) for ``m`` in 0.1 and 0.3,
where the items are the 1 s segments (one frame each) and ``y`` says whether
a truth event of the class covers the segment:
audeval's ``auroc(..., criterion="segment", segment_length=1, ties="half")``.
"""

import json
import os

import numpy as np
import sklearn
from sklearn.metrics import roc_auc_score

HERE = os.path.dirname(os.path.abspath(__file__))
CLASSES = ["bird", "car"]


def main():
    rng = np.random.default_rng(33)
    frames, truth, y, s = [], [], {c: [] for c in CLASSES}, {c: [] for c in CLASSES}
    for f in range(30):
        file = f"clip{f:02d}.wav"
        active = {c: rng.random(4) < 0.35 for c in CLASSES}
        score = {c: np.round(np.clip(active[c] * 0.3 + rng.random(4) * 0.7, 0, 1), 1) for c in CLASSES}
        for k in range(4):
            frames.append([file, float(k), float(k + 1)] + [float(score[c][k]) for c in CLASSES])
            for c in CLASSES:
                y[c].append(bool(active[c][k]))
                s[c].append(float(score[c][k]))
                if active[c][k]:
                    truth.append([file, float(k), float(k + 1), c])
    with open(os.path.join(HERE, "frames.csv"), "w") as fp:
        fp.write("file,start,end," + ",".join(CLASSES) + "\n")
        for row in frames:
            fp.write(",".join(str(v) for v in row) + "\n")
    with open(os.path.join(HERE, "truth.csv"), "w") as fp:
        fp.write("file,start,end,label\n")
        for row in truth:
            fp.write(",".join(str(v) for v in row) + "\n")
    golden = {"sklearn": sklearn.__version__, "auroc": {}}
    for c in CLASSES:
        golden["auroc"][c] = {
            "full": float(roc_auc_score(y[c], s[c])),
            "0.1": float(roc_auc_score(y[c], s[c], max_fpr=0.1)),
            "0.3": float(roc_auc_score(y[c], s[c], max_fpr=0.3)),
        }
    # one tied pair: a positive and a negative item with the same score
    golden["one_tied_pair"] = float(roc_auc_score([1, 0], [0.5, 0.5]))
    with open(os.path.join(HERE, "golden.json"), "w") as fp:
        json.dump(golden, fp, indent=1)
        fp.write("\n")


if __name__ == "__main__":
    main()
