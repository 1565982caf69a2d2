"""The ID3 preset: multiway categorical splits by information gain."""
import io

import numpy as np
import pytest

import dtree
from dtree import DecisionTreeClassifier, information_gains
from dtree.datasets import load
from dtree.export import export_text


@pytest.fixture(scope="module")
def tennis():
    frame = load("play_tennis")
    y = frame.pop("PlayTennis")
    return frame, y


def test_play_tennis_gains_at_the_root(tennis):
    X, y = tennis
    gains = information_gains(X, y)
    # Mitchell's Table 3.2 figures (he rounds intermediate entropies)
    for name, expected in [("Outlook", 0.246), ("Humidity", 0.151), ("Wind", 0.048),
                           ("Temperature", 0.029)]:
        assert gains[name] == pytest.approx(expected, abs=1e-3)


def test_play_tennis_id3_tree_is_the_classic_one(tennis):
    X, y = tennis
    clf = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    tree = clf.tree_
    names = list(X.columns)
    outlook = clf.categories_[names.index("Outlook")].tolist()

    def branch(value):
        # follow the Outlook cascade to the child holding `value`
        node = 0
        while names[tree.feature[node]] == "Outlook":
            left = [outlook[c] for c in tree.left_categories(node)]
            node = tree.children_left[node] if value in left else tree.children_right[node]
            if tree.children_left[node] == -1:
                break
        return node

    assert names[tree.feature[0]] == "Outlook"
    overcast = branch("Overcast")
    assert tree.children_left[overcast] == -1
    assert clf.classes_[tree.value[overcast, 0].argmax()] == "Yes"
    assert names[tree.feature[branch("Sunny")]] == "Humidity"
    assert names[tree.feature[branch("Rain")]] == "Wind"
    assert clf.score(X, y) == 1.0
    assert "Outlook in {Overcast}" in export_text(clf)


def test_multiway_importance_is_the_whole_gain(tennis):
    X, y = tennis
    clf = DecisionTreeClassifier(algorithm="id3", max_depth=2).fit(X, y)
    tree = clf.tree_
    # the cascade's impurity decreases add up to the multiway gain of Outlook
    w = tree.weighted_n_node_samples
    outlook = list(X.columns).index("Outlook")
    total = 0.0
    for node in np.flatnonzero(tree.children_left != -1):
        if tree.feature[node] == outlook:
            left, right = tree.children_left[node], tree.children_right[node]
            total += (w[node] * tree.impurity[node] - w[left] * tree.impurity[left]
                      - w[right] * tree.impurity[right]) / w[0]
    assert total == pytest.approx(information_gains(X, y)["Outlook"])


def test_gain_threshold_stops_growth(tennis):
    X, y = tennis
    stump = DecisionTreeClassifier(algorithm="id3", min_impurity_decrease=0.3).fit(X, y)
    assert stump.tree_.node_count == 1  # no attribute gains 0.3 bits at the root
    grown = DecisionTreeClassifier(algorithm="id3", min_impurity_decrease=0.2).fit(X, y)
    assert grown.tree_.node_count > 1


def test_id3_on_mushroom_and_round_trips():
    frame = load("mushroom", dtype=str, keep_default_na=False)
    y = frame.pop("class")
    clf = DecisionTreeClassifier(algorithm="id3").fit(frame, y)
    assert frame.columns[clf.tree_.feature[0]] == "odor"
    assert clf.score(frame, y) == 1.0
    buffer = io.BytesIO()
    clf.save(buffer)
    buffer.seek(0)
    np.testing.assert_array_equal(dtree.load(buffer).predict(frame), clf.predict(frame))


def test_id3_with_missing_values_and_numbers():
    titanic = load("titanic")[["Pclass", "Sex", "Age", "Embarked", "Survived"]]
    y = titanic.pop("Survived")
    clf = DecisionTreeClassifier(algorithm="id3", max_depth=6).fit(titanic, y)
    assert clf.categorical_features_.tolist() == [False, True, False, True]
    assert clf.score(titanic, y) > 0.8
    with pytest.raises(ValueError, match="max_leaf_nodes"):
        DecisionTreeClassifier(algorithm="id3", max_leaf_nodes=5).fit(titanic, y)
    with pytest.raises(ValueError, match="algorithm"):
        DecisionTreeClassifier(algorithm="c5.0").fit(titanic, y)


def test_numeric_gain_is_the_best_threshold_of_a_stump():
    titanic = load("titanic")
    y = titanic.pop("Survived")
    fare = titanic[["Fare"]]
    stump = DecisionTreeClassifier(criterion="entropy", max_depth=1).fit(fare, y).tree_
    w = stump.weighted_n_node_samples
    decrease = stump.impurity[0] - (w[1] * stump.impurity[1] + w[2] * stump.impurity[2]) / w[0]
    assert information_gains(fare, y)["Fare"] == pytest.approx(decrease, rel=1e-9)
