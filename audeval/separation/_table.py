"""Table-level evaluation: DataFrames of audio file paths in, tidy scores out."""

from __future__ import annotations

import os

import audformat
import audiofile
import numpy as np
import pandas as pd

from audeval._validation import check_option
from audeval.separation._bss_eval import KEYS as BSS_KEYS
from audeval.separation._bss_eval import bss_eval_v4
from audeval.separation._checks import check_bool
from audeval.separation._scale_invariant import KEYS as SI_KEYS
from audeval.separation._scale_invariant import scale_invariant


METRICS = ("scale_invariant", "bss_eval_v4")
LENGTH_MISMATCH = ("error", "pad_or_truncate")
AGGREGATIONS = ("median", "mean")


def _check_frame(obj: object, name: str) -> pd.DataFrame:
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
    if len(obj.columns) == 0:
        raise ValueError(f"{name} must have at least one column (one per source).")
    if obj.index.has_duplicates:
        dup = obj.index[obj.index.duplicated()].unique()[:5].tolist()
        raise ValueError(f"{name} has duplicated files in its index: {dup}.")
    if obj.columns.has_duplicates:
        raise ValueError(f"{name} has duplicated columns: {list(obj.columns)}.")
    bad = obj.isna().to_numpy()
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(
            f"{name} has a missing path at file {obj.index[row]!r}, column {obj.columns[col]!r}."
        )
    return obj


def _read(path: object, root: str | None, what: str) -> tuple[np.ndarray, int]:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what} must be a path to an audio file; got {path!r}.")
    path = os.fspath(path)
    if root is not None and not os.path.isabs(path):
        path = os.path.join(root, path)
    signal, rate = audiofile.read(path, always_2d=True, dtype="float64")
    return signal.T, int(rate)  # (samples, channels)


def _fit_length(x: np.ndarray, n: int) -> np.ndarray:
    if x.shape[0] >= n:
        return x[:n]
    return np.concatenate([x, np.zeros((n - x.shape[0], x.shape[1]))])


def _load_file(file, truth, prediction, mixture, root, length_mismatch):
    refs = []
    rate = None
    for column in truth.columns:
        signal, sr = _read(truth.at[file, column], root, f"truth[{column!r}] of {file!r}")
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
    n_samples, n_ch = refs[0].shape

    def other(path, what):
        signal, sr = _read(path, root, what)
        if sr != rate:
            raise ValueError(
                f"Sampling rate mismatch in file {file!r}: {what} has {sr} Hz, "
                f"truth has {rate} Hz (resample first)."
            )
        if signal.shape[1] != n_ch:
            raise ValueError(
                f"Channel mismatch in file {file!r}: {what} has {signal.shape[1]} "
                f"channels, truth has {n_ch}."
            )
        if signal.shape[0] != n_samples:
            if length_mismatch == "error":
                raise ValueError(
                    f"Length mismatch in file {file!r}: {what} has {signal.shape[0]} "
                    f"samples, truth has {n_samples} "
                    "(use length_mismatch='pad_or_truncate')."
                )
            signal = _fit_length(signal, n_samples)
        return signal

    ests = [
        other(prediction.at[file, column], f"prediction[{column!r}]")
        for column in prediction.columns
    ]
    mix = None
    if mixture is not None:
        mix = other(mixture.iat[mixture.index.get_loc(file), 0], "mixture")
    return np.stack(refs), np.stack(ests), mix, rate


