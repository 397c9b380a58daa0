"""audeval: evaluate time-annotated audio labels on pandas/audformat objects."""

__version__ = "0.1.0"
