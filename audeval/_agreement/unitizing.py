r"""Krippendorff's unitizing alpha for a continuum with gaps.

Krippendorff, K. (1995). On the reliability of unitizing contiguous data.
*Sociological Methodology* 25, 47-76;
Krippendorff, K. (2004). *Content Analysis: An Introduction to Its Methodology*,
2nd ed., section 12.4 (the :math:`{}_u\alpha` coefficient and its worked example, p. 254).

For a category :math:`c`, every rater's continuum is cut into sections:
the rater's units of :math:`c` and the gaps between them
(units of other categories are gaps).
Sections :math:`g` of rater :math:`i` and :math:`h` of rater :math:`j`
(begin :math:`b`, end :math:`e`, length :math:`l`) that overlap differ by

.. math::

    \delta^2_{gh} = \begin{cases}
      (b_g - b_h)^2 + (e_g - e_h)^2 & \text{both units}\\
      l_g^2 & g \text{ a unit inside the gap } h\\
      l_h^2 & h \text{ a unit inside the gap } g\\
      0 & \text{otherwise}
    \end{cases}

and, with :math:`m` raters, a continuum of length :math:`L`,
the :math:`N_c` units :math:`U_c` and the gaps :math:`G_c` of all raters,
and :math:`u` the smallest length (the frame with ``frame_size``, 0 in continuous time),

.. math::

    D_o(c) = \frac{2}{m (m - 1) L^2} \sum_{i < j} \sum_{g, h} \delta^2_{gh},

    D_e(c) = \frac{2}{L}\,
      \frac{\sum_{k \in U_c} \left[\frac{N_c - 1}{3} (2 l_k^3 - 3 l_k^2 u + l_k u^2)
        + l_k^2 \sum_{g \in G_c,\, l_g \ge l_k} (l_g - l_k + u)\right]}
      {m L (m L - u) - \sum_{k \in U_c} l_k (l_k - u)},

    {}_u\alpha_c = 1 - \frac{D_o(c)}{D_e(c)},\qquad
    {}_u\alpha = 1 - \frac{\sum_c D_o(c)}{\sum_c D_e(c)}.

With ``u = 1`` and integer positions this is the published (discrete) coefficient;
``u = 0`` is its continuous limit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from audeval._agreement.inputs import check_ratings
from audeval._agreement.metrics import _undefined
from audeval._agreement.options import RATERS
from audeval._core.intervals import group_keys
from audeval._core.intervals import overlap_join
from audeval._core.sweep import snap_to_frames
from audeval._core.validation import NS_PER_SECOND


def _units(ratings, frame: int | None):
    """Units per lane ``(file, label, rater)``, sorted; overlapping rows of a lane merged.

    Rows of one rater and label that overlap with positive length become one unit;
    touching rows stay separate units.
    """
    start, end, extent = ratings.start, ratings.end, ratings.extent
    if frame is not None:
        start, end = snap_to_frames(start, end, frame)
        extent = -((-extent) // frame) * frame
    n_labels = np.int64(max(ratings.n_labels, 1))
    lane = (ratings.file * n_labels + ratings.label) * ratings.n_raters + ratings.rater
    keep = end > start
    lane, start, end = lane[keep], start[keep], end[keep]
    lanes, code = np.unique(lane, return_inverse=True)
    start_key, end_key = group_keys(len(lanes), (code, start), (code, end))
    order = np.argsort(start_key, kind="stable")
    lane, start, end = lane[order], start[order], end[order]
    start_key, end_key = start_key[order], end_key[order]
    reach = np.maximum.accumulate(end_key) if len(end_key) else end_key
    new = np.ones(len(lane), dtype=bool)
    new[1:] = (lane[1:] != lane[:-1]) | (start_key[1:] >= reach[:-1])
    first = np.flatnonzero(new)
    merged_end = np.maximum.reduceat(end, first) if len(first) else end
    return lane[first], start[first], merged_end, extent


def _gaps(lane, start, end, extent, n_raters, n_labels):
    """Gaps of every lane with units: before, between and after its units."""
    file = lane // (n_raters * n_labels)
    first = np.r_[True, lane[1:] != lane[:-1]] if len(lane) else np.zeros(0, bool)
    last = np.r_[lane[1:] != lane[:-1], True] if len(lane) else np.zeros(0, bool)
    prev_end = np.where(first, 0, np.r_[0, end[:-1]])
    g_lane = np.r_[lane, lane[last]]
    g_start = np.r_[prev_end, end[last]]
    g_end = np.r_[start, extent[file[last]]]
    keep = g_end > g_start
    return g_lane[keep], g_start[keep], g_end[keep]


def _observed(lane, start, end, g_lane, g_start, g_end, n_raters, groups_of_track, n_groups):
    """Sum of the differences of every pair of raters, per group."""
    s_lane = np.r_[lane, g_lane]
    s_start, s_end = np.r_[start, g_start], np.r_[end, g_end]
    unit = np.r_[np.ones(len(lane), bool), np.zeros(len(g_lane), bool)]
    # by rater, then track and start: each rater's sections are one slice
    rater = s_lane % n_raters
    order = np.lexsort((s_start, s_lane, rater))
    s_lane, s_start, s_end, unit = s_lane[order], s_start[order], s_end[order], unit[order]
    track, rater = s_lane // n_raters, s_lane % n_raters
    tracks, track_code = np.unique(track, return_inverse=True)
    bounds = np.searchsorted(rater, np.arange(n_raters + 1))
    has = np.zeros((n_raters, len(tracks)), bool)
    has[rater, track_code] = True
    seconds = 1.0 / NS_PER_SECOND
    out = np.zeros(n_groups)
    # pairs of raters: the overlapping sections of two raters (raters squared by nature)
    for i in range(n_raters):
        for j in range(i + 1, n_raters):
            a = np.arange(bounds[i], bounds[i + 1])
            b = np.arange(bounds[j], bounds[j + 1])
            has_a, has_b = has[i], has[j]
            # a unit of one rater in a track where the other has none lies in a full gap
            for own, other in ((a, has_b), (b, has_a)):
                alone = own[unit[own] & ~other[track_code[own]]]
                length = (s_end[alone] - s_start[alone]) * seconds
                np.add.at(out, groups_of_track(tracks[track_code[alone]]), length * length)
            a = a[has_b[track_code[a]]]
            b = b[has_a[track_code[b]]]
            p, q = overlap_join(
                len(tracks),
                track_code[a], s_start[a], s_end[a],
                track_code[b], s_start[b], s_end[b],
            )
            p, q = a[p], b[q]
            out_pairs = _delta(s_start[p], s_end[p], unit[p], s_start[q], s_end[q], unit[q])
            np.add.at(out, groups_of_track(track[p]), out_pairs)
    return out


def _delta(b1, e1, u1, b2, e2, u2) -> np.ndarray:
    """Difference of two overlapping sections (seconds squared)."""
    s = 1.0 / NS_PER_SECOND
    b1, e1, b2, e2 = b1 * s, e1 * s, b2 * s, e2 * s
    both = (b1 - b2) ** 2 + (e1 - e2) ** 2
    inside1 = (b2 <= b1) & (e1 <= e2)
    inside2 = (b1 <= b2) & (e2 <= e1)
    return np.where(
        u1 & u2, both,
        np.where(u1 & ~u2 & inside1, (e1 - b1) ** 2, np.where(~u1 & u2 & inside2, (e2 - b2) ** 2, 0.0)),
    )


def _expected(unit_group, unit_len, gap_group, gap_len, gap_weight, n_groups, m, length, u):
    """Expected disagreement per group (lengths in ns, sums in seconds)."""
    s = 1.0 / NS_PER_SECOND
    gap_key, unit_key = group_keys(n_groups, (gap_group, gap_len), (unit_group, unit_len))
    order = np.argsort(gap_key, kind="stable")
    gap_key, g_len, g_w, g_group = gap_key[order], gap_len[order] * s, gap_weight[order], gap_group[order]
    cum_w = np.r_[0.0, np.cumsum(g_w)]
    cum_wl = np.r_[0.0, np.cumsum(g_w * g_len)]
    pos = np.searchsorted(gap_key, unit_key, side="left")
    stop = np.searchsorted(g_group, unit_group, side="right")
    weight = cum_w[stop] - cum_w[pos]
    weighted = cum_wl[stop] - cum_wl[pos]
    lk = unit_len * s
    n_c = np.bincount(unit_group, minlength=n_groups).astype(np.float64)
    term = (n_c[unit_group] - 1) * (2 * lk**3 - 3 * lk**2 * u + lk * u * u) / 3.0
    term += lk * lk * (weighted - (lk - u) * weight)
    numerator = np.bincount(unit_group, weights=term, minlength=n_groups)
    squares = np.bincount(unit_group, weights=lk * (lk - u), minlength=n_groups)
    denominator = m * length * (m * length - u) - squares
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(numerator > 0, 2.0 / length * numerator / denominator, 0.0)


def unitizing_disagreement(ratings, frame: int | None, per_file: bool) -> tuple[np.ndarray, np.ndarray]:
    """Observed and expected disagreement, shape ``(files or 1, labels)``."""
    n_raters, n_labels, n_files = ratings.n_raters, max(ratings.n_labels, 1), ratings.n_files
    lane, start, end, extent = _units(ratings, frame)
    g_lane, g_start, g_end = _gaps(lane, start, end, extent, n_raters, n_labels)
    extent_s = extent / NS_PER_SECOND
    if per_file:
        n_groups = n_files * n_labels
        length = np.repeat(extent_s, n_labels)

        def groups_of_track(track):
            return track
    else:
        n_groups = n_labels
        length = np.full(n_labels, extent_s.sum())

        def groups_of_track(track):
            return track % n_labels

    observed = _observed(lane, start, end, g_lane, g_start, g_end, n_raters, groups_of_track, n_groups)
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = np.where(length > 0, 2.0 * observed / (n_raters * (n_raters - 1) * length**2), 0.0)
    # gaps of lanes without units: the whole file, once per rater without units
    track = np.unique(lane) // n_raters
    raters_with_units = np.bincount(track, minlength=n_files * n_labels)
    weight = n_raters - raters_with_units
    full = np.flatnonzero((weight > 0) & (np.repeat(extent, n_labels) > 0))
    gap_track = np.r_[g_lane // n_raters, full]
    gap_len = np.r_[g_end - g_start, extent[full // n_labels]]
    gap_weight = np.r_[np.ones(len(g_lane)), weight[full]].astype(np.float64)
    u = 0.0 if frame is None else frame / NS_PER_SECOND
    expected = _expected(
        groups_of_track(lane // n_raters), end - start,
        groups_of_track(gap_track), gap_len, gap_weight,
        n_groups, float(n_raters), length, u,
    )
    shape = (n_files if per_file else 1, n_labels)
    return observed.reshape(shape), expected.reshape(shape)


def _unitized_alpha(annotations, prediction, labels, options) -> float | dict | pd.Series | pd.DataFrame:
    """:func:`unitized_alpha` under a checked options object."""
    ratings = check_ratings(annotations, prediction, labels=labels, files_duration=options.files_duration)
    observed, expected = unitizing_disagreement(ratings, options.frame_size, options.per_file)
    pooled = options.average == "pooled"
    if pooled:
        observed, expected = observed.sum(axis=1), expected.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = 1.0 - observed / expected
    values = _undefined(values, ~(expected > 0), options.zero_division, "unitizing alpha")
    if pooled:
        return pd.Series(values, index=ratings.files, name="unitized_alpha") if options.per_file else float(values[0])
    if options.per_file:
        columns = pd.Index(ratings.labels, dtype=object, name="label")
        return pd.DataFrame(values, index=ratings.files, columns=columns)
    return {label: float(v) for label, v in zip(ratings.labels, values[0])}


@RATERS.statistics(_unitized_alpha)
def unitized_alpha(
    annotations: Mapping[object, pd.Series] | pd.Series,
    prediction: pd.Series | None = None,
    labels: Sequence[object] | None = None,
    *,
    average: str = "pooled",
    frame_size: float | pd.Timedelta | None = None,
    files_duration: Mapping | pd.Series | None = None,
    per_file: bool = False,
    zero_division: float = np.nan,
) -> float | dict | pd.Series | pd.DataFrame:
    r"""Krippendorff's unitizing alpha: agreement on boundaries and labels.

    Each label is a category whose units are a rater's rows of that label;
    everything else (other labels, no label) is a gap.
    Unlike the kappas, which compare categories moment by moment,
    :math:`{}_u\alpha` compares units:
    two raters who mark the same stretch as one unit or as two touching units disagree.
    For category :math:`c`, overlapping sections :math:`g, h` of two raters
    (begin :math:`b`, end :math:`e`, length :math:`l`) differ by
    :math:`(b_g - b_h)^2 + (e_g - e_h)^2` if both are units,
    :math:`l^2` of a unit that lies inside the other's gap, else 0;
    with :math:`m` raters, total length :math:`L`,
    the :math:`N_c` units and the gaps :math:`G_c` of all raters:

    .. math::

        D_o(c) = \frac{2}{m (m - 1) L^2} \sum_{i < j} \sum_{g, h} \delta^2_{gh},\quad
        D_e(c) = \frac{2}{L}
          \frac{\sum_{k} \left[\frac{N_c - 1}{3} (2 l_k^3 - 3 l_k^2 u + l_k u^2)
            + l_k^2 \sum_{g \in G_c, l_g \ge l_k} (l_g - l_k + u)\right]}
          {m L (m L - u) - \sum_k l_k (l_k - u)}

    and :math:`{}_u\alpha = 1 - \sum_c D_o(c) / \sum_c D_e(c)`
    (per label: :math:`1 - D_o(c) / D_e(c)`);
    Krippendorff (1995, 2004: 251-256).
    :math:`u` is the frame length with ``frame_size``
    (integer positions with ``frame_size=1`` give the published discrete coefficient),
    0 in continuous time (its limit).
    Files are taken one after another as one continuum
    whose gaps end at file boundaries; every rater rates every file
    (a rater without rows in a file has one gap there).
    Overlapping rows of one rater and label are merged into one unit;
    touching rows stay two units.
    Not a reduction of :func:`agreement_statistics`
    (the expected disagreement pairs units and gaps of all files),
    so it has no statistics table; ``per_file=True`` takes each file alone.
    :math:`D_e = 0` (no units, or no gaps) gives ``zero_division``.

    Args:
        annotations: mapping rater -> Series, an audformat Database,
            or the first rater's Series when ``prediction`` is given
        prediction: the second rater's Series
        labels: labels (categories); rows of other labels are left out
        average: ``"pooled"`` (Krippendorff's coefficient over all categories)
            or ``"none"`` (a dict label -> alpha)
        frame_size: length of the smallest unit (seconds or timedelta);
            positions are widened to its grid
        files_duration: file -> duration; else a file ends at the latest end of any rater
        per_file: one value per file (a Series; a DataFrame for ``average="none"``)
        zero_division: value where :math:`D_e = 0`

    Returns:
        unitizing alpha

    Raises:
        TypeError, ValueError: on invalid input or options

    Examples:
        >>> import audformat
        >>> from audeval import unitized_alpha
        >>> def rater(starts, ends, labels):
        ...     index = audformat.segmented_index(["f"] * len(starts), starts, ends)
        ...     return pd.Series(labels, index=index)
        >>> raters = {
        ...     "r1": rater([1.0, 5.0], [3.0, 8.0], ["a", "a"]),
        ...     "r2": rater([1.0, 5.0], [3.0, 7.0], ["a", "a"]),
        ... }
        >>> round(unitized_alpha(raters, files_duration={"f": 10.0}), 4)
        0.8338

    """
