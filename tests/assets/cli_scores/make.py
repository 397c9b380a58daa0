"""Write the small score-based inputs of ``tests/test_cli_scores.py`` (run from anywhere).

Three clips of 4 s with the classes ``cat`` and ``dog``:
``truth.tsv`` (DCASE tsv; ``c.wav`` has no event), ``durations.tsv``,
``scores/`` (a sed_scores_eval score directory: ``<id>.tsv`` with ``onset``, ``offset``
and a column per class, 0.5 s frames, seeded scores that follow the truth)
and ``ops/`` (psds_eval operating points ``predictions_th_<t>.tsv``:
the frames with score above ``t`` joined to events, as :func:`audeval.scores_to_events` does).
Needs only audeval (``/work/venv/bin/python tests/assets/cli_scores/make.py``).
"""

import os

import numpy as np
import pandas as pd

import audeval

HERE = os.path.dirname(os.path.abspath(__file__))
TRUTH = [
    ("a.wav", 0.5, 2.0, "dog"),
    ("a.wav", 2.5, 3.5, "cat"),
    ("b.wav", 0.0, 1.0, "cat"),
    ("b.wav", 1.5, 4.0, "dog"),
    ("c.wav", None, None, None),  # a clip without events (an empty row, as in DESED)
]
FILES = ["a.wav", "b.wav", "c.wav"]
FRAME = 0.5
SECONDS = 4.0
THRESHOLDS = (0.2, 0.4, 0.6, 0.8)


def scores() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    starts = np.arange(0, SECONDS, FRAME)
    frames = []
    for file in FILES:
        columns = {}
        for label in ("cat", "dog"):
            active = np.zeros(len(starts))
            for f, on, off, lab in TRUTH:
                if f == file and lab == label and on is not None:
                    active[(starts + FRAME > on) & (starts < off)] = 1.0
            columns[label] = np.round(np.clip(0.45 * active + rng.uniform(0, 0.6, len(starts)), 0, 1), 2)
        frames.append(pd.DataFrame({"file": file, "onset": starts, "offset": starts + FRAME, **columns}))
    return pd.concat(frames, ignore_index=True)


def main() -> None:
    pd.DataFrame(TRUTH, columns=["filename", "onset", "offset", "event_label"]).to_csv(
        os.path.join(HERE, "truth.tsv"), sep="\t", index=False
    )
    pd.DataFrame({"filename": FILES, "duration": SECONDS}).to_csv(
        os.path.join(HERE, "durations.tsv"), sep="\t", index=False
    )
    table = scores()
    os.makedirs(os.path.join(HERE, "scores"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "ops"), exist_ok=True)
    for file, frame in table.groupby("file"):
        frame.drop(columns="file").to_csv(
            os.path.join(HERE, "scores", file.replace(".wav", ".tsv")), sep="\t", index=False
        )
    index = audeval.read_sed_scores(os.path.join(HERE, "scores"), suffix=".wav")
    for threshold in THRESHOLDS:
        events = audeval.scores_to_events(index, threshold=threshold)
        starts = events.index.get_level_values("start").total_seconds()
        ends = events.index.get_level_values("end").total_seconds()
        pd.DataFrame({
            "filename": events.index.get_level_values("file"),
            "onset": starts, "offset": ends, "event_label": events.to_numpy(),
        }).to_csv(os.path.join(HERE, "ops", f"predictions_th_{threshold:.2f}.tsv"), sep="\t", index=False)


if __name__ == "__main__":
    main()
