"""The README and the documentation site's sources, checked cheaply.

Every Python block of the README runs on its own (a fresh interpreter, in a
temporary folder), every gallery example compiles, every page the site's index
lists exists, every relative link of the README and the user guide points at a
file, and every public name is in the API reference. Building the site itself
(which runs the examples) is the docs workflow's job:
``sphinx-build -W --keep-going -b html docs docs/_build/html``.
"""
import importlib
import os
import py_compile
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"

# (docs/ ships in the sdist too: MANIFEST.in)


def python_blocks(text):
    """The ```python fenced blocks of a Markdown text, in order."""
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_the_readme_has_python_blocks():
    assert python_blocks(README.read_text(encoding="utf-8"))


@pytest.mark.parametrize("index", range(len(python_blocks(README.read_text(encoding="utf-8")))))
def test_each_readme_block_runs_on_its_own(index, tmp_path):
    block = python_blocks(README.read_text(encoding="utf-8"))[index]
    script = tmp_path / f"readme_block_{index}.py"
    script.write_text(block, encoding="utf-8")
    env = dict(os.environ, MPLBACKEND="Agg")
    # the package as it runs from the clone (an editable install or an installed
    # wheel is found the same way)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(Path(importlib.import_module("dtree").__file__).parents[1]),
                    env.get("PYTHONPATH")) if p)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         cwd=tmp_path, env=env, timeout=120)
    assert out.returncode == 0, f"README block {index}:\n{block}\n{out.stderr[-2000:]}"


def test_the_readme_keeps_the_docs_build_command():
    command = ('pip install -e ".[docs]" && sphinx-build -W --keep-going -b html docs '
               'docs/_build/html')
    assert command in README.read_text(encoding="utf-8").splitlines()
    workflow = (ROOT / ".github" / "workflows" / "docs.yml").read_text(encoding="utf-8")
    assert 'pip install -e ".[docs]"' in workflow
    assert "sphinx-build -W --keep-going -b html docs docs/_build/html" in workflow


@pytest.mark.parametrize("example", sorted((DOCS / "examples").glob("*.py")),
                         ids=lambda p: p.name)
def test_each_example_compiles(example, tmp_path):
    py_compile.compile(str(example), cfile=str(tmp_path / "example.pyc"), doraise=True)
    text = example.read_text(encoding="utf-8")
    assert example.name.startswith("plot_"), "sphinx-gallery runs plot_*.py only"
    assert text.lstrip().startswith('"""'), "a gallery example opens with its title"


def toctree_entries(rst):
    """The entries of every toctree directive of a reST file."""
    entries, inside = [], False
    for line in rst.splitlines():
        if line.startswith(".. toctree::"):
            inside = True
            continue
        if inside:
            if line and not line.startswith(" "):
                inside = False
            elif line.strip() and not line.strip().startswith(":"):
                entries.append(line.strip())
    return entries


def test_every_page_the_index_lists_exists():
    entries = toctree_entries((DOCS / "index.rst").read_text(encoding="utf-8"))
    assert "guide/estimators" in entries and "api/index" in entries
    for entry in entries:
        if entry == "auto_examples/index":      # generated from docs/examples
            assert (DOCS / "examples" / "GALLERY_HEADER.rst").exists()
            continue
        assert any((DOCS / f"{entry}{suffix}").exists() for suffix in (".md", ".rst")), entry
    api = toctree_entries((DOCS / "api" / "index.rst").read_text(encoding="utf-8"))
    for entry in api:
        assert (DOCS / "api" / f"{entry}.rst").exists(), entry


def markdown_links(text):
    """Relative link targets of a Markdown text (no URLs, no in-page anchors)."""
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [t.split("#")[0] for t in targets
            if not re.match(r"[a-z]+:", t) and not t.startswith("#")]


# the pages written by hand (a local build's generated ones left out)
PAGES = [README] + sorted(p for p in DOCS.rglob("*.md")
                          if "_build" not in p.parts and "auto_examples" not in p.parts)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_at_files(page):
    missing = [t for t in markdown_links(page.read_text(encoding="utf-8"))
               if not (page.parent / t).exists()]
    assert missing == []


def test_every_public_name_is_in_the_api_reference():
    import dtree
    import dtree.datasets
    import dtree.export
    import dtree.inspection
    import dtree.integrations

    api = {p.stem: p.read_text(encoding="utf-8") for p in (DOCS / "api").glob("*.rst")}
    documented = set(re.findall(r"^\.\. auto(?:class|function|exception|data):: ([\w.]+)",
                                "\n".join(api.values()), flags=re.M))
    modules = {"dtree": dtree, "dtree.export": dtree.export,
               "dtree.inspection": dtree.inspection, "dtree.integrations": dtree.integrations,
               "dtree.datasets": dtree.datasets}
    try:
        import dtree.dask
        modules["dtree.dask"] = dtree.dask
    except ImportError:     # dtree.dask needs dask installed only to run
        pass
    missing = []
    for modname, module in modules.items():
        names = getattr(module, "__all__", None)
        if names is None:   # dtree.datasets: its public functions
            names = [n for n, v in vars(module).items()
                     if callable(v) and not n.startswith("_")
                     and getattr(v, "__module__", None) == module.__name__]
        for name in names:
            if name == "__version__":
                continue
            # a name dtree re-exports from dtree.export is documented there
            if modname == "dtree" and f"dtree.export.{name}" in documented:
                continue
            if name not in documented and f"{modname}.{name}" not in documented:
                missing.append(f"{modname}.{name}")
    assert missing == [], f"not in docs/api/*.rst: {missing}"
