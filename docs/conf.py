"""Sphinx configuration of dtree's documentation site.

Build it (from the root of a clone) with warnings as errors:

    pip install -e ".[docs]" && sphinx-build -W --keep-going -b html docs docs/_build/html

The example gallery (``docs/examples``) runs every example while the site is
built and writes ``docs/auto_examples`` (generated: not kept in git).
"""
import os
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")   # examples draw off-screen

HERE = Path(__file__).resolve().parent
# the package as built in place at the root of the clone (an editable install
# puts it on the path already; this makes a plain checkout with built kernels work),
# and docs/ itself for the gallery's order (_gallery_order.py)
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import dtree  # noqa: E402

project = "dtree"
author = "the dtree developers"
copyright = "the dtree developers, BSD-3-Clause"
version = release = dtree.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "**/GALLERY_HEADER.rst", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "auto_examples/*.codeobj.json",
                    "auto_examples/*.md5"]
templates_path = []

# -- MyST (the user guide is Markdown, readable on GitHub as it is) -----------
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
# links between guide pages are relative paths to the .md files, so that they
# work on GitHub as well as here

# -- autodoc / numpydoc -------------------------------------------------------
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "none"
autoclass_content = "class"
numpydoc_show_class_members = False     # members are listed by autodoc itself
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()      # style checks off: the docstrings live in dtree/
numpydoc_xref_param_type = False


def _escape_markup_accidents(app, what, name, obj, options, lines):
    """Plain text in dtree's docstrings that reST would read as markup.

    A word ending in an underscore before a quote (``default="proba_"``) reads
    as a hyperlink reference, and a lone asterisk before a word
    (``(n_outputs, *grid shape)``) as the start of emphasis. Both are escaped
    here, outside examples, so the docstrings stay as they are written.
    """
    for i, line in enumerate(lines):
        if line.lstrip().startswith((">>>", "...")):
            continue
        line = re.sub(r"(\w)_([\"'])", r"\1\\_\2", line)
        line = re.sub(r"(?<=[\s(])\*(?=\w[^*]*$)", r"\\*", line)
        lines[i] = line


def _examples_to_gallery(app, doctree):
    """The user guide links an example by its source file
    (``../examples/plot_x.py``), which is what GitHub can show. Here such a link
    goes to the example's gallery page instead of downloading the script."""
    from sphinx import addnodes

    for node in list(doctree.findall(addnodes.download_reference)):
        found = re.search(r"(?:^|/)examples/(plot_\w+)\.py$", node.get("reftarget", ""))
        if found is None:
            continue
        xref = addnodes.pending_xref("", refdomain="std", reftype="doc",
                                     reftarget=f"/auto_examples/{found.group(1)}",
                                     refexplicit=True, refwarn=True)
        xref += node.children
        node.replace_self(xref)


def setup(app):
    # before numpydoc (priority 500) reads the sections
    app.connect("autodoc-process-docstring", _escape_markup_accidents, priority=100)
    # before Sphinx collects the page's downloads (priority 500)
    app.connect("doctree-read", _examples_to_gallery, priority=100)


# -- doctest: the docstrings' examples run with `sphinx-build -b doctest` ------
doctest_global_setup = "import numpy as np"

# -- sphinx-gallery -------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",          # every plot_*.py runs at build time
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "_gallery_order.ExampleOrder",   # a newcomer's order
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "show_memory": False,
    "write_computation_times": True,
}

# Dask's scheduler and workers (the Dask example) log at INFO level by default
os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")

# -- HTML ---------------------------------------------------------------------
html_theme = "furo"
html_title = f"dtree {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_show_sourcelink = True
