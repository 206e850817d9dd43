"""Tests of kmlib.structured against brute force, quadrature and explicit feature maps."""

from itertools import chain, combinations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import integrate, stats

from kmlib import kernels as K
from kmlib.structured import (
    Fisher,
    ProbabilityProduct,
    SetIntersection,
    SubsequenceString,
    TfidfCosine,
    fisher_information,
)

RNG_SEED = 20261121


def assert_psd(gram):
    eigenvalues = np.linalg.eigvalsh(gram)
    assert eigenvalues[0] >= -1e-10 * max(eigenvalues[-1], 1.0)


# ---------------------------------------------------------------- sets, PRML (6.27)
def random_subsets(rng, universe, count):
    return [{e for e in universe if rng.random() < 0.5} for _ in range(count)]


def test_set_kernel_equals_the_subset_feature_map():
    # PRML Exercise 6.12: phi_U(A) = 1 when U is a subset of A, one feature per subset U of D
    universe = list("abcdef")
    all_subsets = list(chain.from_iterable(combinations(universe, r) for r in range(7)))
    assert len(all_subsets) == 2 ** len(universe)
    sets = random_subsets(np.random.default_rng(RNG_SEED), universe, 12)
    phi = np.array([[set(U) <= A for U in all_subsets] for A in sets], dtype=float)
    gram = SetIntersection()(sets)
    assert_allclose(gram, phi @ phi.T, rtol=0, atol=0)
    assert_allclose(gram, [[2.0 ** len(a & b) for b in sets] for a in sets])
    assert_allclose(SetIntersection().diag(sets), np.diag(gram))
    assert_psd(gram)


def test_set_kernel_cross_matrix_and_scaling():
    A = [{1, 2, 3}, set(), {"x"}]
    B = [{2, 3}, {"x", 1}]
    assert_allclose(SetIntersection()(A, B), [[4.0, 2.0], [1.0, 1.0], [1.0, 2.0]])
    # a constant factor (PRML 6.13) works on structured inputs too
    assert_allclose((3.0 * SetIntersection())(A), 3.0 * SetIntersection()(A))


# ---------------------------------------------------------------- strings
def brute_force_subsequence_kernel(s, t, order, decay):
    """Sum over all index tuples i of s and j of t that spell the same subsequence."""
    total = 0.0
    for i in combinations(range(len(s)), order):
        u = "".join(s[a] for a in i)
        for j in combinations(range(len(t)), order):
            if "".join(t[b] for b in j) == u:
                total += decay ** ((i[-1] - i[0] + 1) + (j[-1] - j[0] + 1))
    return total


def test_subsequence_kernel_equals_brute_force_enumeration():
    rng = np.random.default_rng(RNG_SEED)
    words = ["".join(rng.choice(list("abc"), size=rng.integers(0, 8))) for _ in range(8)]
    words += ["cat", "car", "bar"]
    for order, decay in [(1, 0.5), (2, 0.5), (3, 0.8), (2, 1.0)]:
        kernel = SubsequenceString(order=order, decay=decay, normalize=False)
        expected = [
            [brute_force_subsequence_kernel(s, t, order, decay) for t in words] for s in words
        ]
        assert_allclose(kernel(words), expected, rtol=1e-12, atol=1e-15)


def test_subsequence_kernel_worked_example():
    # Lodhi et al. (2002), order 2: k(cat, car) = lambda^4 from the shared subsequence "ca"
    lam = 0.7
    assert SubsequenceString(order=2, decay=lam, normalize=False)(["cat"], ["car"])[
        0, 0
    ] == pytest.approx(lam**4, rel=1e-14)


def test_normalized_subsequence_kernel_is_a_valid_cosine():
    words = ["kernel", "kennel", "colonel", "methods", "method", "a"]
    kernel = SubsequenceString(order=2, decay=0.6)
    gram = kernel(words)
    assert_allclose(np.diag(gram)[:-1], 1.0, rtol=1e-14)
    assert gram[-1, -1] == 0.0  # "a" is shorter than the order: no subsequences
    assert_allclose(kernel.diag(words), np.diag(gram), rtol=1e-14)
    assert_psd(gram)
    assert gram[0, 1] > gram[0, 4]  # "kernel" is closer to "kennel" than to "method"