def evaluate(
    truth: pd.DataFrame,
    prediction: pd.DataFrame,
    mixture: pd.Series | pd.DataFrame | None = None,
    *,
    metrics: str = "scale_invariant",
    permutation: bool = False,
    window: float | None = 1.0,
    hop: float | None = None,
    filter_length: int = 512,
    zero_mean: bool = True,
    length_mismatch: str = "error",
    root: str | None = None,
) -> pd.DataFrame:
    r"""Evaluate separated audio files against reference files.

    ``truth`` and ``prediction`` hold paths of audio files,
    one row per file (audformat filewise index, the mixture's file),
    one column per source. The audio is read with audiofile
    and scored file by file with :func:`scale_invariant`
    (per channel, then the mean over channels of the dB values)
    or :func:`bss_eval_v4` (per window, all channels at once);
    see those functions for formulas and NaN/inf rules.

    Args:
        truth: reference paths, filewise index, one column per source
        prediction: estimate paths with the same files;
            the same columns unless ``permutation=True``,
            where any number of estimate columns is matched
            to the sources by :func:`best_permutation`
        mixture: mixture paths (Series or one-column DataFrame with
            the same files), used for SI-SDRi, SD-SDRi and SNRi;
            ``None`` uses the sum of the references
        metrics: ``"scale_invariant"`` or ``"bss_eval_v4"``
        permutation: permutation-invariant evaluation per file
        window: BSS Eval window in seconds (``None``: whole file)
        hop: BSS Eval hop in seconds (``None``: ``window``)
        filter_length: BSS Eval distortion filter taps
        zero_mean: remove the mean first (scale-invariant metrics)
        length_mismatch: ``"error"`` raises if an estimate or the mixture
            has another number of samples than the references;
            ``"pad_or_truncate"`` zero-pads or cuts it (museval)
        root: folder prepended to relative paths

    Returns:
        tidy DataFrame, one row per (file, source) for
        ``"scale_invariant"`` (columns ``si_sdr`` ... ``snri``)
        or per (file, source, start, end) window for ``"bss_eval_v4"``
        (columns ``sdr``, ``isr``, ``sir``, ``sar``; start and end
        as timedeltas); with ``permutation=True`` a column
        ``estimate`` names the prediction column matched to each source

    Raises:
        TypeError: if an argument has the wrong type
        ValueError: for a bad index, missing files or paths,
            unknown options, and sampling-rate, channel or
            (with ``length_mismatch="error"``) length mismatches

    Examples:
        >>> import tempfile, audiofile, audformat
        >>> folder = tempfile.mkdtemp()
        >>> t = np.arange(800) / 800
        >>> signals = {"a": np.sin(2 * np.pi * 5 * t), "b": np.cos(2 * np.pi * 9 * t)}
        >>> for name, x in signals.items():
        ...     audiofile.write(f"{folder}/{name}.wav", x / 2, 800, bit_depth=32)
        ...     noisy = (x + 0.1 * signals["b" if name == "a" else "a"]) / 2
        ...     audiofile.write(f"{folder}/{name}-est.wav", noisy, 800, bit_depth=32)
        >>> index = audformat.filewise_index(["mix.wav"])
        >>> truth = pd.DataFrame({"a": ["a.wav"], "b": ["b.wav"]}, index=index)
        >>> pred = pd.DataFrame({"a": ["a-est.wav"], "b": ["b-est.wav"]}, index=index)
        >>> res = evaluate(truth, pred, root=folder)
        >>> res.index.names
        FrozenList(['file', 'source'])
        >>> [round(x, 2) for x in res["si_sdr"].tolist()]
        [20.0, 20.0]
        >>> import shutil
        >>> shutil.rmtree(folder)

    """
    metrics = check_option(metrics, "metrics", METRICS)
    length_mismatch = check_option(length_mismatch, "length_mismatch", LENGTH_MISMATCH)
    permutation = check_bool(permutation, "permutation")
    truth = _check_frame(truth, "truth")
    prediction = _check_frame(prediction, "prediction")
    if mixture is not None:
        mixture = _check_frame(mixture, "mixture")
        if len(mixture.columns) != 1:
            raise ValueError(
                f"mixture must have one column of paths; got {len(mixture.columns)}."
            )
    if root is not None and not isinstance(root, (str, os.PathLike)):
        raise TypeError(f"root must be a folder path or None; got {root!r}.")
    files = truth.index
    for name, other in (("prediction", prediction), ("mixture", mixture)):
        if other is None:
            continue
        missing = files.difference(other.index)
        extra = other.index.difference(files)
        if len(missing) or len(extra):
            raise ValueError(
                f"{name} must have the same files as truth; missing {missing[:5].tolist()}, "
                f"not in truth {extra[:5].tolist()}."
            )
    if not permutation and list(prediction.columns) != list(truth.columns):
        if set(prediction.columns) == set(truth.columns):
            prediction = prediction[truth.columns]
        else:
            raise ValueError(
                "prediction must have the same columns (sources) as truth unless "
                f"permutation=True; got {list(prediction.columns)} and {list(truth.columns)}."
            )

    frames = []
    for file in files:
        refs, ests, mix, rate = _load_file(
            file, truth, prediction, mixture, root, length_mismatch
        )
        if metrics == "scale_invariant":
            res = scale_invariant(
                refs, ests, mix, permutation=permutation, zero_mean=zero_mean
            )
            with np.errstate(invalid="ignore"):
                data = {key: _channel_mean(res[key]) for key in SI_KEYS}
            frame = pd.DataFrame(data)
            frame.insert(0, "source", truth.columns)
            frame.insert(0, "file", file)
        else:
            res = bss_eval_v4(
                refs, ests, sampling_rate=rate, window=window, hop=hop,
                filter_length=filter_length, permutation=permutation,
            )
            n_win = res["sdr"].shape[1]
            n_src = len(truth.columns)
            frame = pd.DataFrame({key: res[key].ravel() for key in BSS_KEYS})
            frame.insert(0, "end", pd.to_timedelta(np.tile(res["end"], n_src), unit="s"))
            frame.insert(0, "start", pd.to_timedelta(np.tile(res["start"], n_src), unit="s"))
            frame.insert(0, "source", np.repeat(np.asarray(truth.columns, dtype=object), n_win))
            frame.insert(0, "file", file)
        if permutation:
            names = np.asarray(list(prediction.columns) + [None], dtype=object)
            chosen = names[res["estimate"]]
            if metrics == "bss_eval_v4":
                chosen = np.repeat(chosen, res["sdr"].shape[1])
            frame["estimate"] = chosen
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    levels = ["file", "source"] if metrics == "scale_invariant" else ["file", "source", "start", "end"]
    out["source"] = out["source"].astype(object)
    return out.set_index(levels)


