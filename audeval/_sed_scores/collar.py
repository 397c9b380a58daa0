"""Collar-based statistics at every threshold (SPEC section 3's tolerances, sed_scores_eval's ``collar_based``).

A detection :math:`d` matches a truth event :math:`g` of its class and file if
:math:`|\\text{on}_d - \\text{on}_g| \\le t_{on}` and
:math:`|\\text{off}_d - \\text{off}_g| \\le \\max(t_{off}, r \\,|g|)`;
at every threshold ``tp`` is the size of a maximum one-to-one matching
between the detections and the truth events, ``fp`` the other detections.

Candidate pairs (detection run, truth event) come from one window join on the onsets.
Where every run matches at most one truth event, the matching at a threshold
gives each truth event with at least one live candidate one match,
so ``tp`` changes where the union of its candidates' lifetimes begins and ends
(vectorised); groups (file, class) with a run matching several truth events
are solved exactly per threshold (maximum bipartite matching), which needs
truth events shorter than the two tolerances together.
"""

from __future__ import annotations

import numpy as np

from audeval._core.matching import maximum_matching
from audeval._core.intervals import merge, window_join
from audeval._sed_scores import deltas as _deltas
from audeval._sed_scores.inputs import ScoreInputs
from audeval._sed_scores.intersection import NS, Truth, _collect

SLACK = 1000  # ns: the 6-decimal rounding of compat mode may accept up to 0.5 us more


def _within(distance_ns, tolerance_ns, decimals):
    """``|distance| <= tolerance``, exact or sed_scores_eval's ``round(|d| - t, 6) <= 0`` in seconds."""
    if decimals is None:
        return np.abs(distance_ns).astype(np.float64) <= tolerance_ns
    return np.round(np.abs(distance_ns / NS) - tolerance_ns / NS, decimals) <= 0.0


def _pairs(truth: Truth, found, start, end, onset, offset, rate, decimals):
    """Candidate pairs (node, truth event) meeting both tolerances."""
    slack = SLACK if decimals is not None else 0
    node, item = window_join(
        truth.n_groups, truth.group, truth.start, found.group,
        start - onset - slack, start + onset + slack,
    )
    keep = _within(start[node] - truth.start[item], float(onset), decimals)
    node, item = node[keep], item[keep]
    if decimals is None:
        tolerance = np.maximum(float(offset), rate * truth.length[item].astype(np.float64))
    else:  # sed_scores_eval: max(offset_collar, rate * length) in seconds
        tolerance = np.maximum(offset / NS, rate * (truth.end[item] / NS - truth.start[item] / NS)) * NS
    keep = _within(end[node] - truth.end[item], tolerance, decimals)
    return node[keep], item[keep]


def collar_deltas(
    inputs: ScoreInputs, *, onset: int, offset: int, rate: float, decimals: int | None
):
    """Deltas of ``tp`` and ``fp`` per ``(group, level)`` (as the intersection engine returns)."""
    truth = Truth(inputs)
    truth.check_disjoint(inputs)
    # fp = detections - tp: the number of detections needs no tree (every group at once);
    # only groups with truth of their class can match
    columns: dict = {"fp": [_deltas.run_changes(inputs.scores, inputs.frame_file, inputs.n_files)],
                     "tp": []}
    found = _deltas.nodes(*_deltas.flatten(inputs.scores, inputs.frame_file, inputs.n_files, truth.present))
    start = inputs.frame_start[found.first]
    end = inputs.frame_end[found.last]
    node, item = _pairs(truth, found, start, end, onset, offset, rate, decimals)
    levels, birth, death = _deltas.ranks(found, node)
    degree = np.bincount(node, minlength=len(found.group))
    hard_group = np.zeros(truth.n_groups, dtype=bool)
    hard_group[found.group[degree > 1]] = True
    easy = ~hard_group[found.group[node]]
    tp = [_star_tp(truth, item[easy], birth[easy], death[easy])]
    tp += _exact_tp(found.group[node[~easy]], node[~easy], item[~easy], birth[~easy], death[~easy])
    for g, rank, change in tp:
        columns["tp"].append((g, levels[rank], change))
        columns["fp"].append((g, levels[rank], -change))
    return _collect(columns, truth.n_groups)


def _star_tp(truth: Truth, item, birth, death):
    """True positives where every run matches one truth event: union of candidate lifetimes.

    ``item``: the truth event of each candidate pair;
    ``birth``, ``death``: the ranks of the pair's run.
    """
    if len(item) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    # lifetime in ranks: death < rank <= birth, as the half-open [death + 1, birth + 1)
    event, low, high = merge(len(truth.group), item, death + 1, birth + 1)
    group = truth.group[event]
    falls = low > 0
    out_group = np.concatenate([group, group[falls]])
    rank = np.concatenate([high - 1, low[falls] - 1])
    change = np.concatenate([np.ones(len(group), np.int64), -np.ones(int(falls.sum()), np.int64)])
    return out_group, rank, change


def _exact_tp(groups, node, item, birth, death) -> list:
    """Maximum matching per threshold in the (rare) groups where a run matches several events.

    One entry per candidate pair: its group, run, truth event and the run's ranks.
    """
    out = []
    for g in np.unique(groups):  # groups with conflicts only
        mine = groups == g
        n, t, b, d = node[mine], item[mine], birth[mine], death[mine]
        ranks = np.unique(np.concatenate([b, d[d >= 0]]))[::-1]
        previous = 0
        rows, changes = [], []
        for rank in ranks:  # the thresholds where this group's candidates change
            alive = (b >= rank) & (d < rank)
            size = 0
            if alive.any():
                a_node, a_item = np.unique(n[alive], return_inverse=True)[1], np.unique(t[alive], return_inverse=True)[1]
                size = int((maximum_matching(a_node.max() + 1, a_item.max() + 1, a_node, a_item) >= 0).sum())
            if size != previous:
                rows.append(rank)
                changes.append(size - previous)
                previous = size
        out.append((np.full(len(rows), g, dtype=np.int64), np.asarray(rows, np.int64),
                    np.asarray(changes, np.int64)))
    return out
