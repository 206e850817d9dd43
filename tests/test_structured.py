"""Tests of kmlib.structured against brute force, quadrature and explicit feature maps."""

from collections import Counter
from itertools import chain, combinations, product

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import integrate, stats
from scipy.optimize import linear_sum_assignment

from kmlib import kernels as K
from kmlib.structured import (
    AllSubstrings,
    Fisher,
    ProbabilityProduct,
    PyramidMatch,
    SetIntersection,
    Spectrum,
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


# ---------------------------------------------------------------- substring kernels, MLAPP (14.22)
def occurrences(s, x):
    """phi_s(x): positions where s starts in x, overlapping occurrences included."""
    return sum(x.startswith(s, i) for i in range(len(x)))


def brute_force_substring_kernel(x, y, lengths, weight):
    """(14.22) summed over every distinct substring s of x with |s| in lengths."""
    substrings = {x[i:j] for i in range(len(x)) for j in range(i + 1, len(x) + 1)}
    return sum(
        weight(len(s)) * occurrences(s, x) * occurrences(s, y)
        for s in substrings
        if len(s) in lengths
    )


def random_strings(rng, alphabet, count, max_length):
    return [
        "".join(rng.choice(list(alphabet), size=rng.integers(0, max_length))) for _ in range(count)
    ]


def test_substring_kernels_equal_brute_force_enumeration():
    rng = np.random.default_rng(RNG_SEED)
    strings = random_strings(rng, "ab", 7, 9) + ["aaaa", "abab", "", "b"]
    for max_length, decay in [(1, 1.0), (2, 0.5), (4, 0.7), (3, 1.6)]:
        expected = [
            [
                brute_force_substring_kernel(x, y, range(1, max_length + 1), lambda m: decay**m)
                for y in strings
            ]
            for x in strings
        ]
        assert_allclose(AllSubstrings(max_length, decay)(strings), expected, rtol=1e-13)
    for length in (1, 2, 3, 5):
        expected = [
            [brute_force_substring_kernel(x, y, {length}, lambda m: 1.0) for y in strings]
            for x in strings
        ]
        assert_allclose(Spectrum(length)(strings), expected, rtol=0, atol=0)


def test_all_substrings_is_a_weighted_sum_of_spectrum_kernels():
    rng = np.random.default_rng(RNG_SEED + 1)
    X, Y = random_strings(rng, "acgt", 6, 15), random_strings(rng, "acgt", 4, 15)
    lam = 0.8
    total = sum(lam**m * Spectrum(m)(X, Y) for m in range(1, 5))
    assert_allclose(AllSubstrings(max_length=4, decay=lam)(X, Y), total, rtol=1e-13)


def test_bag_of_characters_is_the_dot_product_of_character_histograms():
    words = ["kernel", "kennel", "", "mississippi", "zzz"]
    alphabet = sorted(set("".join(words)))
    histograms = np.array([[w.count(a) for a in alphabet] for w in words], dtype=float)
    assert_allclose(Spectrum(length=1)(words), histograms @ histograms.T, rtol=0, atol=0)
    assert_allclose(
        AllSubstrings(max_length=1, decay=1.0)(words), histograms @ histograms.T, atol=0
    )


# Two protein fragments, as transcribed in the MLAPP inventory (their shared substring LQE is
# the book's illustration of 14.2.6); the numbers below are recomputed from the sequences.
PROTEIN_A = (
    "IPTSALVKETLALLSTHRTLLIANETLRIPVPVHKNHQLCTEEIFQGIGTLESQTVQGGTVERLFKNLSLIKKYIDGQKKKCGEERRRVNQ"
    "FLDYLQEFLGVMNTEWI"
)
PROTEIN_B = (
    "PHRRDLCSRSIWLARKIRSDLTALTESYVKHQGLWSELTEAERLQENLQAYRTFHVLLARLLEDQQVHFTPTEGDFHQAIHTLLLQVAAF"
    "AYQIEELMILLEYKIPRNEADGMLFEKKLWGLKVLQELSQWTVRSIHDLRFISSHQTGIP"
)


def test_spectrum_kernel_on_the_protein_example():
    def kmers(x, k):
        return Counter(x[i : i + k] for i in range(len(x) - k + 1))

    a3, b3 = kmers(PROTEIN_A, 3), kmers(PROTEIN_B, 3)
    assert set(a3) & set(b3) == {"TLL", "ERL", "LQE"}
    # TLL and ERL occur once in each sequence, LQE once in the first and twice in the second
    assert [(a3[s], b3[s]) for s in ("TLL", "ERL", "LQE")] == [(1, 1), (1, 1), (1, 2)]
    assert Spectrum(3)([PROTEIN_A], [PROTEIN_B])[0, 0] == 1 * 1 + 1 * 1 + 1 * 2 == 4
    assert not set(kmers(PROTEIN_A, 4)) & set(kmers(PROTEIN_B, 4))
    assert Spectrum(4)([PROTEIN_A], [PROTEIN_B])[0, 0] == 0
    # k(x, x) is the sum of squared k-mer counts
    assert Spectrum(3).diag([PROTEIN_A])[0] == sum(n * n for n in a3.values())


def test_normalized_substring_kernels_are_cosines_and_psd():
    rng = np.random.default_rng(RNG_SEED + 2)
    strings = random_strings(rng, "acgt", 40, 30) + ["a", ""]
    for kernel in (
        Spectrum(1),
        Spectrum(3),
        AllSubstrings(4, 0.5),
        AllSubstrings(2, 2.0),
        Spectrum(2, normalize=True),
        AllSubstrings(3, 0.9, normalize=True),
    ):
        gram = kernel(strings)
        assert_allclose(gram, gram.T, rtol=0, atol=0)
        assert_psd(gram)
        assert_allclose(kernel.diag(strings), np.diag(gram), rtol=1e-13)
    raw, cosine = Spectrum(2), Spectrum(2, normalize=True)
    d = raw.diag(strings)
    has_kmers = d > 0
    assert not has_kmers[-1] and not has_kmers[-2]  # "a" and "" have no 2-mers
    expected = raw(strings)[np.ix_(has_kmers, has_kmers)] / np.sqrt(
        np.outer(d[has_kmers], d[has_kmers])
    )
    assert_allclose(cosine(strings)[np.ix_(has_kmers, has_kmers)], expected, rtol=1e-13)
    assert np.all(cosine(strings)[~has_kmers] == 0)


def test_substring_cross_matrix_is_a_block_of_the_gram_matrix():
    rng = np.random.default_rng(RNG_SEED + 3)
    X, Y = random_strings(rng, "abc", 5, 12), random_strings(rng, "abc", 3, 12)
    for kernel in (Spectrum(2), AllSubstrings(3, 0.6, normalize=True)):
        assert_allclose(kernel(X, Y), kernel(X + Y)[:5, 5:], rtol=1e-13)


# ---------------------------------------------------------------- pyramid match, MLAPP 14.2.7
def random_point_sets(rng, count, d, high, max_size=7):
    return [rng.integers(0, high, size=(rng.integers(1, max_size + 1), d)) for _ in range(count)]


def first_shared_level(x, y, bin_size=1.0, shift=0.0):
    """Lowest level i at which x and y fall into the same bin of side bin_size * 2^i."""
    i = 0
    while np.any(
        np.floor((x + shift) / (bin_size * 2**i)) != np.floor((y + shift) / (bin_size * 2**i))
    ):
        i += 1
    return i


def level_matrix(A, B, **grid):
    return np.array([[first_shared_level(a, b, **grid) for b in B] for a in A])


def test_level_intersection_is_the_largest_matching_inside_common_bins():
    # I(H_i(A), H_i(B)) = N_0 + ... + N_i must equal the largest number of disjoint pairs
    # (a, b) that share a bin at level i, a maximum bipartite matching found by brute force
    rng = np.random.default_rng(RNG_SEED)
    kernel = PyramidMatch()
    for A, B in zip(random_point_sets(rng, 8, 2, 16), random_point_sets(rng, 8, 2, 16)):
        cumulative = np.cumsum(kernel.new_matches(A, B))
        levels = level_matrix(A, B)
        for i, intersection in enumerate(cumulative):
            same_bin = (levels <= i).astype(float)
            rows, cols = linear_sum_assignment(same_bin, maximize=True)
            assert intersection == same_bin[rows, cols].sum()
        assert cumulative[-1] == min(len(A), len(B))


@pytest.mark.parametrize("d, bin_size, shift", [(1, 1.0, None), (2, 1.0, [3, 5]), (3, 0.5, 0.25)])
def test_pyramid_match_is_an_optimal_matching_under_the_level_weights(d, bin_size, shift):
    # Because the grids are nested, matching bottom-up is optimal: K_Delta is the largest total
    # weight w_l = 1 / (d 2^l) of a matching, l the first level a pair shares, and the pyramid
    # cost the smallest total d b 2^l (checked against the Hungarian algorithm)
    rng = np.random.default_rng(RNG_SEED + d)
    sets = [rng.uniform(0, 12, size=(rng.integers(1, 8), d)) for _ in range(10)]
    kernel = PyramidMatch(bin_size=bin_size, shift=shift, normalize=False)
    gram, cost = kernel(sets), kernel.matching_cost(sets)
    t = 0.0 if shift is None else np.asarray(shift, dtype=float)
    for a, A in enumerate(sets):
        for b, B in enumerate(sets):
            levels = level_matrix(A, B, bin_size=bin_size, shift=t)
            weight = 1.0 / (d * 2.0**levels)
            rows, cols = linear_sum_assignment(weight, maximize=True)
            assert gram[a, b] == pytest.approx(weight[rows, cols].sum(), rel=1e-13)
            charge = d * bin_size * 2.0**levels
            rows, cols = linear_sum_assignment(charge)
            assert cost[a, b] == pytest.approx(charge[rows, cols].sum(), rel=1e-13)


def optimal_l1_cost(A, B):
    distances = np.abs(A[:, None, :] - B[None, :, :]).sum(axis=2)
    rows, cols = linear_sum_assignment(distances)
    return distances[rows, cols].sum()


def test_pyramid_cost_bounds_the_optimal_matching_cost():
    # Lower bound, for every grid: the pyramid's pairs form a matching and none is charged less
    # than its L1 distance, so C_opt <= C_pyramid. Upper bound, on average over the 2^(S d)
    # integer shifts t of points in [0, 2^S)^d: a pair (x, y) is split at level j with
    # probability at most ||x - y||_1 / 2^j, which gives
    # E[C_pyramid] <= d k + d (S + 1) C_opt with k = min(|A|, |B|) (Grauman & Darrell's
    # O(d log D) factor, here with its constant).
    rng = np.random.default_rng(RNG_SEED + 4)
    S, d = 3, 2
    shifts = list(product(range(2**S), repeat=d))
    for A, B in zip(random_point_sets(rng, 6, d, 2**S), random_point_sets(rng, 6, d, 2**S)):
        c_opt = optimal_l1_cost(A, B)
        costs = np.array([PyramidMatch(shift=t).matching_cost([A], [B])[0, 0] for t in shifts])
        assert np.all(costs >= c_opt)
        k = min(len(A), len(B))
        assert costs.mean() <= d * k + d * (S + 1) * c_opt
    # real-valued points and a finer grid: the lower bound still holds
    for A, B in zip(
        [rng.uniform(0, 5, size=(6, 3)) for _ in range(5)],
        [rng.uniform(0, 5, size=(4, 3)) for _ in range(5)],
    ):
        cost = PyramidMatch(bin_size=0.25).matching_cost([A], [B])[0, 0]
        assert cost >= optimal_l1_cost(A, B)


def test_pyramid_match_gram_is_psd_and_normalized():
    rng = np.random.default_rng(RNG_SEED + 5)
    sets = random_point_sets(rng, 40, 2, 32, max_size=12)
    raw = PyramidMatch(normalize=False)
    gram = raw(sets)
    assert_psd(gram)
    sizes = np.array([len(P) for P in sets], dtype=float)
    assert_allclose(np.diag(gram), sizes / 2, rtol=1e-14)  # K(X, X) = |X| / d
    assert_allclose(raw.diag(sets), sizes / 2, rtol=1e-14)
    normalized = PyramidMatch()(sets)
    assert_allclose(normalized, gram / np.sqrt(np.outer(sizes / 2, sizes / 2)), rtol=1e-13)
    assert_allclose(np.diag(normalized), 1.0, rtol=1e-14)
    assert_psd(normalized)
    shifted = PyramidMatch(bin_size=3.0, shift=[1.5, 0.5])(
        [P + rng.uniform(0, 1, size=P.shape) for P in sets]
    )
    assert_psd(shifted)


def test_pyramid_match_ignores_order_and_counts_unequal_sets():
    A = np.array([[0, 0], [5, 5], [6, 7]])
    B = np.array([[1, 1], [6, 6]])
    kernel = PyramidMatch(normalize=False)
    N = kernel.new_matches(A, B)
    # (0,0)-(1,1) share a bin of side 2, (6,7)-(6,6) also; (5,5) stays unmatched
    assert_allclose(N[:2], [0, 2])
    assert N.sum() == 2
    assert kernel([A], [B])[0, 0] == pytest.approx(2 / (2 * 2))
    assert kernel([A[::-1]], [B])[0, 0] == kernel([A], [B])[0, 0]
    assert_allclose(kernel([A, B], [B]), kernel([A, B])[:, 1:], rtol=1e-14)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: Spectrum()(["ok", 3]), "must be a str"),
        (lambda: Spectrum(length=0)(["ab"]), "length must be a positive integer"),
        (lambda: Spectrum(length=2.0)(["ab"]), "length must be a positive integer"),
        (lambda: AllSubstrings(max_length=True)(["ab"]), "max_length must be a positive integer"),
        (lambda: AllSubstrings(decay=0.0)(["ab"]), "decay must be positive"),
        (lambda: AllSubstrings()("abc"), "sequence of objects"),
        (lambda: PyramidMatch()([[[0, 1]], [[-1, 2]]]), "non-negative coordinates"),
        (lambda: PyramidMatch().diag([[[-1, 2]]]), "non-negative coordinates"),
        (lambda: PyramidMatch()([[[0, 1]], [[1, 2, 3]]]), "one dimension d"),
        (lambda: PyramidMatch()([[[0, 1]]], [[[1, 2, 3]]]), "one dimension d"),
        (lambda: PyramidMatch()([[[0, np.nan]]]), "NaN"),
        (lambda: PyramidMatch()([np.zeros((0, 2))]), "is empty"),
        (lambda: PyramidMatch(bin_size=0)([[[0, 1]]]), "bin_size must be positive"),
        (lambda: PyramidMatch(shift=-1.0)([[[0, 1]]]), "shift must be non-negative"),
        (lambda: PyramidMatch(shift=[1, 2, 3])([[[0, 1]]]), "shift must be a number or have shape"),
        (lambda: PyramidMatch().new_matches([[0, 1]], [[1]]), "one dimension d"),
    ],
)
def test_new_kernels_reject_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_new_structured_kernels_have_no_hyperparameters():
    for kernel in (Spectrum(), AllSubstrings(), PyramidMatch()):
        assert kernel.theta.shape == (0,)
        assert kernel.bounds.shape == (0, 2)


