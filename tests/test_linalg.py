"""Tests of kmlib._linalg: Cholesky with jitter, solves and log-determinants."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from kmlib import _linalg


def spd(n, seed=0):
    B = np.random.default_rng(seed).normal(size=(n, n))
    return B @ B.T + n * np.eye(n)


def test_cholesky_of_a_well_conditioned_matrix_needs_no_jitter():
    A = spd(6)
    L, jitter = _linalg.cholesky(A)
    assert jitter == 0.0
    assert_allclose(L @ L.T, A, rtol=1e-13)
    assert np.allclose(L, np.tril(L))


def test_cholesky_adds_the_smallest_jitter_that_works_on_a_singular_matrix():
    x = np.linspace(0, 1, 30)[:, None]
    A = np.exp(-0.5 * (x - x.T) ** 2 / 0.5**2)  # numerically singular Gram matrix
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(A)
    L, jitter = _linalg.cholesky(A)
    assert 0 < jitter <= _linalg.MAX_JITTER * np.mean(np.diag(A))
    assert_allclose(L @ L.T, A + jitter * np.eye(30), atol=1e-12)


def test_cholesky_of_an_indefinite_matrix_fails_with_advice():
    with pytest.raises(np.linalg.LinAlgError, match="smallest eigenvalue is -1"):
        _linalg.cholesky(np.diag([1.0, -1.0, 2.0]))
    with pytest.raises(ValueError, match="square"):
        _linalg.cholesky(np.ones((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        _linalg.cholesky(np.array([[1.0, np.nan], [np.nan, 1.0]]))


def test_solves_and_log_determinant():
    A = spd(5, seed=1)
    B = np.random.default_rng(2).normal(size=(5, 3))
    L, _ = _linalg.cholesky(A)
    assert_allclose(A @ _linalg.cho_solve(L, B), B, atol=1e-12)
    assert_allclose(A @ _linalg.solve_psd(A, B[:, 0]), B[:, 0], atol=1e-12)
    assert_allclose(L @ _linalg.solve_lower(L, B), B, atol=1e-12)
    sign, logdet = np.linalg.slogdet(A)
    assert sign > 0 and _linalg.log_det(L) == pytest.approx(logdet, rel=1e-13)


def test_inverse_from_cholesky_is_symmetric_and_inverts():
    A = spd(30, seed=5)
    L, _ = _linalg.cholesky(A)
    A_inv = _linalg.inverse_from_cholesky(L)
    assert_allclose(A_inv, A_inv.T, rtol=0, atol=0)
    assert_allclose(A_inv @ A, np.eye(30), atol=1e-10)
