"""Sphinx configuration of the audeval documentation.

Build: ``python -m sphinx -W docs build/html`` (warnings are errors).
Only sphinx's built-in extensions, matplotlib's plot directive and the local
extensions of ``docs/_ext`` are used; math is MathML written at build time
(no MathJax from a CDN: the pages render offline).
"""

import os
import sys

import matplotlib

matplotlib.use("Agg")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "_ext"))
sys.path.insert(0, os.path.dirname(HERE))  # the package from this checkout

import audeval  # noqa: E402


project = "audeval"
author = "the audeval developers"
copyright = "2026, the audeval developers"
version = audeval.__version__
release = audeval.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "mathml",  # docs/_ext/mathml.py: math as MathML at build time (no CDN, no script)
    "sphinx.ext.viewcode",
    "matplotlib.sphinxext.plot_directive",
    "audeval_api",
]

exclude_patterns = ["_build", "build", "Thumbs.db", ".DS_Store", "examples"]
templates_path = []
root_doc = "index"
language = "en"

# autodoc / autosummary / napoleon
autosummary_generate = False  # entries come from the audeval-api directive
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = False
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
napoleon_use_param = True

# matplotlib's plot directive: figures of the user guide, built with the docs
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 96)]
plot_rcparams = {"figure.max_open_warning": 0}
plot_pre_code = "import numpy as np\nimport pandas as pd\nimport audeval\n"

# math: MathML written at build time (docs/_ext/mathml.py), so the pages render offline
html_math_renderer = "mathml"

# HTML
html_theme = "alabaster"
html_title = f"audeval {release}"
html_static_path = []
html_theme_options = {
    "description": "Evaluate time-annotated audio labels on pandas/audformat objects",
    "page_width": "1100px",
    "sidebar_width": "240px",
}
