"""Math as MathML, converted when the docs are built: the pages need no script and no network.

Sphinx's default renderer (MathJax) loads a script from a CDN when the page is read,
so offline the reader sees raw ``\\(\\theta\\)``.
This renderer converts the LaTeX of ``:math:`` and ``.. math::`` at build time
with docutils' own converter (a dependency of Sphinx, nothing to install)
into MathML, which current browsers display natively.
A formula the converter does not know is a build warning (an error with ``-W``).
"""

from __future__ import annotations

import html
import re

from docutils import nodes
from docutils.utils.math import latex2mathml
from sphinx.util import logging

logger = logging.getLogger(__name__)


# commands docutils' converter does not know, as ones it knows
_REPLACE = [(re.compile(r"\\mathrel\{([^{}]*)\}"), r"{\1}")]


def _mathml(latex: str, node: nodes.Node, *, block: bool) -> str:
    for pattern, replacement in _REPLACE:
        latex = pattern.sub(replacement, latex)
    try:
        return latex2mathml.tex2mathml(latex, as_block=block)
    except (latex2mathml.MathError, SyntaxError) as error:
        logger.warning("math not converted to MathML (%s): %s", error, latex, location=node)
        return f'<code class="math">{html.escape(latex)}</code>'


def visit_math(self, node: nodes.Node) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate nohighlight"))
    self.body.append(_mathml(node.astext(), node, block=False))
    self.body.append("</span>")
    raise nodes.SkipNode


def visit_displaymath(self, node: nodes.Node) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"))
    if node.get("number"):
        number = self.builder.get_builder_config("math_numfig", "html") and node["number"]
        if number:
            self.body.append(f'<span class="eqno">({number})</span>')
    # paragraphs of a math directive are separate equations, as in Sphinx's LaTeX output
    for part in (p for p in node.astext().split("\n\n") if p.strip()):
        self.body.append(_mathml(part, node, block=True))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
