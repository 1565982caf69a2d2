"""What the exports for people share: category sets and other splits as text, and
matplotlib axes (``export``, ``drawing``, ``summary``)."""
from .._model.other_splits import COMPETITOR, SURROGATE


def _category_names(estimator, tree, node):
    categories = estimator.categories_[tree.feature[node]]
    return "{" + ", ".join(str(categories[c]) for c in tree.left_categories(node)) + "}"


def _dot_escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _axes(ax, figsize):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def other_split_lines(estimator, tree, node, names, decimals):
    """The kept competitors and surrogates of ``node``, a line each kind (what
    ``export_text`` and the drawings show of them)."""
    other = tree.other_splits
    if other is None:
        return []
    out = []
    for kind, label in ((COMPETITOR, "competitors"), (SURROGATE, "surrogates")):
        parts = []
        for k in other.rows(node, kind):
            f, row = other.feature[k], other.category_set[k]
            if row >= 0:
                cats = estimator.categories_[f]
                test = (f"{names[f]} in {{"
                        + ", ".join(str(cats[c]) for c in tree.left_categories_of(row)) + "}")
            else:
                test = f"{names[f]} <= {other.threshold[k]:.{decimals}f}"
            if kind == COMPETITOR:
                improve = tree.user_decrease(other.improvement[k])
                parts.append(f"{test} (improve {improve:.{decimals}f})")
            else:
                side = "left" if other.goes_left[k] else "right"
                parts.append(f"{test} goes {side} (agree {other.improvement[k]:.3f})")
        if parts:
            out.append(f"({label}: " + "; ".join(parts) + ")")
    return out
