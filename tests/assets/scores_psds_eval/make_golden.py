"""Golden values of psds_eval 0.5.3 on psds_eval's own test data (issue 33, items 8 and 9).

psds_eval needs pandas < 3 and numpy < 2, so this script runs in its own venv::

    python3 -m venv /work/venvs/scores-psds
    /work/venvs/scores-psds/bin/pip install "pandas<3" "numpy<2" psds_eval==0.5.3
    /work/venvs/scores-psds/bin/python tests/assets/scores_psds_eval/make_golden.py

Inputs, copied next to this script as psds_eval ships them
(``DCASE-REPO/psds_eval`` 0.5.3, ``tests/data/``, MIT licence, Audio Analytic Ltd):
``test.metadata``, ``test_1.gt``, ``test_1.det``, ``test_1a.det``, ``test_4.det``.
Written here as well: ``readme.gt``, ``readme.det``, ``readme.metadata``
(one 10 s file; truth Speech [0.298, 2.336), Frying [5, 6);
detections Speech [0.2, 2.3), Frying [5, 6) and Frying [2.2247619047619045, 2.5955555555555554),
the last one's share on the Speech truth is 0.3 in float64 arithmetic on these decimals).

``golden.json``:

* ``classes``: truth of ``test_1.gt`` (classes c1, c2, c3), operating points
  0.3: ``test_1.det`` plus the ``z4`` detections of ``test_4.det`` within 50 s moved to ``test.wav``
  (a class the truth lacks), 0.5: ``test_1.det``, 0.7: ``test_1a.det``;
  psds_eval's PSDS for several scenarios (psds_eval evaluates the truth's classes).
* ``readme``: the cross-trigger case, one operating point 0.5;
  PSDS with ``alpha_ct=1`` and the number of cross triggers psds_eval counts.
"""

import json
import warnings
import os
import shutil

import numpy as np
import pandas as pd
from psds_eval import PSDSEval

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = "/work/shared/fixtures/peers/psds_eval/tests"

CLASS_CONFIGS = [
    {"dtc": 0.5, "gtc": 0.5, "cttc": 0.3, "alpha_ct": 0.0, "alpha_st": 0.0, "max_efpr": 100.0},
    {"dtc": 0.5, "gtc": 0.5, "cttc": 0.3, "alpha_ct": 0.0, "alpha_st": 1.0, "max_efpr": 100.0},
    {"dtc": 0.5, "gtc": 0.5, "cttc": 0.3, "alpha_ct": 1.0, "alpha_st": 0.0, "max_efpr": 200.0},
    {"dtc": 0.1, "gtc": 0.1, "cttc": 0.3, "alpha_ct": 0.5, "alpha_st": 1.0, "max_efpr": 100.0},
]
README_CONFIGS = [
    {"dtc": 0.5, "gtc": 0.5, "cttc": 0.3, "alpha_ct": 1.0, "alpha_st": 0.0, "max_efpr": 5000.0},
    {"dtc": 0.5, "gtc": 0.5, "cttc": 0.3, "alpha_ct": 1.0, "alpha_st": 1.0, "max_efpr": 5000.0},
]


def read(name):
    return pd.read_csv(os.path.join(HERE, name), sep="\t")


def psds_values(gt, meta, ops, configs):
    out = []
    for c in configs:
        evaluator = PSDSEval(dtc_threshold=c["dtc"], gtc_threshold=c["gtc"],
                             cttc_threshold=c["cttc"], ground_truth=gt, metadata=meta)
        for threshold, det in sorted(ops.items()):
            evaluator.add_operating_point(det, info={"threshold": threshold})
        value = evaluator.psds(alpha_ct=c["alpha_ct"], alpha_st=c["alpha_st"],
                               max_efpr=c["max_efpr"]).value
        counts = np.asarray(evaluator.operating_points.counts.iloc[0])
        out.append({**c, "psds": float(value), "classes": list(evaluator.class_names),
                    "counts_first_op": counts.tolist()})
    return out


def main():
    warnings.simplefilter("ignore", FutureWarning)  # psds_eval 0.5.3 on pandas 2.3
    for name in ("test.metadata", "test_1.gt", "test_1.det", "test_1a.det", "test_4.det"):
        shutil.copy(os.path.join(PEERS, name), os.path.join(HERE, name))
    meta = read("test.metadata")
    gt = read("test_1.gt")
    z4 = read("test_4.det")
    z4 = z4[(z4.event_label == "z4") & (z4.offset <= 50)].assign(filename="test.wav")
    ops = {
        0.3: pd.concat([read("test_1.det"), z4], ignore_index=True),
        0.5: read("test_1.det"),
        0.7: read("test_1a.det"),
    }
    golden = {"classes": psds_values(gt, meta, ops, CLASS_CONFIGS)}

    file = "Y23R6_ppquxs_247.000_257.000.wav"
    with open(os.path.join(HERE, "readme.gt"), "w") as fp:
        fp.write(f"filename\tonset\toffset\tevent_label\n{file}\t0.298\t2.336\tSpeech\n"
                 f"{file}\t5.0\t6.0\tFrying\n")
    with open(os.path.join(HERE, "readme_th_0.5.det"), "w") as fp:
        fp.write(f"filename\tonset\toffset\tevent_label\n"
                 f"{file}\t2.2247619047619045\t2.5955555555555554\tFrying\n"
                 f"{file}\t0.2\t2.3\tSpeech\n"
                 f"{file}\t5.0\t6.0\tFrying\n")
    with open(os.path.join(HERE, "readme.metadata"), "w") as fp:
        fp.write(f"filename\tduration\n{file}\t10.0\n")
    golden["readme"] = psds_values(read("readme.gt"), read("readme.metadata"),
                                   {0.5: read("readme_th_0.5.det")}, README_CONFIGS)
    with open(os.path.join(HERE, "golden.json"), "w") as fp:
        json.dump(golden, fp, indent=1)
        fp.write("\n")


if __name__ == "__main__":
    main()