def _channel_mean(values: np.ndarray) -> np.ndarray:
    """Mean over channels of a (sources, channels) array (NaN if any is NaN)."""
    return values.mean(axis=1)


def aggregate(
    scores: pd.DataFrame,
    *,
    how: str = "median",
    level: str = "source",
) -> pd.DataFrame:
    r"""Aggregate the scores of :func:`evaluate` as SiSEC does.

    Windows are aggregated first per (file, source),
    then files per source: with ``how="median"``
    the median over windows, then the median over files
    (SiSEC 2018 / museval's ``frames_agg='median', tracks_agg='median'``);
    with ``how="mean"`` the means.
    NaN values (silent windows) are ignored (museval uses ``nanmedian``).
    Columns that are not numeric (``estimate``) are dropped.

    Args:
        scores: result of :func:`evaluate`
        how: ``"median"`` or ``"mean"``
        level: ``"source"`` (one row per source) or
            ``"file"`` (one row per (file, source), windows aggregated)

    Returns:
        DataFrame of aggregated scores

    Raises:
        TypeError: if ``scores`` is not a DataFrame
        ValueError: if its index has no ``file`` and ``source`` levels,
            or an option is unknown

    Examples:
        >>> index = pd.MultiIndex.from_tuples(
        ...     [("f1", "a"), ("f2", "a"), ("f3", "a")], names=["file", "source"]
        ... )
        >>> scores = pd.DataFrame({"si_sdr": [1.0, 2.0, 9.0]}, index=index)
        >>> aggregate(scores)["si_sdr"].tolist()
        [2.0]
        >>> aggregate(scores, how="mean")["si_sdr"].tolist()
        [4.0]

    """
    how = check_option(how, "how", AGGREGATIONS)
    level = check_option(level, "level", ("source", "file"))
    if not isinstance(scores, pd.DataFrame):
        raise TypeError(f"scores must be a pandas.DataFrame; got {type(scores).__name__}.")
    names = list(scores.index.names)
    if "file" not in names or "source" not in names:
        raise ValueError(f"scores must have index levels 'file' and 'source'; got {names}.")
    numeric = scores.select_dtypes(include=[np.number])
    per_file = getattr(numeric.groupby(level=["file", "source"], sort=False), how)()
    if level == "file":
        return per_file
    return getattr(per_file.groupby(level="source", sort=False), how)()
