import os
import sys

# the test helpers (reference.py, helpers.py) import each other by module name
sys.path.insert(0, os.path.dirname(__file__))
