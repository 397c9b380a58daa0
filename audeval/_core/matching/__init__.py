"""One-to-one matching of truth and prediction events.

The matchers take candidate pairs (``truth index, prediction index`` arrays,
all files at once) and return, for every truth event,
the index of its matched prediction or -1.

* :func:`maximum_matching`: maximum cardinality
  (isolated pairs directly, the rest by Dinic's maximum flow).
* :func:`lexicographic_matching`: the most same-label matches,
  and among all such matchings one that leaves the most
  other-label pairs (substitutions) among the leftovers;
  ties broken by index order.
* :func:`greedy_matching`: truth events in rank order each take
  the first still unmatched candidate in prediction rank order,
  the rule of audmetric and of sed_eval's "greedy" mode.
* :func:`match_segments`: both on validated events,
  numbered in canonical ``(file, start, end, label, row)`` order.
"""

from .greedy import greedy_matching, greedy_sorted
from .lexicographic import BATCH_SIZE, lexicographic_matching, lexicographic_sorted
from .match import match_segments
from .maximum import maximum_matching
from .order import canonical_order

__all__ = [
    "BATCH_SIZE",
    "canonical_order",
    "greedy_matching",
    "greedy_sorted",
    "lexicographic_matching",
    "lexicographic_sorted",
    "match_segments",
    "maximum_matching",
]
