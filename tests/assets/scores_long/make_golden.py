"""Golden tables and PSDS of random score tables, from audeval before issue 32 item 5.

Made with the implementation of commit 4430921 (its per-frame coverage and floor,
before the PSD-ROC band and the label blocks)::

    git worktree add /tmp/psds-before 4430921
    PYTHONPATH=/tmp/psds-before python tests/assets/scores_long/make_golden.py

The data (:func:`data`) are random score tables with ties (quarters), many distinct scores,
random walks, files of 3 to 3,000 frames and a file without truth;
``tests/test_score_based_long.py`` compares the current implementation with these outputs.
"""

import json
import os

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = range(8)
CASES = {
    "psds1": dict(dtc_threshold=0.7, gtc_threshold=0.7),
    "psds2": dict(dtc_threshold=0.1, gtc_threshold=0.1, cttc_threshold=0.3),
    "compat": dict(dtc_threshold=0.7, gtc_threshold=0.7, compat="sed_scores_eval"),
}
MAX_EFPR = (100.0, 1000.0)


def _index(files, starts, ends):
    return pd.MultiIndex.from_arrays(
        [list(files), pd.to_timedelta(starts, unit="s"), pd.to_timedelta(ends, unit="s")],
        names=["file", "start", "end"],
    )


def data(seed):
    """Truth and scores of seed ``seed``."""
    rng = np.random.default_rng(seed)
    n_files = int(rng.integers(2, 6))
    classes = list("abcd"[: int(rng.integers(1, 5))])
    parts, rows = [], []
    for f in range(n_files):
        n = int(rng.choice([3, 50, 400, 3000]))
        hop = 0.02 if n >= 400 else 0.1
        mode = int(rng.integers(0, 3))
        if mode == 0:
            values = rng.integers(0, 4, (n, len(classes))) / 4.0  # heavy ties
        elif mode == 1:
            values = np.round(rng.random((n, len(classes))), 3)
        else:
            values = np.cumsum(rng.normal(0, 0.3, (n, len(classes))), axis=0)
        for i, c in enumerate(classes):
            if f == n_files - 1:
                continue  # a file without truth
            t = rng.uniform(0, 1)
            while t < n * hop:
                end = min(t + rng.uniform(0.05, 3), n * hop)
                if end > t + 1e-3:
                    rows.append((f"f{f}", round(t, 3), round(end, 3), c))
                    if rng.random() < 0.5:
                        values[int(t / hop): int(end / hop) + 1, i] += 0.5
                t = end + rng.uniform(0.01, 5)
        start = np.arange(n) * hop
        parts.append(pd.DataFrame(values, columns=classes, index=_index([f"f{f}"] * n, start, start + hop)))
    files, starts, ends, labels = zip(*rows) if rows else ([], [], [], [])
    return pd.Series(list(labels), index=_index(files, starts, ends), dtype=object), pd.concat(parts)


def main():
    from audeval._sed_scores import psds, score_statistics

    tables, values = [], {}
    for seed in SEEDS:
        truth, scores = data(seed)
        for name, case in CASES.items():
            table = score_statistics(truth, scores, **case).reset_index()
            table.insert(0, "case", f"{seed}-{name}")
            tables.append(table)
            extra = {"alpha_ct": 0.5} if "cttc_threshold" in case else {}
            for max_efpr in MAX_EFPR:
                values[f"{seed}-{name}-{max_efpr:g}"] = psds(truth, scores, max_efpr=max_efpr, **case, **extra)
    pd.concat(tables, ignore_index=True).to_csv(os.path.join(HERE, "tables.csv.gz"), index=False)
    with open(os.path.join(HERE, "psds.json"), "w") as fp:
        json.dump(values, fp, indent=1)


if __name__ == "__main__":
    main()
