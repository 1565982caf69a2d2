import os
import sys

# the test helpers (reference.py, helpers.py) import each other by module name
sys.path.insert(0, os.path.dirname(__file__))

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _seeded_global_random_state():
    # random_state=None draws its seed from numpy's global RandomState, as
    # scikit-learn does: seeded per test, a failure reproduces
    np.random.seed(0)
    yield
