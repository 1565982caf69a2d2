"""Forests of dtree's trees, drawn as scikit-learn draws its forests."""
