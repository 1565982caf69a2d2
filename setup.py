"""Build script: compiles the Cython kernels with -O3 and, where the compiler has
it, OpenMP (multi-core split search, partition and predict).

Set DTREE_CYTHON_CHECKS=1 to compile with bounds and wraparound checks on (the
debugging build that CI also tests). Set DTREE_OPENMP=0 to build single-threaded;
compilers without OpenMP (Apple clang without libomp) build single-threaded anyway.
"""
import os
import sys
import tempfile

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# -fno-trapping-math lets a loop's compare-and-select run on vector lanes (the
# kernels never trap on floating-point flags); every result stays IEEE's
COMPILE_ARGS = ["/O2"] if sys.platform == "win32" else ["-O3", "-fno-trapping-math"]
CHECKS = os.environ.get("DTREE_CYTHON_CHECKS", "") not in ("", "0")
MODULES = ["_criterion", "_splitter", "_sparse_splitter", "_hist_splitter", "_node_store", "_grow",
           "_c45", "_audit_scan", "_route", "_openmp", "_text_codes", "_columns"]

extensions = [
    Extension(
        f"dtree.{name}",
        [f"dtree/{name}.pyx"],
        include_dirs=[np.get_include()],
        extra_compile_args=COMPILE_ARGS,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_9_API_VERSION")],
    )
    for name in MODULES
]

OPENMP_PROBE = """#include <omp.h>
int main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }
"""


def openmp_flags(compiler):
    """(compile, link) flags enabling OpenMP, or empty lists where it is missing."""
    if os.environ.get("DTREE_OPENMP", "1") in ("0", ""):
        return [], []
    if compiler.compiler_type == "msvc":
        return ["/openmp"], []
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "probe.c")
        with open(source, "w") as fh:
            fh.write(OPENMP_PROBE)
        try:
            objects = compiler.compile([source], output_dir=tmp, extra_postargs=["-fopenmp"])
            compiler.link_executable(objects, os.path.join(tmp, "probe"),
                                     extra_postargs=["-fopenmp"])
        except Exception:  # the compiler or its runtime library lacks OpenMP
            print("dtree: OpenMP not available, building single-threaded", file=sys.stderr)
            return [], []
    return ["-fopenmp"], ["-fopenmp"]


class BuildExt(build_ext):
    def build_extensions(self):
        compile_args, link_args = openmp_flags(self.compiler)
        for ext in self.extensions:
            ext.extra_compile_args = list(ext.extra_compile_args) + compile_args
            ext.extra_link_args = list(ext.extra_link_args) + link_args
        super().build_extensions()


setup(
    cmdclass={"build_ext": BuildExt},
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": 3,
            "boundscheck": CHECKS,
            "wraparound": CHECKS,
            "cdivision": True,
            "initializedcheck": CHECKS,
        },
    )
)
