"""The generic layers: what works for every registered family, reading only its declaration.

* :mod:`.registry`: the one list of families and the lookups of the layers below;
* :mod:`.sum`, :mod:`.rows`: sums of statistics tables over disjoint files;
* :mod:`.accumulate`: :class:`audeval.Accumulator` over validation batches;
* :mod:`.resample`, :mod:`.bootstrap`: bootstrap intervals on arrays;
* :mod:`.dask`: statistics on dask collections partitioned by file;
* :mod:`.matrix`: every metric for every ordered pair of raters;
* :mod:`.compare`: paired comparison of systems.

Imports the core, :mod:`audeval._io` and the family packages (through each family's
package, never its inner modules).
"""
