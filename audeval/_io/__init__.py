"""Reading what people have: annotation files, score folders, operating points, the example data.

* :mod:`.readers`: :func:`audeval.read_annotations` and its formats (SPEC section 8);
* :mod:`.events`, :mod:`.table`, :mod:`.common`: delimited event lists and their shared parts;
* :mod:`.scores`: sed_scores_eval score folders, psds_eval operating points;
* :mod:`.example`: the small example dataset shipped with audeval.

Imports the core only; the families and the CLI read through it.
"""
