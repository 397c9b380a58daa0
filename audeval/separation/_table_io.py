"""Reading the audio of the table-level evaluation (paths, checks, loading)."""

from __future__ import annotations

import os

import audformat
import audiofile
import numpy as np
import pandas as pd


def check_frame(obj: object, name: str, *, allow_missing: bool = False) -> pd.DataFrame:
    """A DataFrame of paths with an audformat filewise index."""
    if isinstance(obj, pd.Series):
        obj = obj.to_frame()
    if not isinstance(obj, pd.DataFrame):
        raise TypeError(
            f"{name} must be a pandas.DataFrame of audio file paths "
            f"(filewise index, one column per source); got {type(obj).__name__}."
        )
    if not audformat.is_filewise_index(obj.index):
        raise ValueError(
            f"{name} must have an audformat filewise index (one level named 'file'); "
            f"got levels {list(obj.index.names)}."
        )
    if len(obj.columns) == 0 and not allow_missing:
        raise ValueError(f"{name} must have at least one column (one per source).")
    if obj.index.has_duplicates:
        dup = obj.index[obj.index.duplicated()].unique()[:5].tolist()
        raise ValueError(f"{name} has duplicated files in its index: {dup}.")
    if obj.columns.has_duplicates:
        raise ValueError(f"{name} has duplicated columns: {list(obj.columns)}.")
    bad = obj.isna().to_numpy()
    if bad.any() and not allow_missing:
        row, col = np.argwhere(bad)[0]
        raise ValueError(
            f"{name} has a missing path at file {obj.index[row]!r}, column {obj.columns[col]!r}."
        )
    return obj


def read(path: object, root: str | None, what: str) -> tuple[np.ndarray, int]:
    """Audio of ``path`` as (samples, channels) float64 and its sampling rate.

    ``what`` names the table, column and file in error messages.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what} must be a path to an audio file; got {path!r}.")
    path = os.fspath(path)
    if root is not None and not os.path.isabs(path):
        path = os.path.join(root, path)
    if not os.path.isfile(path):
        kind = "a directory" if os.path.isdir(path) else "missing"
        raise ValueError(f"{what}: the audio file {path!r} is {kind}.")
    try:
        signal, rate = audiofile.read(path, always_2d=True, dtype="float64")
    except Exception as error:  # audiofile raises several library-specific errors
        reason = " ".join(str(error).split())
        raise ValueError(
            f"{what}: cannot read audio file {path!r} ({type(error).__name__}: {reason})."
        ) from error
    return signal.T, int(rate)  # (samples, channels)


def fit_length(x: np.ndarray, n: int) -> np.ndarray:
    if x.shape[0] >= n:
        return x[:n]
    return np.concatenate([x, np.zeros((n - x.shape[0], x.shape[1]))])


def read_like(path, root, what, file, rate, shape, length_mismatch):
    """Read ``path`` and check it against a sampling rate and (samples, channels)."""
    signal, sr = read(path, root, what)
    if sr != rate:
        raise ValueError(
            f"Sampling rate mismatch in file {file!r}: {what} has {sr} Hz, "
            f"truth has {rate} Hz (resample first)."
        )
    if signal.shape[1] != shape[1]:
        raise ValueError(
            f"Channel mismatch in file {file!r}: {what} has {signal.shape[1]} "
            f"channels, truth has {shape[1]}."
        )
    if signal.shape[0] != shape[0]:
        if length_mismatch == "error":
            raise ValueError(
                f"Length mismatch in file {file!r}: {what} has {signal.shape[0]} "
                f"samples, truth has {shape[0]} "
                "(use length_mismatch='pad_or_truncate')."
            )
        signal = fit_length(signal, shape[0])
    return signal


def load_file(file, truth, prediction, mixture, root, length_mismatch):
    """References (R, N, C), estimates (E, N, C), mixture (N, C) or None, rate."""
    refs = []
    rate = None
    for column in truth.columns:
        signal, sr = read(truth.at[file, column], root, f"truth[{column!r}] of file {file!r}")
        if rate is not None and sr != rate:
            raise ValueError(
                f"Sampling rate mismatch in file {file!r}: truth column {column!r} has "
                f"{sr} Hz, truth column {truth.columns[0]!r} has {rate} Hz."
            )
        if refs and signal.shape != refs[0].shape:
            raise ValueError(
                f"truth sources of file {file!r} differ in shape (samples, channels): "
                f"{column!r} {signal.shape} vs {truth.columns[0]!r} {refs[0].shape}."
            )
        rate = sr
        refs.append(signal)
    shape = refs[0].shape
    ests = [
        read_like(
            prediction.at[file, column], root, f"prediction[{column!r}] of file {file!r}",
            file, rate, shape, length_mismatch,
        )
        for column in prediction.columns
    ]
    mix = None
    if mixture is not None:
        mix = read_like(
            mixture.iat[mixture.index.get_loc(file), 0], root,
            f"mixture of file {file!r}", file, rate, shape, length_mismatch,
        )
    return np.stack(refs), np.stack(ests), mix, rate


def load_classes(file, truth, prediction, mixture, root, length_mismatch):
    """Class-labelled signals of one file: the paths present in each row.

    The mixture fixes the sampling rate and shape.
    Returns (refs, truth labels, estimates, prediction labels, mixture).
    """
    mix, rate = read(
        mixture.iat[mixture.index.get_loc(file), 0], root, f"mixture of file {file!r}"
    )
    out = []
    for name, frame in (("truth", truth), ("prediction", prediction)):
        labels, signals = [], []
        for column in frame.columns:
            path = frame.at[file, column]
            if pd.isna(path):
                continue
            what = f"{name}[{column!r}] of file {file!r}"
            signals.append(read_like(path, root, what, file, rate, mix.shape, length_mismatch))
            labels.append(column)
        stacked = np.stack(signals) if signals else np.zeros((0,) + mix.shape)
        out.extend([stacked, labels])
    return out[0], out[1], out[2], out[3], mix
