"""The family-agnostic core: what every metric family is built from.

Nothing here knows a metric family; every layer above imports the public
names of these modules (the core's internal API; names with a leading
underscore stay inside the core):

* :mod:`.validation`: the one gate for truth/prediction Series
  (int64 nanoseconds, codes, file extents), with :mod:`.labels` and :mod:`.file_levels`;
* :mod:`.options`: checks of keyword options (seconds -> ns, ranges, choices);
* :mod:`.declare`: options declared once per family, declared metrics and statistics;
* :mod:`.protocol`: the family protocol (``Family``, stamped tables, the table gate);
* :mod:`.intervals`: grouped sorts, window joins, unions and overlaps;
* :mod:`.sweep`: the elementary-piece engine (who is active where, and how long together),
  with its strategies chosen by size: packed keys (:mod:`.sweep_keyed`, per-channel totals and runs
  of two sides), and for two sides' sums (:mod:`.sweep_sides`) bit masks (:mod:`.sweep_masks`)
  and pairs of overlapping intervals (:mod:`.sweep_pairs`);
* :mod:`.matching`: one-to-one matching of candidate pairs (optimal, greedy, lexicographic);
* :mod:`.tables`: additive statistics tables, built and read back;
* :mod:`.ratios`: metrics from summed counts, divide last, one set of zero-division rules;
* :mod:`.report`: rows per label, ``micro``, ``macro``, per-file blocks;
* :mod:`.warnings`: audeval's warnings, issued at the caller's line;
* :mod:`.docs`: argument docs shared by the families' docstrings, and :func:`~.docs.fill`, which fills them in.

Layers above, bottom to top: :mod:`audeval._io` (readers, example data),
the family packages (``_events``, ``_segments``, ``_sed_scores``, ``_diarization``,
``_structure``, ``_hierarchy``, ``_agreement``; each with ``options``, ``statistics``,
``reductions``, ``metrics`` and where needed ``report``, ``outcomes``, ``engine``),
:mod:`audeval._generic` (sum, accumulate, bootstrap, dask, matrix, compare, the registry),
then ``_cli``, ``_html``, ``plot`` and the public namespace ``audeval``.
``tests/test_layers.py`` enforces the order.
"""
