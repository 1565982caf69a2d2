"""Checks of the arguments a fitted model's methods and exporters take (the
estimators' hyperparameters have theirs in ``_plan.constraints``): each error names
the argument."""
from .._plan.constraints import is_int


def int_at_least(value, name, low):
    """``value`` as an int when it is an integer (not a bool) of at least ``low``."""
    if not is_int(value) or value < low:
        raise ValueError(f"{name} must be an int >= {low}; got {value!r:.80}")
    return int(value)


def text(value, name):
    """``value`` when it is a str."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str; got {_shown(value)}")
    return value


def list_of_names(value, name):
    """``value`` as a list when it is a sequence of names; a ``TypeError`` naming
    ``name`` when it is one string or not a sequence at all."""
    if not isinstance(value, (str, bytes)):
        try:
            return list(value)
        except TypeError:   # a number, a 0-d array
            pass
    raise TypeError(f"{name} takes a list of names; got {_shown(value)}")


def _shown(value):
    """A value as an error shows it: its repr, cut short, and its type when the
    repr does not say it (a numpy 0-d array, a float)."""
    shown = f"{value!r:.60}"
    return shown if value is None or isinstance(value, str) else \
        f"{shown} ({type(value).__name__})"
