"""Validation of the arrays handed to the separation metrics."""

from __future__ import annotations

import numbers

import numpy as np
from audeval._core.warnings import warn


def as_sources(x: object, name: str) -> tuple[np.ndarray, bool]:
    """Return ``x`` as float64 of shape (sources, samples, channels).

    The second value tells whether the input had no channel axis
    (shape (sources, samples)), so that results can drop it again.
    """
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(
            f"{name} must be an array of shape (sources, samples[, channels]); "
            f"got {type(x).__name__}."
        )
    try:
        arr = np.asarray(x)
    except Exception as error:  # pragma: no cover - exotic objects
        raise TypeError(f"{name} must be array-like; got {type(x).__name__}.") from error
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or arr.dtype == bool
    ):
        raise TypeError(f"{name} must hold real numbers; got dtype {arr.dtype}.")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must hold real numbers; got dtype {arr.dtype}.")
    if arr.ndim not in (2, 3):
        raise ValueError(
            f"{name} must have shape (sources, samples) or "
            f"(sources, samples, channels); got shape {arr.shape}."
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0 or (arr.ndim == 3 and arr.shape[2] == 0):
        raise ValueError(f"{name} must not be empty; got shape {arr.shape}.")
    arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must not contain NaN or infinite samples.")
    if name == "truth" and arr.shape[1] < arr.shape[0]:
        warn(
            f"truth has shape {arr.shape}: fewer samples ({arr.shape[1]}) than sources "
            f"({arr.shape[0]}). The layout is (sources, samples[, channels]); "
            "transpose (samples, sources) arrays first.",
            UserWarning,
        )
    squeeze = arr.ndim == 2
    if squeeze:
        arr = arr[:, :, None]
    return arr, squeeze


def check_pair(
    truth: np.ndarray,
    prediction: np.ndarray,
    *,
    same_count: bool,
) -> None:
    """Check that samples and channels agree (and the source count if asked)."""
    if truth.shape[1] != prediction.shape[1]:
        raise ValueError(
            "truth and prediction must have the same number of samples; "
            f"got {truth.shape[1]} and {prediction.shape[1]} "
            "(pad or truncate prediction first)."
        )
    if truth.shape[2] != prediction.shape[2]:
        raise ValueError(
            "truth and prediction must have the same number of channels; "
            f"got {truth.shape[2]} and {prediction.shape[2]}."
        )
    if same_count and truth.shape[0] != prediction.shape[0]:
        raise ValueError(
            "truth and prediction must have the same number of sources "
            f"unless permutation=True; got {truth.shape[0]} and {prediction.shape[0]}."
        )


def as_mixture(mixture: object, truth: np.ndarray) -> np.ndarray:
    """Return a mixture of shape (samples, channels) matching ``truth``."""
    if isinstance(mixture, (str, bytes)):
        raise TypeError(f"mixture must be an array or None; got {type(mixture).__name__}.")
    arr = np.asarray(mixture)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise TypeError(f"mixture must hold real numbers; got dtype {arr.dtype}.")
    arr = arr.astype(np.float64, copy=False)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape != truth.shape[1:]:
        raise ValueError(
            "mixture must have shape (samples[, channels]) matching truth "
            f"{truth.shape[1:]}; got {np.shape(mixture)}."  # type: ignore[call-overload]  # np.shape takes any object at run time
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError("mixture must not contain NaN or infinite samples.")
    return arr


def check_bool(value: object, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r}.")
    return bool(value)


def check_positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}.")
    return int(value)


def check_seconds(value: object, name: str, *, allow_none: bool) -> float | None:
    if value is None:
        if allow_none:
            return None
        raise TypeError(f"{name} must be a duration in seconds, not None.")
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a duration in seconds (float); got {value!r}.")
    if not np.isfinite(value) or value <= 0:  # type: ignore[call-overload]  # a numbers.Real (numpy's stubs do not know it)
        raise ValueError(f"{name} must be a positive finite number of seconds; got {value!r}.")
    return float(value)


def check_sampling_rate(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"sampling_rate must be a number in Hz; got {value!r}.")
    if not np.isfinite(value) or value <= 0:  # type: ignore[call-overload]  # a numbers.Real (numpy's stubs do not know it)
        raise ValueError(f"sampling_rate must be positive and finite; got {value!r}.")
    return float(value)
