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


def with_defaults(**defaults):
    """Class decorator: an estimator that is its base class with other defaults
    (scikit-learn's ``ExtraTree*`` are its trees with ``splitter="random"`` and
    their own ``max_features``). Its ``__init__`` takes the base's keyword
    parameters and its signature shows the new defaults, which ``get_params``,
    ``clone``, the repr and the documentation read."""
    def decorate(cls):
        base_init = cls.__mro__[1].__init__
        signature = inspect.signature(base_init)
        unknown = set(defaults) - set(signature.parameters)
        if unknown:
            raise TypeError(f"{cls.__name__}: no parameters {sorted(unknown)} to default")
        signature = signature.replace(parameters=[
            p.replace(default=defaults[name]) if name in defaults else p
            for name, p in signature.parameters.items()])

        def __init__(self, **params):
            bound = signature.bind(self, **params)
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            del arguments["self"]
            base_init(self, **arguments)

        __init__.__signature__ = signature
        __init__.__qualname__ = f"{cls.__name__}.__init__"
        cls.__init__ = __init__
        return cls
    return decorate


def parameter_names(cls):
    """The constructor parameters of an estimator class, sorted."""
    return cls._param_names()


# set_<method>_request's "leave this request as it is"
UNCHANGED = "$UNCHANGED$"


class _Requests(dict):
    """An estimator's metadata requests ({method: {param: alias}}), copied whole by
    ``sklearn.base.clone`` (which clones what it finds in ``_metadata_request``)."""

    def __sklearn_clone__(self):
        return _Requests({method: dict(params) for method, params in self.items()})


class SklearnProtocols:
    """What scikit-learn asks of an estimator beyond parameters, scikit-learn imported
    only when it asks (dtree does not depend on it):

    - metadata routing (``sklearn.set_config(enable_metadata_routing=True)``):
      ``set_fit_request`` / ``set_score_request`` say whether a meta-estimator
      (``cross_validate``, ``GridSearchCV``, ``Pipeline``) passes
      ``sample_weight`` to ``fit`` / ``score``; ``get_metadata_routing`` reports
      it. The requests are kept as a plain dict in ``_metadata_request`` (the
      attribute ``sklearn.base.clone`` copies);
    - the notebook's HTML representation (``_repr_html_``).
    """

    # the metadata each method takes
    _metadata_params = {"fit": ("sample_weight",), "score": ("sample_weight",)}

    def set_fit_request(self, *, sample_weight=UNCHANGED):
        """Whether ``sample_weight`` is passed to ``fit`` by a meta-estimator
        (scikit-learn's metadata routing; only when it is enabled).

        Parameters
        ----------
        sample_weight : bool, None or str, default=UNCHANGED
            True: passed when given; False: not passed; None: an error if given;
            a str: passed under that name.

        Returns
        -------
        self
        """
        return self._set_request("fit", sample_weight=sample_weight)

    def set_score_request(self, *, sample_weight=UNCHANGED):
        """Whether ``sample_weight`` is passed to ``score`` (see ``set_fit_request``).

        Parameters
        ----------
        sample_weight : bool, None or str, default=UNCHANGED

        Returns
        -------
        self
        """
        return self._set_request("score", sample_weight=sample_weight)

    def _set_request(self, method, **requests):
        import sklearn
        if not sklearn.get_config().get("enable_metadata_routing", False):
            raise RuntimeError("This method is only available when metadata routing is "
                               "enabled. You can enable it using "
                               "sklearn.set_config(enable_metadata_routing=True).")
        stored = _Requests(getattr(self, "_metadata_request", None) or {})
        method_requests = dict(stored.get(method, {}))
        for name, alias in requests.items():
            if alias is UNCHANGED or (isinstance(alias, str) and alias == UNCHANGED):
                continue
            if not (alias is None or isinstance(alias, (bool, str))):
                raise ValueError(f"set_{method}_request: {name}={alias!r} must be True, "
                                 "False, None or a str (an alias)")
            method_requests[name] = alias
        stored[method] = method_requests
        self._metadata_request = stored
        return self

    def get_metadata_routing(self):
        """The metadata requests of this estimator (scikit-learn's ``MetadataRequest``).

        Returns
        -------
        sklearn.utils.metadata_routing.MetadataRequest
        """
        from sklearn.utils.metadata_routing import MetadataRequest
        routing = MetadataRequest(owner=self)
        stored = getattr(self, "_metadata_request", None) or {}
        for method, params in self._metadata_params.items():
            for name in params:
                getattr(routing, method).add_request(
                    param=name, alias=stored.get(method, {}).get(name))
        return routing

    def _repr_html_(self):
        """The notebook's view: scikit-learn's estimator diagram when it is installed."""
        try:
            from sklearn.utils import estimator_html_repr
        except ImportError:
            import html
            return f"<pre>{html.escape(repr(self))}</pre>"
        return estimator_html_repr(self)


class EstimatorType(type):
    """The estimators' class type: a class's repr says how shap reads it.

    ``shap.TreeExplainer`` knows tree models by their class path and offers no
    hook for others; what it tells a dtree user is "Model type not yet
    supported by TreeExplainer: " and the class's repr. That repr therefore
    names the way in, ``dtree.integrations.to_shap(model)``.
    """

    def __repr__(cls):
        return (f"<class '{cls.__module__}.{cls.__qualname__}'> (for shap: "
                "shap.TreeExplainer(dtree.integrations.to_shap(model)))")


class ParamsMixin(SklearnProtocols, metaclass=EstimatorType):
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


class PathResult(dict):
    """A dict whose keys are also attributes (scikit-learn's Bunch)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None
