"""Per-file score frames of the table-level evaluation, one builder per metric."""

from __future__ import annotations

import numpy as np
import pandas as pd

from audeval.separation._bss_eval import KEYS as BSS_KEYS
from audeval.separation._bss_eval import bss_eval_v4
from audeval.separation._bss_sources import KEYS as V3_KEYS
from audeval.separation._bss_sources import bss_eval_sources
from audeval.separation._class_aware import ca_sdri
from audeval.separation._global import chunked_sdr
from audeval.separation._global import global_sdr
from audeval.separation._global import sa_sdr
from audeval.separation._scale_invariant import KEYS as SI_KEYS
from audeval.separation._scale_invariant import scale_invariant


# metric -> index levels of evaluate's result
LEVELS = {
    "scale_invariant": ["file", "source"],
    "bss_eval_v4": ["file", "source", "start", "end"],
    "bss_eval_sources": ["file", "source"],
    "global_sdr": ["file", "source"],
    "sa_sdr": ["file"],
    "ca_sdri": ["file", "source"],
}
# metrics that match estimates to sources by an assignment
PERMUTABLE = ("scale_invariant", "bss_eval_v4", "bss_eval_sources", "sa_sdr")


def _channel_mean(values: np.ndarray) -> np.ndarray:
    """Mean over channels of a (sources, channels) array (NaN if any is NaN)."""
    return np.asarray(values).mean(axis=-1)


def _per_source(file, sources, data: dict) -> pd.DataFrame:
    frame = pd.DataFrame(data)
    frame.insert(0, "source", np.asarray(sources, dtype=object))
    frame.insert(0, "file", file)
    return frame


def _estimate_names(prediction_columns, assignment) -> np.ndarray:
    names = np.asarray(list(prediction_columns) + [None], dtype=object)
    return names[assignment]


def score_file(file, refs, ests, mix, rate, truth_cols, pred_cols, opt) -> pd.DataFrame:
    """Scores of one file of :func:`evaluate` (not ``ca_sdri``)."""
    metrics, permutation = opt["metrics"], opt["permutation"]
    if metrics == "scale_invariant":
        res = scale_invariant(refs, ests, mix, permutation=permutation, zero_mean=opt["zero_mean"])
        with np.errstate(invalid="ignore"):
            frame = _per_source(file, truth_cols, {k: _channel_mean(res[k]) for k in SI_KEYS})
    elif metrics == "bss_eval_sources":
        res = bss_eval_sources(
            refs, ests, filter_length=opt["filter_length"], permutation=permutation
        )
        with np.errstate(invalid="ignore"):
            frame = _per_source(file, truth_cols, {k: _channel_mean(res[k]) for k in V3_KEYS})
    elif metrics == "global_sdr":
        usdr = global_sdr(refs, ests, delta=opt["delta"])
        if opt["window"] is None:
            csdr = usdr
        else:
            csdr = chunked_sdr(
                refs, ests, sampling_rate=rate, chunk=opt["window"], delta=opt["delta"]
            )["median"]
        frame = _per_source(file, truth_cols, {"usdr": usdr, "csdr": csdr})
    elif metrics == "sa_sdr":
        res = sa_sdr(refs, ests, permutation=permutation)
        frame = pd.DataFrame({"file": [file], "sa_sdr": [float(np.mean(res["sa_sdr"]))]})
        if permutation:
            names = _estimate_names(pred_cols, res["estimate"])
            frame["estimate"] = ",".join(str(x) for x in names)
        return frame
    else:
        res = bss_eval_v4(
            refs, ests, sampling_rate=rate, window=opt["window"], hop=opt["hop"],
            filter_length=opt["filter_length"], permutation=permutation,
        )
        n_win = res["sdr"].shape[1]
        n_src = len(truth_cols)
        frame = pd.DataFrame({key: res[key].ravel() for key in BSS_KEYS})
        frame.insert(0, "end", pd.to_timedelta(np.tile(res["end"], n_src), unit="s"))
        frame.insert(0, "start", pd.to_timedelta(np.tile(res["start"], n_src), unit="s"))
        frame.insert(0, "source", np.repeat(np.asarray(truth_cols, dtype=object), n_win))
        frame.insert(0, "file", file)
    if permutation:
        chosen = _estimate_names(pred_cols, res["estimate"])
        if metrics == "bss_eval_v4":
            chosen = np.repeat(chosen, res["sdr"].shape[1])
        frame["estimate"] = chosen
    return frame


def score_classes(file, refs, t_labels, ests, p_labels, mix) -> pd.DataFrame:
    """Rows of one file for ``ca_sdri``: one per class of the union."""
    res = ca_sdri(refs, ests, mix, truth_labels=t_labels, prediction_labels=p_labels)
    return _per_source(file, res["labels"], {"sdri": res["sdri"], "status": res["status"]})
