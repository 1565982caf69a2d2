"""Release configuration: one version, valid workflows, the intended wheel builds."""
import importlib.metadata
import sys
from pathlib import Path

import yaml

import dtree

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_version_has_one_source():
    assert importlib.metadata.version("dtree-exact") == dtree.__version__
    assert _pyproject()["tool"]["setuptools"]["dynamic"]["version"]["attr"] == \
        "dtree._version.__version__"


def test_runtime_dependencies_are_numpy_only():
    project = _pyproject()["project"]
    assert [d.split(">")[0].split("=")[0] for d in project["dependencies"]] == ["numpy"]
    assert "scikit-learn>=1.6" in project["optional-dependencies"]["test"]
    assert project["license"] == "BSD-3-Clause" and project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("BSD 3-Clause License")
    assert "Source" in project["urls"]


def test_cibuildwheel_targets():
    config = _pyproject()["tool"]["cibuildwheel"]
    assert config["build"] == ["cp310-*", "cp311-*", "cp312-*", "cp313-*", "cp314-*"]
    assert config["linux"]["archs"] == ["x86_64", "aarch64"]
    assert config["macos"]["archs"] == ["x86_64", "arm64"]
    assert config["windows"]["archs"] == ["AMD64"]
    assert "*-musllinux_aarch64" in config["skip"] and "*-win32" in config["skip"]
    assert "pytest {project}/tests" in config["test-command"]
    assert config["test-extras"] == ["test"]


def test_workflows_are_valid_yaml_with_the_right_steps():
    wheels = yaml.safe_load((ROOT / ".github/workflows/wheels.yml").read_text())
    tests = yaml.safe_load((ROOT / ".github/workflows/tests.yml").read_text())
    # PyYAML reads the key "on" as True
    assert set(wheels[True]["push"]["tags"]) == {"v*"}
    jobs = wheels["jobs"]
    uses = [step.get("uses", "") for step in jobs["build_wheels"]["steps"]]
    assert any(u.startswith("pypa/cibuildwheel@v") for u in uses)
    assert any(u.startswith("actions/upload-artifact@") for u in uses)
    assert jobs["publish"]["permissions"] == {"id-token": "write"}
    assert "refs/tags/v" in jobs["publish"]["if"]
    publish_uses = [step.get("uses", "") for step in jobs["publish"]["steps"]]
    assert "pypa/gh-action-pypi-publish@release/v1" in publish_uses
    assert "build --sdist" in " ".join(s.get("run", "") for s in jobs["build_sdist"]["steps"])
    matrix = tests["jobs"]["pytest"]["strategy"]["matrix"]
    assert set(matrix["os"]) == {"ubuntu-latest", "macos-latest", "windows-latest"}
    assert matrix["python"] == ["3.10", "3.11", "3.12", "3.13"]
    checks = tests["jobs"]["bounds-checks"]["steps"]
    assert any(s.get("env", {}).get("DTREE_CYTHON_CHECKS") == "1" for s in checks)


def test_sdist_manifest_ships_sources_and_tests():
    manifest = (ROOT / "MANIFEST.in").read_text()
    for needed in ("*.pyx", "*.pxd", "*.h", "LICENSE", "README.md", "recursive-include tests"):
        assert needed in manifest
    # every C header ships beside the kernels (an sdist without one fails to build),
    # and each is one a kernel or another header includes
    headers = list((ROOT / "dtree").glob("*.h"))
    for header in headers:
        assert any(f'"{header.name}"' in source.read_text()
                   for source in list((ROOT / "dtree").glob("*.pyx")) + headers
                   if source != header), header.name
    assert "exclude dtree/*.c" in manifest


DIST_NAME = "dtree-exact"
README_COMMANDS = ('pip install -e ".[bench]" && python -m dtree.bench',
                   'pip install -e ".[test,onnx]" && pytest')


def test_distribution_name_is_ours_everywhere():
    # "dtree" on the package index is an unrelated project: every place that
    # tells users what to install names our distribution.
    assert _pyproject()["project"]["name"] == DIST_NAME
    readme = (ROOT / "README.md").read_text()
    assert f"pip install {DIST_NAME}" in readme
    assert "pip install dtree\n" not in readme and 'pip install "dtree[' not in readme
    assert DIST_NAME in (ROOT / "CHANGELOG.md").read_text()
    wheels = yaml.safe_load((ROOT / ".github/workflows/wheels.yml").read_text())
    assert wheels["jobs"]["publish"]["environment"]["url"].endswith("/" + DIST_NAME)
    for module in (ROOT / "dtree").rglob("*.py"):
        assert 'pip install "dtree[' not in module.read_text(), module


def test_ci_runs_both_readme_commands_verbatim():
    readme_lines = (ROOT / "README.md").read_text().splitlines()
    ci_lines = (ROOT / ".ci/run").read_text().splitlines()
    for command in README_COMMANDS:
        assert command in readme_lines
        assert command in ci_lines  # run as a line of its own, exactly as written
    # the benchmark runs before the suite, and nothing pip-installs behind the README's back
    assert ci_lines.index(README_COMMANDS[0]) < ci_lines.index(README_COMMANDS[1])
    installs = [line for line in ci_lines
                if line.lstrip().startswith("pip install") and line not in README_COMMANDS]
    assert installs == []


def test_per_test_timeout_is_configured():
    options = _pyproject()["tool"]["pytest"]["ini_options"]
    assert 0 < int(options["timeout"]) <= 600
    assert any(d.startswith("pytest-timeout") for d in
               _pyproject()["project"]["optional-dependencies"]["test"])


def test_package_imports_from_the_clone_root():
    # The README's commands run at the root of a clone, where the source folder
    # dtree/ comes first on sys.path: it must hold the compiled kernels. (Run
    # against an installed wheel, the suite checks the wheel's own folder instead.)
    import subprocess

    here = Path(dtree.__file__).resolve().parent
    from_clone = here == (ROOT / "dtree").resolve()
    proc = subprocess.run([sys.executable, "-c", "import dtree, dtree._criterion, "
                           "dtree._splitter, dtree._node_store, dtree._hist_splitter, dtree._c45, "
                           "dtree._route; print(dtree.__file__)"],
                          cwd=ROOT if from_clone else here.parent,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout.strip()).resolve().parent == here


def test_every_package_folder_is_listed_for_the_wheel():
    # a folder with an __init__.py missing from [tool.setuptools] packages is left
    # out of wheels and sdists' installs, though an editable install still finds it
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    package = ROOT / "dtree"
    folders = {".".join(p.parent.relative_to(ROOT).parts) for p in package.rglob("__init__.py")
               if "__pycache__" not in p.parts}
    assert folders <= listed, sorted(folders - listed)


def test_no_leftovers_of_patches_or_editors_ship():
    # (a patch run leaves .orig copies beside the files it changed; a wheel or an
    # sdist would carry them)
    leftovers = [str(p.relative_to(ROOT)) for folder in ("dtree", "tests", "bench", "docs")
                 for p in (ROOT / folder).rglob("*")
                 if p.suffix in (".orig", ".rej", ".bak", ".swp") or p.name.endswith("~")]
    assert leftovers == []
