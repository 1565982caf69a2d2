"""The worked numbers of the tutorial notes in shared/seeds."""
import math

import numpy as np
import pytest

import dtree
from dtree._fit.gains import impurity


def test_entropy_of_seven_balls_is_1_277_nats():
    # seed 000: 3 red, 2 green, 1 pink, 1 blue balls
    bits = impurity([3, 2, 1, 1], "entropy")
    assert bits * math.log(2) == pytest.approx(1.277, abs=5e-4)


def test_information_gain_of_the_14c_16d_split_is_0_382_bits():
    # seed 004: 14 C / 16 D split into 13C/4D and 1C/12D
    parent = impurity([14, 16], "entropy")
    left = impurity([13, 4], "entropy")
    right = impurity([1, 12], "entropy")
    assert parent == pytest.approx(0.997, abs=5e-4)
    assert left == pytest.approx(0.787, abs=5e-4)
    assert right == pytest.approx(0.391, abs=5e-4)
    after = (17 * left + 13 * right) / 30
    # The notes subtract rounded entropies (0.997 - 0.615); unrounded the gain
    # is 0.3812, so the figures agree to the notes' last digit.
    assert after == pytest.approx(0.615, abs=1e-3)
    assert parent - after == pytest.approx(0.382, abs=1e-3)


def test_the_tree_finds_the_seed_004_split_and_reports_its_gain():
    # One feature that puts 13C/4D below the threshold and 1C/12D above.
    x = np.r_[np.zeros(17), np.ones(13)].reshape(-1, 1)
    y = np.r_[np.zeros(13), np.ones(4), np.zeros(1), np.ones(12)]
    clf = dtree.DecisionTreeClassifier(criterion="entropy", max_depth=1).fit(x, y)
    tree = clf.tree_
    gain = tree.impurity[0] - (17 * tree.impurity[1] + 13 * tree.impurity[2]) / 30
    assert gain == pytest.approx(0.382, abs=1e-3)
    assert tree.threshold[0] == 0.5


def test_gini_of_the_seed_003_example():
    # seed 003: 100 balanced observations split 40/10 and 10/40
    assert impurity([50, 50], "gini") == pytest.approx(0.5)
    assert impurity([40, 10], "gini") == pytest.approx(2 * 0.2 * 0.8)


def test_squared_error_impurity_is_the_variance():
    values = [1.0, 2.0, 4.0, 7.0]
    assert impurity(values, "squared_error") == pytest.approx(np.var(values))


def test_unknown_criterion_is_named():
    with pytest.raises(ValueError, match="unknown criterion 'gina'"):
        impurity([1, 2], "gina")
