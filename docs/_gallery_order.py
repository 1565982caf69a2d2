"""The order of the example gallery: a newcomer's path, not the alphabet.

sphinx-gallery takes a sort key by its fully qualified name
(``within_subsection_order`` in ``conf.py``); an example not listed here goes
last, by file name.
"""

ORDER = (
    "plot_switch_from_sklearn.py",
    "plot_native_categories.py",
    "plot_rpart_pruning.py",
    "plot_audit_sql.py",
    "plot_dask_fit.py",
    "plot_speed.py",
)


class ExampleOrder:
    """Sort key of sphinx-gallery's ``within_subsection_order``."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        name = str(filename).replace("\\", "/").rsplit("/", 1)[-1]
        return (ORDER.index(name) if name in ORDER else len(ORDER), name)

    def __repr__(self):
        return "ExampleOrder"