# ---------------------------------------------------------------- documents, MLAPP (14.5)-(14.8)
CORPUS = [
    "the kernel trick replaces inner products",
    "a gaussian process is a distribution over functions",
    "the support vector machine maximises the margin",
    "kernel methods need a kernel function",
]


def test_tfidf_cosine_follows_mlapp_formulas():
    vocabulary = sorted({w for doc in CORPUS for w in doc.split()})
    counts = np.array([[doc.split().count(w) for w in vocabulary] for doc in CORPUS], float)
    idf = np.log(len(CORPUS) / (1.0 + (counts > 0).sum(axis=0)))
    phi = np.log1p(counts) * idf
    phi /= np.linalg.norm(phi, axis=1, keepdims=True)
    kernel = TfidfCosine(CORPUS)
    assert_allclose(kernel(CORPUS), phi @ phi.T, rtol=1e-13, atol=1e-15)
    assert_allclose(kernel.diag(CORPUS), 1.0)
    assert_psd(kernel(CORPUS))


def test_tfidf_ignores_unknown_words_and_gives_zero_rows():
    kernel = TfidfCosine(CORPUS)
    query = ["Kernel kernel trick!", "quantum chromodynamics"]
    gram = kernel(query, CORPUS)
    assert gram.shape == (2, 4)
    assert np.all(gram[1] == 0)
    assert np.argmax(gram[0]) in (0, 3)
    assert_allclose(kernel(["kernel trick"]), kernel(["kernel trick zebra"]))


# ---------------------------------------------------------------- distributions, MLAPP (14.23)
def random_gaussian(rng, D):
    B = rng.normal(size=(D, D))
    return rng.normal(size=D), B @ B.T + 0.5 * np.eye(D)


def test_probability_product_with_rho_one_is_a_gaussian_density():
    rng = np.random.default_rng(RNG_SEED)
    (m1, S1), (m2, S2) = random_gaussian(rng, 3), random_gaussian(rng, 3)
    value = ProbabilityProduct(rho=1.0)([(m1, S1)], [(m2, S2)])[0, 0]
    assert value == pytest.approx(stats.multivariate_normal(m2, S1 + S2).pdf(m1), rel=1e-12)


@pytest.mark.parametrize("rho", [0.5, 1.0, 1.7])
def test_probability_product_matches_quadrature(rho):
    rng = np.random.default_rng(RNG_SEED + 1)
    (m1, S1), (m2, S2) = random_gaussian(rng, 2), random_gaussian(rng, 2)
    p1, p2 = stats.multivariate_normal(m1, S1), stats.multivariate_normal(m2, S2)
    numeric, _ = integrate.dblquad(
        lambda y, x: (p1.pdf([x, y]) * p2.pdf([x, y])) ** rho,
        -15,
        15,
        -15,
        15,
        epsabs=1e-13,
        epsrel=1e-11,
    )
    assert ProbabilityProduct(rho)([(m1, S1)], [(m2, S2)])[0, 0] == pytest.approx(numeric, rel=1e-8)


def test_probability_product_isotropic_case_is_an_rbf_kernel():
    # MLAPP (14.24) generalised to rho: Gaussians N(x_i, s2 I) give an RBF kernel in the means
    rng = np.random.default_rng(RNG_SEED + 2)
    X, s2, D = rng.normal(size=(6, 2)), 0.3, 2
    for rho in (0.5, 1.0, 2.0):
        gram = ProbabilityProduct(rho)([(x, s2) for x in X])
        constant = (2 * np.pi * s2) ** (-rho * D) * (np.pi * s2 / rho) ** (D / 2)
        rbf = K.RBF(lengthscale=np.sqrt(2 * s2 / rho))(X)
        assert_allclose(gram, constant * rbf, rtol=1e-12)
    bhattacharyya = ProbabilityProduct(0.5)([(x, [0.2, 0.4]) for x in X])
    assert_allclose(np.diag(bhattacharyya), 1.0, rtol=1e-12)
    assert_psd(bhattacharyya)


