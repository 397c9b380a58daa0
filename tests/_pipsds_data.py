"""The data and golden values of ``tests/assets/scores/make_pipsds_golden.py`` (issue 29)."""

from __future__ import annotations

import functools
import json
import os

import numpy as np
import pandas as pd

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets", "scores")


@functools.lru_cache(maxsize=None)
def golden() -> dict:
    with open(os.path.join(HERE, "pipsds_golden.json")) as f:
        return json.load(f)


def _index(frame: pd.DataFrame) -> pd.MultiIndex:
    def ns(seconds):
        return pd.to_timedelta(np.round(seconds.to_numpy() * 1e9).astype("int64"), unit="ns")

    return pd.MultiIndex.from_arrays(
        [frame["file"].to_numpy(dtype=object), ns(frame["start"]), ns(frame["end"])],
        names=["file", "start", "end"],
    )


@functools.lru_cache(maxsize=None)
def load(name: str) -> tuple[pd.DataFrame, pd.Series, pd.Series]:
    """Scores, truth and file durations of the ``random`` or ``desed`` case."""
    if name == "random":
        frame = pd.read_csv(os.path.join(HERE, "scores.csv"))
        truth = pd.read_csv(os.path.join(HERE, "truth.csv"))
        table = pd.read_csv(os.path.join(HERE, "durations.csv"))
        durations = pd.Series(table["duration"].to_numpy(), index=table["file"].to_numpy())
    else:
        frame = pd.read_csv(os.path.join(HERE, "desed_scores.csv.gz"))
        truth = pd.read_csv(os.path.join(HERE, "desed_truth.csv"))
        durations = frame.groupby("file")["end"].max()
    classes = [c for c in frame.columns if c not in ("file", "start", "end")]
    scores = pd.DataFrame(frame[classes].to_numpy(), index=_index(frame), columns=classes)
    return scores, pd.Series(truth["label"].to_numpy(), index=_index(truth)), durations
