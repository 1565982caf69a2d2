"""A fitted estimator's state, set in one place: ``install``.

A fit, a model file and the distributed fit all end by installing one
``Fitted``: every attribute scikit-learn's trees have after ``fit`` is set in
a single step (the instance's dictionary replaced at once), so that no reader
sees the columns of one fit beside the tree of another, and attributes an
earlier fit set but this one has not (``feature_names_in_``, ``ccp_alpha_``)
are gone.
"""
import dataclasses
import functools


@dataclasses.dataclass(frozen=True)
class Fitted:
    """Every fitted attribute of a tree estimator (None: this fit has none)."""

    tree_: object
    n_features_in_: int
    categorical_features_: object
    categories_: list
    n_outputs_: int
    max_features_: int
    feature_names_in_: object = None
    classes_: object = None
    n_classes_: object = None
    ccp_alpha_: float = None
    cp_table_: object = None


ATTRIBUTES = tuple(field.name for field in dataclasses.fields(Fitted))


def install(estimator, fitted):
    """Give ``estimator`` the attributes of ``fitted``, all at once."""
    state = {name: value for name, value in vars(estimator).items() if name not in ATTRIBUTES}
    state.update({name: getattr(fitted, name) for name in ATTRIBUTES
                  if getattr(fitted, name) is not None})
    estimator.__dict__ = state
    return estimator


def one_fit(method):
    """Decorator: ``method`` reads one fit's state, however many attributes it reads.

    ``install`` replaces the instance's dictionary and never edits it, so the
    dictionary a call starts with holds one fit's attributes from beginning to
    end; the method runs on a view of that dictionary. A ``predict`` while
    another thread refits the same estimator answers with the old model or the
    new one, never the new classes routed through the old tree.
    """
    @functools.wraps(method)
    def on_one_fit(self, *args, **kwargs):
        view = object.__new__(type(self))
        view.__dict__ = self.__dict__
        return method(view, *args, **kwargs)
    return on_one_fit
