"""Table-level evaluation: DataFrames of audio file paths in, tidy scores out."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from audeval._core.validation import check_option
from audeval.separation._checks import check_bool
from audeval.separation._global import check_delta
from audeval.separation._table_io import check_frame
from audeval.separation._table_io import load_classes
from audeval.separation._table_io import load_file
from audeval.separation._table_metrics import LEVELS
from audeval.separation._table_metrics import PERMUTABLE
from audeval.separation._table_metrics import score_classes
from audeval.separation._table_metrics import score_file


METRICS = tuple(LEVELS)
LENGTH_MISMATCH = ("error", "pad_or_truncate")
AGGREGATIONS = ("median", "mean")


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
    delta: float = 1e-7,
    length_mismatch: str = "error",
    root: str | None = None,
) -> pd.DataFrame:
    r"""Evaluate separated audio files against reference files.

    ``truth`` and ``prediction`` hold paths of audio files,
    one row per file (audformat filewise index, the mixture's file),
    one column per source. The audio is read with audiofile
    and scored file by file; see the array functions for formulas
    and NaN/inf rules. ``metrics`` selects:

    * ``"scale_invariant"``: :func:`scale_invariant`, one row per
      (file, source), columns ``si_sdr`` ... ``snri``
      (per channel, then the mean over channels of the dB values);
    * ``"bss_eval_sources"``: :func:`bss_eval_sources` (BSS Eval v3),
      one row per (file, source), columns ``sdr``, ``sir``, ``sar``
      (channel mean);
    * ``"bss_eval_v4"``: :func:`bss_eval_v4`, one row per
      (file, source, start, end) window, columns ``sdr``, ``isr``,
      ``sir``, ``sar``;
    * ``"global_sdr"``: the MDX/SDX scores, one row per (file, source),
      columns ``usdr`` (:func:`global_sdr` of the whole file) and
      ``csdr`` (:func:`chunked_sdr`'s median over chunks of ``window``
      seconds; the uSDR when ``window`` is ``None``);
    * ``"sa_sdr"``: :func:`sa_sdr`, one row per file (index ``file``),
      column ``sa_sdr`` (channel mean);
    * ``"ca_sdri"``: :func:`ca_sdri` (DCASE 2025 task 4); the columns of
      ``truth`` and ``prediction`` are class labels and a missing path
      (NaN) means the class is absent from that file (reference) or was
      not estimated (prediction); one row per (file, class) of the union
      of both, columns ``sdri`` (0 for a missed or spurious class)
      and ``status``; ``aggregate(..., level="all", how="mean")`` is the
      challenge's CA-SDRi. A file without any class on either side
      has no row (its CA-SDRi is undefined).

    Args:
        truth: reference paths, filewise index, one column per source
        prediction: estimate paths with the same files;
            the same columns unless ``permutation=True``,
            where any number of estimate columns is matched
            to the sources by :func:`best_permutation`
            (or ``metrics="ca_sdri"``, matched by column name)
        mixture: mixture paths (Series or one-column DataFrame with
            the same files), used for SI-SDRi, SD-SDRi and SNRi
            (``None``: the sum of the references) and required by
            ``"ca_sdri"``
        metrics: one of the names above
        permutation: permutation-invariant evaluation per file
            (``"scale_invariant"``, ``"bss_eval_sources"``,
            ``"bss_eval_v4"``, ``"sa_sdr"``)
        window: BSS Eval v4 window and cSDR chunk in seconds
            (``None``: whole file)
        hop: BSS Eval v4 hop in seconds (``None``: ``window``)
        filter_length: BSS Eval distortion filter taps
        zero_mean: remove the mean first (scale-invariant metrics)
        delta: added to both energies of the MDX/SDX SDR
        length_mismatch: ``"error"`` raises if an estimate or the mixture
            has another number of samples than the references;
            ``"pad_or_truncate"`` zero-pads or cuts it (museval)
        root: folder prepended to relative paths

    Returns:
        tidy DataFrame as listed above; with ``permutation=True``
        a column ``estimate`` names the prediction column matched to
        each source (for ``"sa_sdr"``: the names joined by commas)

    Raises:
        TypeError: if an argument has the wrong type
        ValueError: for a bad index, a missing, unreadable or directory
            path (naming the file and column), unknown options,
            and sampling-rate, channel or
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
        >>> res = evaluate(truth, pred, metrics="global_sdr", window=None, root=folder)
        >>> [round(x, 2) for x in res["usdr"].tolist()]
        [20.0, 20.0]
        >>> import shutil
        >>> shutil.rmtree(folder)

    """
    metrics = check_option(metrics, "metrics", METRICS)
    length_mismatch = check_option(length_mismatch, "length_mismatch", LENGTH_MISMATCH)
    permutation = check_bool(permutation, "permutation")
    delta = check_delta(delta)
    if permutation and metrics not in PERMUTABLE:
        raise ValueError(
            f"permutation=True is not supported with metrics={metrics!r}; "
            f"use one of {list(PERMUTABLE)}."
        )
    classes = metrics == "ca_sdri"
    truth = check_frame(truth, "truth", allow_missing=classes)
    prediction = check_frame(prediction, "prediction", allow_missing=classes)
    if mixture is not None:
        mixture = check_frame(mixture, "mixture")
        if len(mixture.columns) != 1:
            raise ValueError(
                f"mixture must have one column of paths; got {len(mixture.columns)}."
            )
    elif classes:
        raise ValueError("metrics='ca_sdri' needs the mixture paths (mixture=...).")
    if root is not None and not isinstance(root, (str, os.PathLike)):
        raise TypeError(f"root must be a folder path or None; got {root!r}.")
    _check_files(truth, prediction, mixture)
    if not permutation and not classes and list(prediction.columns) != list(truth.columns):
        if set(prediction.columns) == set(truth.columns):
            prediction = prediction[truth.columns]
        else:
            raise ValueError(
                "prediction must have the same columns (sources) as truth unless "
                f"permutation=True; got {list(prediction.columns)} and {list(truth.columns)}."
            )
    options = {
        "metrics": metrics, "permutation": permutation, "window": window, "hop": hop,
        "filter_length": filter_length, "zero_mean": zero_mean, "delta": delta,
    }
    frames = []
    for file in truth.index:
        if classes:
            refs, t_labels, ests, p_labels, mix = load_classes(
                file, truth, prediction, mixture, root, length_mismatch
            )
            frames.append(score_classes(file, refs, t_labels, ests, p_labels, mix))
            continue
        refs, ests, mix, rate = load_file(file, truth, prediction, mixture, root, length_mismatch)
        frames.append(
            score_file(file, refs, ests, mix, rate, truth.columns, prediction.columns, options)
        )
    out = pd.concat(frames, ignore_index=True)
    if "source" in out:
        out["source"] = out["source"].astype(object)
    return out.set_index(LEVELS[metrics])


def _check_files(truth: pd.DataFrame, prediction: pd.DataFrame, mixture) -> None:
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


def aggregate(
    scores: pd.DataFrame,
    *,
    how: str = "median",
    level: str = "source",
) -> pd.DataFrame:
    r"""Aggregate the scores of :func:`evaluate` as SiSEC or DCASE do.

    Windows are aggregated first per (file, source),
    then files per source: with ``how="median"``
    the median over windows, then the median over files
    (SiSEC 2018 / museval's ``frames_agg='median', tracks_agg='median'``);
    with ``how="mean"`` the means.
    ``level="all"`` aggregates the (file, source) values over the sources
    of each file, then over files: one row, e.g. the challenge CA-SDRi
    (``how="mean"`` on ``metrics="ca_sdri"``: mean over the classes of each
    mixture, then over mixtures) or the mean SA-SDR over files.
    NaN values (silent windows) are ignored (museval uses ``nanmedian``).
    Columns that are not numeric (``estimate``, ``status``) are dropped.

    Args:
        scores: result of :func:`evaluate`
        how: ``"median"`` or ``"mean"``
        level: ``"source"`` (one row per source),
            ``"file"`` (one row per (file, source), windows aggregated)
            or ``"all"`` (one row)

    Returns:
        DataFrame of aggregated scores

    Raises:
        TypeError: if ``scores`` is not a DataFrame
        ValueError: if its index has no ``file`` level,
            ``level="source"`` without a ``source`` level,
            or an option is unknown

    Examples:
        >>> index = pd.MultiIndex.from_tuples(
        ...     [("f1", "a"), ("f2", "a"), ("f3", "a"), ("f3", "b")], names=["file", "source"]
        ... )
        >>> scores = pd.DataFrame({"si_sdr": [1.0, 2.0, 9.0, 3.0]}, index=index)
        >>> aggregate(scores)["si_sdr"].tolist()
        [2.0, 3.0]
        >>> aggregate(scores, how="mean")["si_sdr"].tolist()
        [4.0, 3.0]
        >>> aggregate(scores, how="mean", level="all")["si_sdr"].tolist()  # (1 + 2 + 6) / 3
        [3.0]

    """
    how = check_option(how, "how", AGGREGATIONS)
    level = check_option(level, "level", ("source", "file", "all"))
    if not isinstance(scores, pd.DataFrame):
        raise TypeError(f"scores must be a pandas.DataFrame; got {type(scores).__name__}.")
    names = list(scores.index.names)
    if "file" not in names:
        raise ValueError(f"scores must have index levels 'file' and 'source'; got {names}.")
    keys = ["file", "source"] if "source" in names else ["file"]
    if level == "source" and "source" not in names:
        raise ValueError(
            f"scores has index levels {names} (one row per file): "
            "use level='file' or level='all'."
        )
    numeric = scores.select_dtypes(include=[np.number])
    per_file = getattr(numeric.groupby(level=keys, sort=False), how)()
    if level == "file":
        return per_file
    if level == "source":
        return getattr(per_file.groupby(level="source", sort=False), how)()
    if len(keys) == 2:
        per_file = getattr(per_file.groupby(level="file", sort=False), how)()
    out = getattr(per_file, how)().to_frame().T
    out.index = pd.Index(["all"])
    return out
