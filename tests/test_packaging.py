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
    assert importlib.metadata.version("dtree") == dtree.__version__
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
    for needed in ("*.pyx", "*.pxd", "LICENSE", "README.md", "recursive-include tests"):
        assert needed in manifest
    assert "exclude dtree/*.c" in manifest