# ---------------------------------------------------------------------- inputs as pandas gives them
DOCS = ["the cat sat", "a dog sat", "the dog ran", "a cat ran"]


@pytest.mark.parametrize(
    "kernel", [Spectrum(2), AllSubstrings(), SubsequenceString(), TfidfCosine(DOCS)], ids=repr
)
def test_string_kernels_take_a_column_of_strings(kernel):
    """A one-column DataFrame, a Series and an array of str give what a list gives (a
    DataFrame used to be read as the sequence of its column names: a 1 x 1 matrix)."""
    expected, cross = kernel(DOCS), kernel(DOCS, DOCS[:2])
    for column in (pd.DataFrame({"text": DOCS}), pd.Series(DOCS), np.array(DOCS)):
        assert_allclose(kernel(column), expected, rtol=1e-15)
        assert_allclose(kernel(column, pd.Series(DOCS[:2])), cross, rtol=1e-15)
        assert_allclose(kernel.diag(column), np.diag(expected), rtol=1e-15)


def test_a_dataframe_of_several_columns_is_refused_clearly():
    frame = pd.DataFrame({"title": DOCS, "body": DOCS})
    with pytest.raises(ValueError, match=r"X is a DataFrame of 2 columns; Spectrum takes one"):
        Spectrum(2)(frame)


