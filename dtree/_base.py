"""Parameter handling in scikit-learn's convention, without depending on it.

``__init__`` only stores its keyword arguments; ``get_params`` reads them back
from the signature, ``set_params`` writes them, and the repr shows those that
differ from their defaults. That is all ``clone``, ``Pipeline`` and
``GridSearchCV`` need.
"""
import inspect

# Estimator classes by name, filled by ``register``: model files find the class a
# header names here, so the reader never imports the estimator module.
ESTIMATORS = {}


X_PARAMETER = "X : array-like of shape (n_samples, n_features)"
XY_PARAMETERS = (X_PARAMETER, "y : array-like of shape (n_samples,)",
                 "sample_weight : array-like of shape (n_samples,), default=None")


def documented(summary, returns, parameters=(X_PARAMETER,)):
    """Give a method its numpydoc docstring from parts.

    The estimators' predict-like methods share their parameter text; written
    once here, it cannot drift between them.

    Parameters
    ----------
    summary : str
        The summary line, and any paragraphs after it.
    returns : str
        The Returns section's body (type line, then indented description).
    parameters : sequence of str, default=(X_PARAMETER,)
        The Parameters section's entries.
    """
    def attach(method):
        method.__doc__ = (f"{summary}\n\nParameters\n----------\n" + "\n".join(parameters)
                          + f"\n\nReturns\n-------\n{returns}\n")
        return method
    return attach


def register(cls):
    """Class decorator: make ``cls`` loadable from model files by its name."""
    ESTIMATORS[cls.__name__] = cls
    return cls


def parameter_names(cls):
    """The constructor parameters of an estimator class, sorted."""
    return cls._param_names()


class ParamsMixin:
    """get_params / set_params / repr from the ``__init__`` signature."""

    @classmethod
    def _param_names(cls):
        # read once per class: inspect.signature costs more than a small fit's checks
        names = cls.__dict__.get("_param_names_cache")
        if names is None:
            signature = inspect.signature(cls.__init__)
            names = tuple(sorted(
                name for name, p in signature.parameters.items()
                if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            ))
            cls._param_names_cache = names
        return list(names)

    @classmethod
    def _param_defaults(cls):
        defaults = cls.__dict__.get("_param_defaults_cache")
        if defaults is None:
            signature = inspect.signature(cls.__init__)
            names = cls._param_names()
            defaults = {name: p.default for name, p in signature.parameters.items()
                        if name in names}
            cls._param_defaults_cache = defaults
        return defaults  # shared: read it, do not change it

    def _store_params(self, arguments):
        """What ``__init__`` does in scikit-learn's convention: store each argument."""
        for name in self._param_names():
            setattr(self, name, arguments[name])

    def get_params(self, deep=True):
        """Parameters of this estimator.

        Parameters
        ----------
        deep : bool, default=True
            Accepted for compatibility; a tree has no sub-estimators.

        Returns
        -------
        dict
            Parameter names mapped to their values.
        """
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        """Set parameters of this estimator.

        Parameters
        ----------
        **params : dict
            New parameter values; unknown names raise ValueError.

        Returns
        -------
        self
        """
        valid = set(self._param_names())
        for name, value in params.items():
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {type(self).__name__}. "
                    f"Valid parameters are: {sorted(valid)!r}."
                )
            setattr(self, name, value)
        return self

    def __repr__(self):
        defaults = {
            name: p.default
            for name, p in inspect.signature(type(self).__init__).parameters.items()
            if name != "self"
        }
        shown = []
        for name in self._param_names():
            value = getattr(self, name)
            default = defaults.get(name, inspect.Parameter.empty)
            try:
                same = value is default or bool(value == default)
            except Exception:  # arrays and other values without a plain ==
                same = False
            if not same:
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"
