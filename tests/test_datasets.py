"""Tests of kmlib.datasets: seeds, shapes and the exact posterior of the two-class set."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from kmlib import datasets


def test_same_seed_same_data():
    for make in (datasets.sinusoid, datasets.two_class, datasets.ard_toy):
        first, second = make(random_state=4), make(random_state=4)
        for a, b in zip(first, second):
            np.testing.assert_array_equal(a, b)


def test_sinusoid_noise_level():
    x, t = datasets.sinusoid(20000, random_state=0)
    residual = t - np.sin(2 * np.pi * x)
    assert residual.std() == pytest.approx(0.3, rel=0.02)  # standard error of a std ~ 0.5 %
    assert np.all(np.diff(x) >= 0) and 0 <= x.min() and x.max() <= 1
    x_even, _ = datasets.sinusoid(5, evenly_spaced=True, random_state=0)
    np.testing.assert_allclose(x_even, np.linspace(0, 1, 5))


def test_two_class_posterior_is_bayes_rule_for_the_generating_densities():
    X, t = datasets.two_class(4000, random_state=1)
    blue = multivariate_normal([0, 0], 0.25 * np.eye(2)).pdf(X)
    red = 0.5 * multivariate_normal([-1.5, 1], 0.09 * np.eye(2)).pdf(X) + 0.5 * multivariate_normal(
        [1.5, -0.5], 0.16 * np.eye(2)
    ).pdf(X)
    np.testing.assert_allclose(datasets.two_class_posterior(X), red / (red + blue), rtol=1e-10)
    # calibration: among points given probability p, a fraction ~p are red
    p = datasets.two_class_posterior(X)
    confident = p > 0.9
    assert t[confident].mean() > 0.9 - 3 * np.sqrt(0.09 / confident.sum())
    assert abs(t.mean() - 0.5) < 3 * np.sqrt(0.25 / len(t))


def test_ard_toy_relations():
    X, t = datasets.ard_toy(5000, random_state=2)
    assert (X[:, 1] - X[:, 0]).std() == pytest.approx(0.05, rel=0.05)
    assert X[:, 2].mean() == pytest.approx(0.5, abs=0.03) and X[:, 2].std() == pytest.approx(
        0.5, rel=0.05
    )
    assert (t - np.sin(2 * np.pi * X[:, 0])).std() == pytest.approx(0.1, rel=0.05)
