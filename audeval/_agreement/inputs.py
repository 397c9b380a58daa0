"""Ratings of several raters: the gate of the agreement family.

Every public function of the family takes ``annotations``:
a mapping rater -> Series (SPEC section 1, one Series per rater),
an audformat Database (every column with a ``rater_id``),
or, for two raters, ``truth`` and ``prediction`` Series.
:func:`check_ratings` validates each rater's Series with the shared gate
(:mod:`audeval._core.validation`: segmented or filewise index, NaT, negative times,
``end < start``, missing labels, seconds rounded to the nearest ns)
and turns them into int64 arrays over shared files and labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import dataclasses

import numpy as np
import pandas as pd

from audeval._core import options as _options
from audeval._core import validation as _validation
from audeval._core.file_levels import report_files as _report_files
from audeval._core.labels import check_label_list
from audeval._core.validation import NAT
from audeval._agreement.options import UNRATED  # noqa: F401  (re-exported)


@dataclasses.dataclass(frozen=True)
class Ratings:
    """Validated annotations of several raters as int64 arrays.

    Rows of all raters are concatenated; ``rater`` says whose row it is.
    ``rated[r, f]`` says whether rater ``r`` counts in file ``f``
    (``unrated="missing"``: only raters with rows in the file).
    ``ordered``: the order of ``labels`` was given
    (``labels=``, or every rater's Series an ordered categorical).
    """

    raters: list
    files: pd.Index
    labels: list
    rater: np.ndarray
    file: np.ndarray
    start: np.ndarray
    end: np.ndarray
    label: np.ndarray
    extent: np.ndarray
    rated: np.ndarray
    categorical: bool
    ordered: bool = False

    @property
    def n_raters(self) -> int:
        return len(self.raters)

    @property
    def n_files(self) -> int:
        return len(self.files)

    @property
    def n_labels(self) -> int:
        return len(self.labels)


def rater_annotations(
    db,
    *,
    scheme: str | None = None,
    tables: str | Sequence[str] | None = None,
) -> dict[object, pd.Series]:
    """Annotations of every rater of an audformat database.

    Collects every column with a ``rater_id``
    (``audformat.Column(scheme_id=..., rater_id=...)``)
    from the given tables (default: all tables),
    optionally only columns of one scheme.
    Columns of one rater in several tables are concatenated.
    Rows where a rater's column is empty (NaN) are left out:
    in a table shared by raters an empty cell means that rater gave no label there.

    Args:
        db: audformat database
        scheme: only columns of this scheme
        tables: table ID or IDs to search

    Returns:
        rater ID -> Series on the table's index, in the order of ``db.raters``

    Raises:
        TypeError: if ``db`` is not an audformat Database
        ValueError: if no rater column is found,
            or the columns use several schemes and ``scheme`` is not given

    Examples:
        >>> import audformat.testing
        >>> db = audformat.Database("qa")
        >>> db.schemes["emotion"] = audformat.Scheme(labels=["happy", "sad"])
        >>> db.raters["r1"] = audformat.Rater()
        >>> db.raters["r2"] = audformat.Rater()
        >>> index = audformat.segmented_index(["f1", "f1"], [0.0, 1.0], [1.0, 2.0])
        >>> db["segments"] = audformat.Table(index)
        >>> for rater, labels in {"r1": ["happy", "sad"], "r2": ["happy", None]}.items():
        ...     db["segments"][rater] = audformat.Column(scheme_id="emotion", rater_id=rater)
        ...     db["segments"][rater].set(labels)
        >>> annotations = rater_annotations(db)
        >>> {rater: len(series) for rater, series in annotations.items()}
        {'r1': 2, 'r2': 1}

    """
    import audformat

    if not isinstance(db, audformat.Database):
        raise TypeError(f"db must be an audformat.Database; got {type(db).__name__}.")
    if tables is None:
        table_ids = list(db.tables)
    else:
        table_ids = [tables] if isinstance(tables, str) else list(tables)
        unknown = [t for t in table_ids if t not in db.tables]
        if unknown:
            raise ValueError(f"tables {unknown} are not tables of the database {db.name!r}.")
    columns = [
        (table_id, column_id, column)
        for table_id in table_ids
        for column_id, column in db[table_id].columns.items()
        if column.rater_id is not None and (scheme is None or column.scheme_id == scheme)
    ]
    if not columns:
        raise ValueError(
            f"no column with a rater_id in tables {table_ids}"
            f"{'' if scheme is None else f' with scheme {scheme!r}'} of the database {db.name!r}."
        )
    schemes = sorted({str(c.scheme_id) for _, _, c in columns})
    if scheme is None and len(schemes) > 1:
        raise ValueError(
            f"the rater columns use the schemes {schemes}: pass scheme= to choose one."
        )
    parts: dict[object, list[pd.Series]] = {}
    for _, _, column in columns:
        series = column.get()
        parts.setdefault(column.rater_id, []).append(series[series.notna()])
    order = [r for r in db.raters if r in parts] + [r for r in parts if r not in db.raters]
    return {rater: pd.concat(parts[rater]) if len(parts[rater]) > 1 else parts[rater][0] for rater in order}


def as_mapping(annotations: object, prediction: object = None) -> dict:
    """``annotations`` as a mapping rater -> Series (see :func:`check_ratings`)."""
    if prediction is not None:
        if not isinstance(annotations, pd.Series):
            raise TypeError(
                "annotations must be a Series (truth) when prediction is given; "
                f"got {type(annotations).__name__}."
            )
        return {"truth": annotations, "prediction": prediction}
    if isinstance(annotations, Mapping):
        mapping = dict(annotations)
    elif type(annotations).__name__ == "Database":
        mapping = rater_annotations(annotations)
    elif isinstance(annotations, pd.Series):
        raise TypeError(
            "annotations is a single Series: pass a mapping rater -> Series, "
            "or truth and prediction Series."
        )
    else:
        raise TypeError(
            "annotations must be a mapping rater -> Series or an audformat Database; "
            f"got {type(annotations).__name__}."
        )
    if len(mapping) < 2:
        raise ValueError(f"annotations must hold at least two raters; got {list(mapping)}.")
    return mapping


def _label_list(sides: list[tuple[list, bool]], labels: Sequence[object] | None) -> list:
    if labels is None:
        try:
            return _validation.infer_labels(sides)
        except TypeError:
            types = sorted({type(v).__name__ for uniques, _ in sides for v in uniques})
            raise TypeError(
                f"the raters' labels are of types {types}, which cannot be ordered; "
                "pass labels=[...] to give the order."
            ) from None
    return check_label_list(labels, {v for uniques, _ in sides for v in uniques})


def _resolve_ends(raw, file, end, durations) -> np.ndarray:
    end = end.copy()
    open_end = end == NAT
    if open_end.any():
        end[open_end] = durations[file[open_end]]
        if (end == NAT).any():
            missing = sorted(set(raw.series.index.get_level_values("file")[end == NAT]))
            raise ValueError(
                f"{raw.name} has rows with end=NaT (until the end of the file) and no "
                f"duration is known for files {missing[:5]}; pass files_duration."
            )
    return end


def check_ratings(
    annotations: object,
    prediction: object = None,
    *,
    labels: Sequence[object] | None = None,
    files_duration: Mapping | pd.Series | None = None,
    unrated: str = "no_label",
) -> Ratings:
    """Validate the annotations of every rater and share files and labels.

    Files are the sorted union of the raters' files and the keys of ``files_duration``.
    A file's length is its ``files_duration``, else the latest end of any rater;
    rows beyond a given duration extend the file (with a warning).

    Args:
        annotations: mapping rater -> Series, audformat Database,
            or truth Series (with ``prediction``)
        prediction: prediction Series when ``annotations`` is the truth
        labels: labels to evaluate; rows of other labels are left out
        files_duration: file -> duration (seconds or timedelta)
        unrated: ``"no_label"``: a rater without rows in a file said "no label"
            everywhere in it; ``"missing"``: the rater did not rate the file
            (checked by the caller's options object)

    """
    mapping = as_mapping(annotations, prediction)
    raws = [
        _validation.take_apart(series, f"annotations[{rater!r}]", True)
        for rater, series in mapping.items()
    ]
    files = pd.Index([], dtype=object)
    for raw in raws:
        files = files.append(_validation._used_levels(raw))
    if files_duration is not None:
        keys = files_duration.index if isinstance(files_duration, pd.Series) else list(files_duration)
        files = files.append(pd.Index(keys))
    files = files.unique()
    try:
        files = files.sort_values()
    except TypeError:
        pass
    files = pd.Index(files, name="file")
    coded = [_validation._label_codes(raw) for raw in raws]
    label_list = _label_list([(u, c) for _, u, c in coded], labels)
    label_index = pd.Index(label_list, dtype=object)
    durations = _validation.durations_ns(files_duration, files)

    parts = []
    rated = np.zeros((len(raws), len(files)), dtype=bool)
    latest = np.zeros(len(files), dtype=np.int64)
    for r, (raw, (codes, uniques, _)) in enumerate(zip(raws, coded)):
        file = np.asarray(files.get_indexer(raw.file_levels), np.int64)[raw.file_codes]
        end = _resolve_ends(raw, file, raw.end, durations)
        rated[r, file] = True
        if len(file):
            np.maximum.at(latest, file, end)
        mapping_codes = np.asarray(label_index.get_indexer(pd.Index(uniques, dtype=object)))
        label = mapping_codes[codes] if len(uniques) else np.full(len(codes), -1)
        keep = label >= 0
        parts.append((np.full(int(keep.sum()), r), file[keep], raw.start[keep], end[keep], label[keep]))
    known = durations != NAT
    _report_files(files, list(rated), [str(rater) for rater in mapping], known)
    beyond = known & (latest > durations)
    if beyond.any():
        _options.warn(
            f"annotations have rows beyond files_duration in files {list(files[beyond][:5])}: "
            "those files are evaluated up to their latest end."
        )
    extent = np.where(known, np.maximum(durations, latest), latest)
    if unrated == "no_label":
        rated[:] = True
    arrays = [np.concatenate([p[k] for p in parts]).astype(np.int64) for k in range(5)]
    categorical = all(c for _, _, c in coded)
    ordered = labels is not None or all(
        isinstance(series.dtype, pd.CategoricalDtype) and series.dtype.ordered for series in mapping.values()
    )
    return Ratings(list(mapping), files, label_list, *arrays, extent, rated, categorical, ordered)  # type: ignore[call-arg, arg-type]  # arrays: the five columns rater, file, label, start, end
