"""Tests of kmlib.kernels: invariants, gradients, closure rules and agreement with scikit-learn."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import sparse
from scipy.special import erf, gammaln, kve
from sklearn import gaussian_process as skgp
from sklearn.base import clone
from sklearn.metrics import pairwise
from sklearn.svm import SVC

from kmlib import kernels as K
from kmlib.kernels import _matern_integral

RNG_SEED = 20261121


def f_positive(X):
    return 1.0 + X[:, 0] ** 2


def cubic_features(X):
    return np.column_stack([X, X**2, X[:, :1] ** 3])


# Every kernel and every rule of kmlib.kernels, with hyperparameters away from 1 so that a
# wrong factor cannot hide. All are valid (positive semidefinite) kernels except Sigmoid.
VALID = {
    "Linear": K.Linear(variance=0.7),
    "Polynomial": K.Polynomial(degree=3, bias=0.5, variance=1.3),
    "Polynomial-homogeneous": K.Polynomial(degree=2, bias=0.0),
    "RBF": K.RBF(lengthscale=0.8, variance=1.7),
    "RBF-ARD": K.RBF(lengthscale=[0.5, 1.2, 2.0], variance=0.6),
    "Matern-1/2": K.Matern(lengthscale=0.9, variance=1.4, nu=0.5),
    "Matern-3/2-ARD": K.Matern(lengthscale=[0.6, 1.1, 1.9], variance=1.2, nu=1.5),
    "Matern-5/2": K.Matern(lengthscale=1.3, variance=0.8, nu=2.5),
    "Matern-0.8-ARD": K.Matern(lengthscale=[0.7, 0.4, 2.2], variance=1.1, nu=0.8),
    "Matern-3.7": K.Matern(lengthscale=1.1, variance=0.9, nu=3.7),
    "Matern-300": K.Matern(lengthscale=1.1, variance=0.9, nu=300.0),
    "Exponential": K.Exponential(lengthscale=0.6, variance=2.1),
    "RationalQuadratic": K.RationalQuadratic(lengthscale=0.9, variance=1.3, alpha=0.7),
    "RationalQuadratic-ARD": K.RationalQuadratic(lengthscale=[0.5, 1.0, 1.5], alpha=2.5),
    "Periodic": K.Periodic(lengthscale=0.9, variance=1.6, period=2.3),
    "Constant": K.Constant(variance=2.5),
    "White": K.White(variance=0.3),
    "PRMLKernel": K.PRMLKernel(theta0=1.5, theta1=4.0, theta2=10.0, theta3=5.0),
    "PRMLKernel-zeros": K.PRMLKernel(theta0=1.0, theta1=64.0, theta2=0.0, theta3=0.0),
    "ArcSine": K.ArcSine(weight_variance=1.5, bias_variance=0.4, variance=1.8),
    "ArcSine-ARD": K.ArcSine(weight_variance=[2.0, 0.3, 1.1], bias_variance=0.7),
    "scaled (6.13)": 2.5 * K.RBF(lengthscale=0.7),
    "Modulated (6.14)": K.Modulated(K.RBF(lengthscale=0.9, variance=1.2), f_positive),
    "PolynomialOf (6.15)": K.PolynomialOf(K.RBF(lengthscale=0.7, variance=1.2), [1.0, 2.0, 0.5]),
    "ExpOf (6.16)": K.ExpOf(K.Linear(variance=0.3)),
    "Sum (6.17)": K.RBF(lengthscale=1.1) + K.Linear(variance=0.5),
    "Product (6.18)": K.Matern(lengthscale=0.8, nu=1.5) * K.Periodic(period=1.7),
    "FeatureMapped (6.19)": K.FeatureMapped(K.RBF(lengthscale=1.3), cubic_features),
    "Bilinear (6.20)": K.Bilinear([[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 0.3]]),
    "Subspace sum (6.21)": K.Subspace(K.RBF(lengthscale=0.5), [0, 1])
    + K.Subspace(K.Linear(variance=2.0), [1, 2]),
    "Subspace product (6.22)": K.Subspace(K.RBF(lengthscale=0.5), [0, 1])
    * K.Subspace(K.Polynomial(degree=2), [1, 2]),
    "nested": 0.5 * (K.RBF(lengthscale=[0.5, 1.0, 2.0]) + K.White(variance=0.1)) * K.Linear(),
}
ALL = {**VALID, "Sigmoid": K.Sigmoid(scale=0.3, bias=-1.0)}


@pytest.fixture
def X():
    return np.random.default_rng(RNG_SEED).normal(size=(8, 3))


def central_differences(kernel, X, step=1e-5):
    """dK/dtheta by central differences in log space, shape (n, n, n_theta)."""
    theta = kernel.theta.copy()
    columns = []
    for j in range(theta.size):
        up, down = theta.copy(), theta.copy()
        up[j] += step
        down[j] -= step
        kernel.theta = up
        K_up = kernel(X)
        kernel.theta = down
        K_down = kernel(X)
        columns.append((K_up - K_down) / (2 * step))
    kernel.theta = theta
    return np.stack(columns, axis=2) if columns else np.zeros(X.shape[:1] * 2 + (0,))


@pytest.mark.parametrize("name", ALL)
def test_gradient_matches_central_differences(name, X):
    kernel = clone(ALL[name])
    K_value, dK = kernel(X, eval_gradient=True)
    assert_allclose(K_value, kernel(X), rtol=1e-13, atol=1e-14)
    assert dK.shape == X.shape[:1] * 2 + (kernel.theta.size,)
    numeric = central_differences(kernel, X)
    for j, theta_name in enumerate(kernel.theta_names):
        error = np.linalg.norm(dK[:, :, j] - numeric[:, :, j]) / np.linalg.norm(numeric[:, :, j])
        assert error < 1e-6, f"{name}: d/d log {theta_name} is off by {error:.2e} (relative)"


@pytest.mark.parametrize("name", ALL)
def test_gram_is_symmetric_and_matches_diag(name, X):
    kernel = ALL[name]
    gram = kernel(X)
    assert gram.shape == (8, 8)
    assert_allclose(gram, gram.T, rtol=1e-14, atol=1e-14)
    assert_allclose(kernel.diag(X), np.diag(gram), rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name", [n for n in ALL if n != "White" and n != "nested"])
def test_gram_equals_cross_matrix_with_itself(name, X):
    kernel = ALL[name]
    assert_allclose(kernel(X), kernel(X, X), rtol=1e-13, atol=1e-14)


def test_white_noise_is_the_documented_exception(X):
    # noise belongs to observations, so k(X, X) between two sets is zero while k(X) = s I
    white = K.White(variance=0.3)
    assert_allclose(white(X), 0.3 * np.eye(8))
    assert_allclose(white(X, X), np.zeros((8, 8)))
    assert_allclose(white(X, X[:3]), np.zeros((8, 3)))


@pytest.mark.parametrize("name", VALID)
def test_gram_is_positive_semidefinite(name):
    rng = np.random.default_rng(RNG_SEED + 1)
    kernel = VALID[name]
    for _ in range(10):
        X = rng.normal(scale=rng.uniform(0.3, 3.0), size=(25, 3))
        eigenvalues = np.linalg.eigvalsh(kernel(X))
        assert eigenvalues[0] >= -1e-10 * max(eigenvalues[-1], 1.0), name


def test_sigmoid_kernel_is_not_positive_semidefinite():
    # PRML (6.37): with a negative offset, tanh(a x^T x + b) < 0 on the diagonal for short x,
    # and a Gram matrix with a negative diagonal entry cannot be PSD.
    X = np.array([[0.1, 0.0], [2.0, 1.0], [-1.5, 2.0]])
    gram = K.Sigmoid(scale=1.0, bias=-1.0)(X)
    assert gram[0, 0] < 0
    assert np.linalg.eigvalsh(gram)[0] < -0.5
    # and even with b = 0 (so the diagonal is non-negative) the Gram matrix can be indefinite
    Z = np.array([[1.0, 0.0], [0.0, 1.0], [1.2, 1.2]])
    assert np.linalg.eigvalsh(K.Sigmoid(scale=2.0, bias=0.0)(Z))[0] < -1e-2


@pytest.mark.parametrize("name", ALL)
def test_theta_is_log_of_hyperparameters_and_round_trips(name, X):
    kernel = clone(ALL[name])
    before = kernel(X)
    theta = kernel.theta
    assert kernel.bounds.shape == (theta.size, 2)
    assert len(kernel.theta_names) == theta.size
    kernel.theta = theta
    assert_allclose(kernel(X), before, rtol=1e-12, atol=1e-14)
    with pytest.raises(ValueError, match="theta must have"):
        kernel.theta = np.zeros(theta.size + 1)


def test_theta_orders_and_logs_the_constructor_values():
    kernel = K.RBF(lengthscale=[0.5, 2.0], variance=3.0)
    assert kernel.theta_names == ["lengthscale[0]", "lengthscale[1]", "variance"]
    assert_allclose(kernel.theta, np.log([0.5, 2.0, 3.0]))
    assert_allclose(kernel.bounds, np.log([[1e-5, 1e5]] * 3))
    kernel.theta = np.log([1.0, 4.0, 0.5])
    assert_allclose(kernel.lengthscale, [1.0, 4.0])
    assert kernel.variance == pytest.approx(0.5)


def test_zero_terms_and_fixed_hyperparameters_are_left_out_of_theta():
    assert K.PRMLKernel(1.0, 4.0, 0.0, 0.0).theta_names == ["theta0", "theta1"]
    assert K.Polynomial(degree=2, bias=0.0).theta_names == ["variance"]
    fixed = K.RBF(lengthscale=0.5, variance=2.0, limits={"variance": "fixed"})
    assert fixed.theta_names == ["lengthscale"]
    narrow = K.RBF(limits={"lengthscale": (0.1, 10.0)})
    assert_allclose(narrow.bounds[0], np.log([0.1, 10.0]))
    composite = K.RBF() + K.White(limits={"variance": "fixed"})
    assert composite.theta_names == ["k1__lengthscale", "k1__variance"]


# ---------------------------------------------------------------- closure rules (6.13)-(6.22)
def test_rule_6_13_positive_scaling(X):
    base = K.RBF(lengthscale=0.7)
    assert_allclose((3.0 * base)(X), 3.0 * base(X))
    assert_allclose((base * 3.0)(X), 3.0 * base(X))
    for c in (0.0, -1.0):
        with pytest.raises(ValueError, match="c > 0"):
            c * base


def test_rule_6_14_function_on_both_sides(X):
    base = K.RBF(lengthscale=0.9)
    f = f_positive(X)
    assert_allclose(K.Modulated(base, f_positive)(X), np.outer(f, f) * base(X))
    Y = X[:3] + 0.1
    assert_allclose(K.Modulated(base, f_positive)(X, Y), np.outer(f, f_positive(Y)) * base(X, Y))


def test_rule_6_15_polynomial_with_non_negative_coefficients(X):
    base = K.Linear()
    B = base(X)
    assert_allclose(K.PolynomialOf(base, [1.0, 0.0, 3.0])(X), 1.0 + 3.0 * B**2)
    with pytest.raises(ValueError, match="non-negative"):
        K.PolynomialOf(base, [1.0, -1.0])(X)


def test_rule_6_16_exponential(X):
    base = K.Linear(variance=0.2)
    assert_allclose(K.ExpOf(base)(X), np.exp(base(X)))


def test_rules_6_17_and_6_18_sum_and_product(X):
    k1, k2 = K.RBF(lengthscale=0.6), K.Polynomial(degree=2)
    assert_allclose((k1 + k2)(X), k1(X) + k2(X))
    assert_allclose((k1 * k2)(X), k1(X) * k2(X))
    assert_allclose((k1 + 2.0)(X), k1(X) + 2.0)


def test_rule_6_19_kernel_on_a_feature_map(X):
    inner = K.RBF(lengthscale=1.3)
    assert_allclose(K.FeatureMapped(inner, cubic_features)(X), inner(cubic_features(X)))


def test_rule_6_20_bilinear_form(X):
    B = np.random.default_rng(1).normal(size=(3, 2))
    A = B @ B.T
    Y = X[:4] - 0.3
    assert_allclose(K.Bilinear(A)(X, Y), X @ A @ Y.T)
    for scale in (1.0, 1e-6):  # the test is relative, so a tiny indefinite A is caught too
        with pytest.raises(ValueError, match="positive semidefinite"):
            K.Bilinear(scale * np.diag([1.0, -1.0, 1.0]))(X)
    with pytest.raises(ValueError, match="symmetric"):
        K.Bilinear([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])(X)


def test_rules_6_21_and_6_22_kernels_on_overlapping_subspaces(X):
    ka, kb = K.RBF(lengthscale=0.5), K.Linear(variance=2.0)
    left, right = K.Subspace(ka, [0, 1]), K.Subspace(kb, [1, 2])
    assert_allclose((left + right)(X), ka(X[:, :2]) + kb(X[:, 1:]))
    assert_allclose((left * right)(X), ka(X[:, :2]) * kb(X[:, 1:]))
    with pytest.raises(ValueError, match="out of range"):
        K.Subspace(ka, [0, 5])(X)


# ---------------------------------------------------------------- agreement with scikit-learn
def sk_agree(ours, theirs, X, Y, reorder=None, gradient=True):
    """Values, cross values, diagonal and log-space gradients agree with scikit-learn."""
    assert_allclose(ours(X), theirs(X), rtol=1e-12, atol=1e-14)
    assert_allclose(ours(X, Y), theirs(X, Y), rtol=1e-12, atol=1e-14)
    assert_allclose(ours.diag(X), theirs.diag(X), rtol=1e-12)
    if not gradient:
        return
    _, d_ours = ours(X, eval_gradient=True)
    _, d_theirs = theirs(X, eval_gradient=True)
    order = range(d_ours.shape[2]) if reorder is None else reorder
    assert_allclose(d_ours[:, :, list(order)], d_theirs, rtol=1e-9, atol=1e-12)


def test_agreement_with_scikit_learn_kernels(X):
    Y = np.random.default_rng(RNG_SEED + 2).normal(size=(5, 3))
    C = skgp.kernels.ConstantKernel
    # ours: (lengthscale..., variance); scikit-learn: (constant, lengthscale...)
    sk_agree(K.RBF(0.8, 1.7), C(1.7) * skgp.kernels.RBF(0.8), X, Y, reorder=[1, 0])
    ard = [0.5, 1.2, 2.0]
    sk_agree(K.RBF(ard, 0.6), C(0.6) * skgp.kernels.RBF(ard), X, Y, reorder=[3, 0, 1, 2])
    for nu in (0.5, 1.5, 2.5, 0.8, 3.7):
        # scikit-learn differentiates the general-nu Matern numerically, so compare values
        # there (our analytic gradient meets central differences in its own test)
        sk_agree(
            K.Matern(0.9, 1.4, nu=nu),
            C(1.4) * skgp.kernels.Matern(0.9, nu=nu),
            X,
            Y,
            reorder=[1, 0],
            gradient=nu in (0.5, 1.5, 2.5),
        )
    sk_agree(K.Exponential(0.6), skgp.kernels.Matern(0.6, nu=0.5), X[:, :1], Y[:, :1], reorder=[0])
    sk_agree(
        K.RationalQuadratic(0.9, 1.3, 0.7),
        C(1.3) * skgp.kernels.RationalQuadratic(length_scale=0.9, alpha=0.7),
        X,
        Y,
        reorder=[1, 2, 0],
    )  # scikit-learn orders hyperparameters by name
    # one-dimensional inputs: in several dimensions our periodic kernel is the product form
    sk_agree(
        K.Periodic(0.9, 1.6, 2.3),
        C(1.6) * skgp.kernels.ExpSineSquared(length_scale=0.9, periodicity=2.3),
        X[:, :1],
        Y[:, :1],
        reorder=[1, 0, 2],
    )
    sk_agree(K.Constant(2.5), C(2.5), X, Y)
    sk_agree(
        K.Linear(0.7), C(0.7) * skgp.kernels.DotProduct(sigma_0=0.0, sigma_0_bounds="fixed"), X, Y
    )
    white, sk_white = K.White(0.3), skgp.kernels.WhiteKernel(0.3)
    sk_agree(white, sk_white, X, Y)


def test_agreement_with_scikit_learn_pairwise_kernels(X):
    Y = X[:5] * 0.5
    assert_allclose(
        K.Polynomial(degree=3, bias=0.5, variance=1.0)(X, Y),
        pairwise.polynomial_kernel(X, Y, degree=3, gamma=1.0, coef0=0.5),
    )
    assert_allclose(
        K.Sigmoid(scale=0.3, bias=-1.0)(X, Y), pairwise.sigmoid_kernel(X, Y, gamma=0.3, coef0=-1.0)
    )
    assert_allclose(K.Linear()(X, Y), pairwise.linear_kernel(X, Y))
    assert_allclose(K.RBF(lengthscale=0.8)(X, Y), pairwise.rbf_kernel(X, Y, gamma=1 / (2 * 0.64)))


def test_periodic_product_form_is_valid_where_the_euclidean_form_is_not():
    # sin^2 of the Euclidean distance (scikit-learn's ExpSineSquared) in 2-D gives indefinite
    # Gram matrices; the product over dimensions stays positive semidefinite on the same points
    X = np.random.default_rng(0).uniform(-3, 3, size=(30, 2))
    euclidean = skgp.kernels.ExpSineSquared(length_scale=1.0, periodicity=2.0)(X)
    product = K.Periodic(lengthscale=1.0, period=2.0)(X)
    assert np.linalg.eigvalsh(euclidean)[0] < -1e-2
    assert np.linalg.eigvalsh(product)[0] > -1e-12


def test_kernel_object_is_a_scikit_learn_svc_kernel():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    ours = SVC(kernel=K.RBF(lengthscale=0.7), C=2.0).fit(X, y)
    builtin = SVC(kernel="rbf", gamma=1 / (2 * 0.7**2), C=2.0).fit(X, y)
    assert_allclose(ours.decision_function(X), builtin.decision_function(X), rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- special cases and identities
def test_matern_closed_forms_match_the_bessel_form(X):
    for nu in (0.5, 1.5, 2.5):
        closed = K.Matern(lengthscale=0.8, nu=nu)(X)
        bessel = K.Matern(lengthscale=0.8, nu=nu * (1 + 1e-9))(X)
        assert_allclose(closed, bessel, rtol=1e-7)


def test_matern_tends_to_rbf_and_large_nu_does_not_overflow(X):
    # K_nu overflows at nu = 300; the integral form takes over (and the gradient stays finite)
    large, d_large = K.Matern(lengthscale=0.8, nu=300.0)(X, eval_gradient=True)
    assert np.all(np.isfinite(large)) and np.all(np.isfinite(d_large))
    # the gap to the RBF shrinks like 1/nu: about 7e-4 here
    assert_allclose(large, K.RBF(lengthscale=0.8)(X), atol=2e-3)
    assert np.abs(large - K.RBF(lengthscale=0.8)(X)).max() > 1e-5


def test_matern_integral_form_matches_the_bessel_form():
    z = np.array([1e-6, 0.3, 1.0, 4.0, 12.0])
    for nu in (1.0, 1.7, 7.3, 40.0):
        log_c = (1 - nu) * np.log(2) - gammaln(nu)
        bessel = np.exp(log_c + nu * np.log(z) + np.log(kve(nu, z)) - z)
        bessel_slope = -np.exp(log_c + nu * np.log(z) + np.log(kve(nu - 1, z)) - z)
        shape, slope = _matern_integral(z, nu)
        assert_allclose(shape, bessel, rtol=1e-12, atol=1e-15)
        # the slope near z = 0 is a difference of two O(1) integrals: compare absolutely
        assert_allclose(slope, bessel_slope, rtol=1e-12, atol=1e-13)


def test_isotropic_equals_ard_with_equal_lengthscales(X):
    for cls in (K.RBF, K.Matern, K.RationalQuadratic):
        assert_allclose(cls(lengthscale=0.7)(X), cls(lengthscale=[0.7] * 3)(X), rtol=1e-13)


def test_prml_kernel_is_the_sum_of_its_terms(X):
    t0, t1, t2, t3 = 1.5, 4.0, 10.0, 5.0
    expected = t0 * K.RBF(lengthscale=1 / np.sqrt(t1))(X) + t2 + t3 * X @ X.T
    assert_allclose(K.PRMLKernel(t0, t1, t2, t3)(X), expected, rtol=1e-13)


def test_arcsine_kernel_is_the_covariance_of_an_erf_unit():
    # k(x, x') = E[erf(u0 + u1 x) erf(u0 + u1 x')] with u0 ~ N(0, sb2), u1 ~ N(0, sw2), by
    # Gauss-Hermite quadrature in the two weights: an independent evaluation of R&W (4.29).
    sw2, sb2 = 2.0, 0.5
    nodes, weights = np.polynomial.hermite_e.hermegauss(300)  # converged: 200 nodes give 1e-10
    weights = weights / weights.sum()
    u0 = np.sqrt(sb2) * nodes[:, None]
    u1 = np.sqrt(sw2) * nodes[None, :]
    w = weights[:, None] * weights[None, :]
    x = np.array([-1.2, 0.0, 0.4, 2.0])
    expected = np.array([[np.sum(w * erf(u0 + u1 * a) * erf(u0 + u1 * b)) for b in x] for a in x])
    ours = K.ArcSine(weight_variance=sw2, bias_variance=sb2)(x[:, None])
    assert_allclose(ours, expected, atol=1e-12)


# ---------------------------------------------------------------- parameters and bad input
def test_clone_and_nested_parameters():
    kernel = 2.0 * K.RBF(lengthscale=0.5) + K.White(variance=0.1)
    params = kernel.get_params()
    assert params["k1__k2__lengthscale"] == 0.5
    copy = clone(kernel)
    copy.set_params(k1__k2__lengthscale=3.0)
    assert kernel.k1.k2.lengthscale == 0.5 and copy.k1.k2.lengthscale == 3.0
    assert repr(K.RBF(lengthscale=0.5)) == "RBF(lengthscale=0.5, variance=1.0)"
    with pytest.raises(ValueError, match="has no parameter 'length_scale'"):
        K.RBF().set_params(length_scale=1.0)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: K.RBF()(np.array([[0.0, np.nan]])), "X contains NaN"),
        (lambda: K.RBF()(np.zeros((2, 2)), np.array([[np.inf, 0.0]])), "Y contains infinite"),
        (lambda: K.RBF()(np.zeros((3, 2)), np.zeros((4, 3))), "X has 2 features but Y has 3"),
        (lambda: K.Linear()(np.zeros((3, 2)), np.zeros((4, 3))), "X has 2 features but Y has 3"),
        (lambda: K.RBF(lengthscale=0.0)(np.zeros((2, 1))), "lengthscale must be positive"),
        (lambda: K.RBF(lengthscale=-1.0)(np.zeros((2, 1))), "lengthscale must be positive"),
        (
            lambda: K.Matern(lengthscale=[1.0, -2.0])(np.zeros((2, 2))),
            "lengthscale must be positive",
        ),
        (
            lambda: K.RBF(lengthscale=[1.0, 2.0])(np.zeros((2, 3))),
            "lengthscale has 2 entries but the inputs have 3 features",
        ),
        (lambda: K.RBF(variance=np.nan)(np.zeros((2, 1))), "variance must be finite"),
        (lambda: K.Matern(nu=0.0)(np.zeros((2, 1))), "nu must be positive"),
        (lambda: K.Polynomial(degree=1.5)(np.zeros((2, 1))), "degree must be a positive integer"),
        (lambda: K.Periodic(lengthscale=[1.0, 2.0])(np.zeros((2, 2))), "single lengthscale"),
        (lambda: K.RBF()(np.zeros((2, 2, 2))), "X must have shape"),
        (lambda: K.RBF()(np.zeros((0, 2))), "X is empty"),
        (
            lambda: K.RBF()(np.zeros((2, 1)), np.zeros((2, 1)), eval_gradient=True),
            "eval_gradient=True needs Y=None",
        ),
        (lambda: K.RBF(limits={"scale": (1, 2)}).theta, "unknown hyperparameters"),
        (lambda: K.RBF(limits={"variance": (2, 1)}).theta, "0 < low < high"),
        (lambda: (K.RBF() + K.Linear())(np.array([[np.nan]])), "X contains NaN"),
    ],
)
def test_bad_input_raises_a_value_error_that_names_the_problem(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ---------------------------------------------------------------------- values beyond float64
@pytest.mark.parametrize(
    "kernel",
    [
        K.Linear(),
        K.Polynomial(degree=3),
        K.ArcSine(),
        K.Bilinear([[2.0, 0.5], [0.5, 1.0]]),
        K.Sum(K.RBF(), K.Linear()),
        K.Product(K.Linear(), K.Linear()),
    ],
    ids=repr,
)
def test_an_overflow_is_an_error_that_names_the_scale_not_a_matrix_of_inf(kernel):
    """Inputs near 1e160 have squares beyond float64: every evaluation (the Gram matrix, its
    diagonal, the gradient) of these kernels of inner products raises one ValueError that says
    to rescale X, with no RuntimeWarning about the overflow before it."""
    X = 1e160 * np.random.default_rng(RNG_SEED).normal(size=(4, 2))
    for evaluate in (kernel, kernel.diag, lambda X: kernel(X, eval_gradient=True)):
        with warnings.catch_warnings():  # an error, not a RuntimeWarning and then an error
            warnings.simplefilter("error", RuntimeWarning)
            with pytest.raises(ValueError, match="float64 overflows.*rescale X"):
                evaluate(X)


def test_a_product_of_finite_kernels_that_overflows_is_refused():
    """Each factor is finite (about 1e200), their product is not: the combination's own
    arithmetic is checked too."""
    X = np.array([[1e100], [2e100]])
    assert np.all(np.isfinite(K.Linear()(X)))
    with pytest.raises(ValueError, match=r"Linear\(variance=1.0\) \* Linear"):
        (K.Linear() * K.Linear())(X)


@pytest.mark.parametrize("name", sorted(VALID))
@pytest.mark.parametrize("factor", [1e-160, 1e-8, 1e8, 1e160])
def test_diag_matches_the_gram_diagonal_or_the_scale_is_refused(name, factor):
    """At extreme input scales a kernel either refuses them (ValueError) or gives a diagonal
    that agrees with its Gram matrix's."""
    kernel = VALID[name]
    X = factor * np.random.default_rng(RNG_SEED).normal(size=(5, 3))
    try:
        K_X, diag = kernel(X), kernel.diag(X)
    except ValueError as error:
        assert "X" in str(error)
        return
    assert np.all(np.isfinite(K_X)) and np.all(np.isfinite(diag))
    # relative agreement, except among subnormal numbers (1e-320), which have lost their digits
    assert_allclose(diag, np.diag(K_X), rtol=1e-7, atol=np.finfo(np.float64).tiny)


@pytest.mark.parametrize("kernel", [K.Constant(), K.White()], ids=repr)
def test_input_free_kernels_refuse_sparse_inputs_as_every_kernel_does(kernel):
    X = sparse.csr_matrix(np.ones((3, 2)))
    for evaluate in (kernel, kernel.diag):
        with pytest.raises(TypeError, match=r"sparse matrix; kmlib's kernels take dense arrays"):
            evaluate(X)


def test_a_numeric_kernel_given_strings_points_to_the_string_kernels():
    with pytest.raises(ValueError, match="use a string kernel of kmlib.structured"):
        K.RBF()(["the cat", "a dog"])


@pytest.mark.parametrize("operation", [lambda k: k + "a", lambda k: "a" * k])
def test_an_operand_that_is_no_kernel_is_refused_saying_what_works(operation):
    with pytest.raises(TypeError, match="needs a kmlib kernel or a positive number c; got 'a'"):
        operation(K.RBF())


def test_a_bilinear_form_refuses_a_matrix_that_is_not_symmetric():
    with pytest.raises(ValueError, match=r"A must be a finite symmetric matrix; .* up to 2"):
        K.Bilinear([[1.0, 2.0], [0.0, 1.0]])(np.eye(2))