# ---------------------------------------------------------------- Fisher kernel, PRML (6.33)
def gaussian_mean_score(S):
    """Score of N(x | mu, S) with respect to mu at mu = 0: S^{-1} x (PRML Exercise 6.14)."""
    return lambda X: np.linalg.solve(S, np.asarray(X, float).T).T


def test_fisher_kernel_for_a_gaussian_mean_is_a_mahalanobis_inner_product():
    S = np.array([[2.0, 0.6], [0.6, 0.5]])
    X = np.random.default_rng(RNG_SEED).normal(size=(7, 2))
    score = gaussian_mean_score(S)
    # F = S^{-1} for this model, so k(x, x') = x^T S^{-1} x'
    kernel = Fisher(score, information=np.linalg.inv(S))
    assert_allclose(kernel(X), X @ np.linalg.solve(S, X.T), rtol=1e-12)
    assert_allclose(kernel.diag(X), np.diag(kernel(X)), rtol=1e-12)
    # (6.36): without F it is the plain inner product of the scores
    assert_allclose(Fisher(score)(X), score(X) @ score(X).T, rtol=1e-12)


def test_fisher_information_sample_estimate_converges():
    S = np.array([[2.0, 0.6], [0.6, 0.5]])
    samples = np.random.default_rng(RNG_SEED).multivariate_normal([0, 0], S, size=200_000)
    F_hat = fisher_information(gaussian_mean_score(S), samples)
    F = np.linalg.inv(S)
    assert np.linalg.norm(F_hat - F) / np.linalg.norm(F) < 0.02


def test_fisher_kernel_is_invariant_to_reparametrisation():
    # Bernoulli p(x | mu): score (x - mu) / (mu (1 - mu)), F = 1 / (mu (1 - mu)); in the
    # log-odds eta the score is x - mu and F = mu (1 - mu). The kernels agree; (6.36) does not.
    mu, x = 0.3, np.array([0.0, 1.0])
    by_mu = Fisher(
        lambda X: ((np.asarray(X) - mu) / (mu * (1 - mu)))[:, None],
        information=[[1 / (mu * (1 - mu))]],
    )
    by_eta = Fisher(lambda X: (np.asarray(X) - mu)[:, None], information=[[mu * (1 - mu)]])
    assert_allclose(by_mu(x), by_eta(x), rtol=1e-13)
    assert by_mu(x)[1, 1] == pytest.approx((1 - mu) / mu, rel=1e-13)
    assert not np.allclose(Fisher(by_mu.score)(x), Fisher(by_eta.score)(x))


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: SetIntersection()([{1}, 5]), "iterable of hashable"),
        (lambda: SetIntersection()("abc"), "sequence of objects"),
        (lambda: SubsequenceString()(["ok", 3]), "must be a str"),
        (lambda: SubsequenceString(order=0)(["ab"]), "order must be a positive integer"),
        (lambda: SubsequenceString(decay=1.5)(["ab"]), r"decay must lie in \(0, 1\]"),
        (lambda: ProbabilityProduct(rho=-1)([([0.0], 1.0)]), "rho must be positive"),
        (lambda: ProbabilityProduct()([([0.0, 1.0], np.eye(3))]), "shape \\(2, 2\\)"),
        (lambda: ProbabilityProduct()([([0.0], -1.0)]), "must be positive"),
        (lambda: ProbabilityProduct()([([0.0], 1.0), ([0.0, 0.0], 1.0)]), "same dimension"),
        (lambda: Fisher(lambda X: np.ones((1, 2)))([1, 2, 3]), "one row per input"),
        (lambda: Fisher(lambda X: np.ones((3, 2)), np.eye(3))([1, 2, 3]), "shape \\(2, 2\\)"),
        (lambda: SetIntersection()([]), "is empty"),
    ],
)
def test_bad_input_raises_a_value_error_that_names_the_problem(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_structured_kernels_have_no_hyperparameters():
    for kernel in (
        SetIntersection(),
        SubsequenceString(),
        TfidfCosine(CORPUS),
        ProbabilityProduct(),
        Fisher(lambda X: np.asarray(X, float)[:, None]),
    ):
        assert kernel.theta.shape == (0,)
        assert kernel.bounds.shape == (0, 2)
