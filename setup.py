"""Build script: compiles the Cython kernels with -O3.

Set DTREE_CYTHON_CHECKS=1 to compile with bounds and wraparound checks on (the
debugging build that CI also tests).
"""
import os
import sys

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

COMPILE_ARGS = ["/O2"] if sys.platform == "win32" else ["-O3"]
CHECKS = os.environ.get("DTREE_CYTHON_CHECKS", "") not in ("", "0")
MODULES = ["_criterion", "_splitter", "_tree", "_c45"]

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

setup(
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