def test_set_kernel_refuses_values_beyond_float64():
    """2**|A & B| for 1100 shared elements is beyond float64: an error, not inf (the
    unnormalised kernel has no finite stand-in), from the Gram matrix and the diagonal alike."""
    large = [set(range(1100)), set(range(1200))]
    for evaluate in (SetIntersection(), SetIntersection().diag):
        with pytest.raises(ValueError, match="share more than 1023 elements"):
            evaluate(large)
    assert SetIntersection()([set(range(1023))])[0, 0] == 2.0**1023


@pytest.mark.parametrize(
    "covariance, message",
    [
        ([[1.0, 0.5], [0.0, 1.0]], "a covariance in X must be a finite symmetric matrix"),
        ([[1.0, 2.0], [2.0, 1.0]], "a covariance in X must be positive definite"),
    ],
)
def test_probability_product_refuses_covariances_that_are_none(covariance, message):
    with pytest.raises(ValueError, match=message):
        ProbabilityProduct()([([0.0, 0.0], covariance), ([1.0, 0.0], 1.0)])


def test_fisher_kernel_refuses_an_information_matrix_that_is_not_symmetric():
    kernel = Fisher(lambda X: np.asarray(X, dtype=float), information=[[1.0, 0.5], [0.0, 1.0]])
    with pytest.raises(ValueError, match="information must be a finite symmetric matrix"):
        kernel(np.eye(2))
