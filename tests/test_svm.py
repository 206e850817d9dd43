"""Tests of kmlib.svm: agreement with LIBSVM (scikit-learn), estimator checks, bad input.

How two solutions are compared without a hand-picked tolerance
-------------------------------------------------------------
Both libraries stop when the KKT violation eps = m(alpha) - M(alpha) falls below ``tol``. Each
fitted model is turned back into the dual it solved (alpha, the signs y, the linear term p,
the bounds C) and analysed in float64 (``analyse``): its objective f, its measured eps, the
certificate g >= f - f* of :func:`kmlib.smo.duality_gap`, and its weight vector
w = sum_t y_t alpha_t phi(x_t). Then, for solutions k (kmlib) and s (LIBSVM):

1. |f_k - f_s| <= max(g_k, g_s), since both lie above f* by at most their certificate;
2. |w_k - w_s| <= sqrt(2 g_k) + sqrt(2 g_s), since f(alpha) - f* >= |w - w*|^2 / 2;
3. decision values differ by at most
   D(x) = |w_k - w_s| (sqrt k(x,x) + sqrt k(x_r,x_r)) + eps_k + eps_s,
   where x_r is a free support vector of both (it pins both biases to within eps of its
   value); LIBSVM keeps kernel values in float32, which adds at most 2^-23 sum|coef| max k;
4. so predicted labels agree wherever |f_s(x)| exceeds that bound, and a variable that is a
   support vector in one solution only lies within eps_k + eps_s + D of the margin.
"""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import svm as sk
from sklearn.base import clone
from sklearn.datasets import load_iris, make_blobs, make_classification, make_friedman1, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from kmlib import kernels as K
from kmlib import svm as km
from kmlib.smo import duality_gap
from kmlib.structured import Spectrum

F32 = 2.0**-23  # relative rounding of LIBSVM's float32 kernel cache


# ====================================================================== the dual of a fitted model
def dual_of(est, target, pair=(0, 1)):
    """The dual problem a fitted model solved and its solution, as arrays over variables.

    Returns a dict with ``alpha, y, s, p, C, two`` (see kmlib.smo), ``r`` (decision values times
    r are the unscaled ones of the nu-forms) and ``decision`` (a function of a kernel matrix to
    the support vectors of the problem -> unscaled decision values, from the model itself).
    """
    n = target.shape[0]
    name = type(est).__name__
    if name in ("SVC", "NuSVC"):
        y_enc = np.searchsorted(est.classes_, target)
        a, b = pair
        idx = np.flatnonzero((y_enc == a) | (y_enc == b))
        t = np.where(y_enc[idx] == a, 1.0, -1.0)  # LIBSVM: the first class is +1
        beta_full = np.zeros(n)
        k = len(est.classes_)
        if k == 2:
            beta_full[est.support_] = -est.dual_coef_[0]  # scikit-learn flips binary models
        else:
            cls = y_enc[est.support_]
            sa, sb = cls == a, cls == b
            beta_full[est.support_[sa]] = est.dual_coef_[b - 1, sa]
            beta_full[est.support_[sb]] = est.dual_coef_[a, sb]
        alpha = beta_full[idx] * t
        assert np.all(alpha >= 0)
        if name == "SVC":
            cw = getattr(est, "class_weight", None)
            if cw == "balanced":
                counts = np.bincount(y_enc, minlength=k)
                weights = y_enc.size / (k * counts)
            elif isinstance(cw, dict):
                weights = np.array([cw.get(c, 1.0) for c in est.classes_])
            else:
                weights = np.ones(k)
            C = est.C * weights[y_enc[idx]]
            p, two, r = -np.ones(idx.size), False, 1.0
        else:
            r = est.nu * idx.size / alpha.sum()  # LIBSVM divides alpha by r
            alpha = alpha * r
            # undo the rounding of that division at the bounds 0 and 1
            alpha[np.abs(alpha - 1.0) < 1e-12] = 1.0
            C, p, two = np.ones(idx.size), np.zeros(idx.size), True
        q = list(__import__("itertools").combinations(range(k), 2)).index(pair)

        def decision(X):
            raw = est.decision_function(X)
            return r * (-raw if k == 2 else raw[:, q])

        return {
            "alpha": alpha,
            "y": t,
            "s": idx,
            "p": p,
            "C": C,
            "two": two,
            "r": r,
            "decision": decision,
        }
    if name in ("SVR", "NuSVR"):
        beta = np.zeros(n)
        beta[est.support_] = est.dual_coef_[0]
        alpha = np.concatenate([np.maximum(beta, 0), np.maximum(-beta, 0)])
        y = np.concatenate([np.ones(n), -np.ones(n)])
        if name == "SVR":
            p = np.concatenate([est.epsilon - target, est.epsilon + target])
        else:
            p = np.concatenate([-target, target])
        return {
            "alpha": alpha,
            "y": y,
            "s": np.tile(np.arange(n), 2),
            "p": p,
            "C": np.full(2 * n, est.C),
            "two": name == "NuSVR",
            "r": 1.0,
            "decision": est.predict,
        }
    assert name == "OneClassSVM"
    alpha = np.zeros(n)
    alpha[est.support_] = est.dual_coef_[0]
    return {
        "alpha": alpha,
        "y": np.ones(n),
        "s": np.arange(n),
        "p": np.zeros(n),
        "C": np.ones(n),
        "two": False,
        "r": 1.0,
        "decision": est.decision_function,
    }


def analyse(d, Kfull):
    """Objective, KKT violation, certificate, bias and weights of a solution in float64."""
    alpha, y, s, p, C, two = d["alpha"], d["y"], d["s"], d["p"], d["C"], d["two"]
    omega = np.bincount(s, weights=y * alpha, minlength=Kfull.shape[0])  # w = sum omega phi
    grad = y * (Kfull @ omega)[s] + p
    v = -y * grad
    f = 0.5 * omega @ Kfull @ omega + p @ alpha
    groups = [y > 0, y < 0] if two else [np.ones(y.size, dtype=bool)]
    eps, bs, free_sets = 0.0, [], []
    for g in groups:
        up = g & np.where(y > 0, alpha < C, alpha > 0)
        low = g & np.where(y > 0, alpha > 0, alpha < C)
        eps = max(eps, v[up].max() - v[low].min())
        free = g & (alpha > 0) & (alpha < C)
        bs.append(v[free].mean() if free.any() else 0.5 * (v[up].max() + v[low].min()))
        free_sets.append(free)
    gap, _ = duality_gap(alpha, grad, y, C, two_constraints=two)
    return {
        "f": f,
        "eps": eps,
        "gap": gap,
        "omega": omega,
        "v": v,
        "b": np.array(bs),
        "free": free_sets,
        "groups": groups,
    }


def compare_with_libsvm(ours, ref, kernel, X, target, X_test, pair=(0, 1), ref_test=None):
    """Checks 1-4 of the module docstring for one binary problem (or one regression).

    ``ref_test`` is what the reference model takes for ``X_test`` (its kernel to the training
    points when it was fitted on a precomputed Gram matrix).
    """
    Kfull = kernel(X)
    dk, ds = dual_of(ours, target, pair), dual_of(ref, target, pair)
    ak, as_ = analyse(dk, Kfull), analyse(ds, Kfull)
    assert ak["eps"] < ours.tol + 1e-9
    # 1. objectives within the certificates
    assert abs(ak["f"] - as_["f"]) <= max(ak["gap"], as_["gap"]) + 1e-9 * (1 + abs(ak["f"]))
    # 2. weight vectors within sqrt(2 g) of the optimum each
    dw_coef = ak["omega"] - as_["omega"]
    dw = np.sqrt(max(dw_coef @ Kfull @ dw_coef, 0.0))
    assert dw <= np.sqrt(2 * ak["gap"]) + np.sqrt(2 * as_["gap"]) + 1e-7
    # a free support vector common to both solutions, in each group
    diag = np.diag(Kfull)
    s = dk["s"]
    anchor = 0.0
    for fk, fs in zip(ak["free"], as_["free"]):
        common = fk & fs
        # the bounds below are anchored at such a vector; every data set used here has one
        assert common.any(), "no free support vector common to both solutions: pick other data"
        anchor = max(anchor, np.sqrt(diag[s[common]]).min())
    eps2 = ak["eps"] + as_["eps"]
    rounding = F32 * np.abs(as_["omega"]).sum() * diag.max() * 2
    # 4b. the support sets agree up to variables at the margin of both solutions
    u_s = as_["v"] - as_["b"][np.argmax(np.array(as_["groups"]), axis=0)]
    only_one = (dk["alpha"] > 0) != (ds["alpha"] > 0)
    D_t = dw * (np.sqrt(diag[s]) + anchor) + eps2 + rounding
    assert np.all(np.abs(u_s[only_one]) <= eps2 + D_t[only_one]), np.flatnonzero(only_one)
    # 3. decision values of the models themselves
    K_test = kernel(X_test, X)
    kxx = kernel.diag(X_test)
    F_k = dk["decision"](X_test)
    F_s = ds["decision"](X_test if ref_test is None else ref_test)
    bound = dw * (np.sqrt(kxx) + anchor) + eps2 + rounding
    assert np.all(np.abs(F_k - F_s) <= bound)
    # ours matches its own analysis (bias from the free variables, as documented)
    b_mean = ak["b"].mean()
    assert_allclose(F_k, K_test @ ak["omega"] + b_mean, atol=1e-8 * (1 + np.abs(F_k).max()))
    # 4a. labels agree wherever LIBSVM's decision is clearly away from zero
    sure = np.abs(F_s) > bound
    assert np.array_equal(F_k[sure] > 0, F_s[sure] > 0)
    return ak, as_, only_one


class OvRColumn:
    """Column ``c`` of a one-versus-rest model, seen as a binary SVC (positive: class c)."""

    def __init__(self, model, c):
        self.model, self.c = model, c
        self.classes_ = np.array([0, 1])
        self.C, self.tol, self.class_weight = model.C, model.tol, None
        self.support_ = model.support_
        self.dual_coef_ = model.dual_coef_[c : c + 1]

    def decision_function(self, X):
        return self.model.decision_function(X)[:, self.c]


OvRColumn.__name__ = "SVC"  # read by dual_of


def gamma_of(lengthscale):
    return 1.0 / (2.0 * lengthscale**2)


# ====================================================================== data sets
def blobs(n=120, seed=0):
    X, y = make_blobs(n_samples=n, centers=[[-1, -1], [1, 1]], cluster_std=1.2, random_state=seed)
    return X, y


def fresh(X, seed=1, n=200):
    rng = np.random.default_rng(seed)
    lo, hi = X.min(axis=0), X.max(axis=0)
    return rng.uniform(lo, hi, size=(n, X.shape[1]))


def sinusoid(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n, 1))
    return X, np.sin(2 * np.pi * X[:, 0]) + 0.2 * rng.normal(size=n)


# ====================================================================== agreement with LIBSVM
SVC_CASES = {
    "blobs-RBF": (
        blobs,
        K.RBF(lengthscale=0.7),
        {"kernel": "rbf", "gamma": gamma_of(0.7)},
        {"C": 2.0},
    ),
    "moons-Polynomial": (
        lambda: make_moons(100, noise=0.25, random_state=0),
        K.Polynomial(degree=3, bias=1.0),
        {"kernel": "poly", "degree": 3, "gamma": 1.0, "coef0": 1.0},
        {"C": 0.5},
    ),
    "classification-Linear": (
        lambda: (
            StandardScaler().fit_transform(
                make_classification(150, n_features=8, random_state=0)[0]
            ),
            make_classification(150, n_features=8, random_state=0)[1],
        ),
        K.Linear(),
        {"kernel": "linear"},
        {"C": 0.1},
    ),
    "imbalanced-balanced": (
        lambda: make_blobs(n_samples=[90, 25], centers=[[-1, 0], [1, 0]], random_state=2),
        K.RBF(lengthscale=1.0),
        {"kernel": "rbf", "gamma": 0.5},
        {"C": 1.0, "class_weight": "balanced"},
    ),
    "imbalanced-dict": (
        lambda: make_blobs(n_samples=[90, 25], centers=[[-1, 0], [1, 0]], random_state=2),
        K.RBF(lengthscale=1.0),
        {"kernel": "rbf", "gamma": 0.5},
        {"C": 1.0, "class_weight": {0: 0.5, 1: 3.0}},
    ),
}


@pytest.mark.parametrize("case", SVC_CASES)
def test_svc_agrees_with_libsvm(case):
    data, kernel, sk_kernel, params = SVC_CASES[case]
    X, y = data()
    ours = km.SVC(kernel=kernel, **params).fit(X, y)
    ref = sk.SVC(**sk_kernel, **params).fit(X, y)
    X_test = np.vstack([X, fresh(X)])
    _, _, only_one = compare_with_libsvm(ours, ref, kernel, X, y, X_test)
    # check 4b allows variables at the margin to differ; on these data none does
    assert not only_one.any()
    assert_array_equal(np.sort(ours.support_), np.sort(ref.support_))
    assert np.mean(ours.predict(X_test) == ref.predict(X_test)) >= 0.995


def test_svc_with_precomputed_and_custom_kernels_agrees_with_libsvm():
    X, y = blobs(seed=3)
    X_test = fresh(X, seed=4)
    kernel = K.RBF(lengthscale=1.1) + 0.5 * K.Linear()  # PRML (6.17), (6.13)
    gram = kernel(X)
    # kmlib kernel object against scikit-learn's precomputed Gram matrix
    ours = km.SVC(kernel=kernel, C=3.0).fit(X, y)
    ref = sk.SVC(kernel="precomputed", C=3.0).fit(gram, y)
    compare_with_libsvm(ours, ref, kernel, X, y, X_test, ref_test=kernel(X_test, X))
    # any callable k(A, B) works as a kernel, here scikit-learn's own RBF
    plain = km.SVC(kernel=lambda A, B: rbf_kernel(A, B, gamma=gamma_of(0.8)), C=3.0).fit(X, y)
    same = km.SVC(kernel=K.RBF(lengthscale=0.8), C=3.0).fit(X, y)
    compare_with_libsvm(plain, same, K.RBF(lengthscale=0.8), X, y, X_test)  # any two solutions
    # the precomputed Gram matrix is the very matrix kmlib builds for a generic kernel, so the
    # solver does the same arithmetic: equal up to the rounding of the test kernel products
    ours_pre = km.SVC(kernel="precomputed", C=3.0).fit(gram, y)
    assert ours_pre.support_vectors_.shape == (0, 0)
    K_test = kernel(X_test, X)
    assert_allclose(ours_pre.decision_function(K_test), ours.decision_function(X_test), atol=1e-10)
    assert_array_equal(ours_pre.support_, ours.support_)
    assert np.mean(ours_pre.predict(K_test) == ref.predict(K_test)) >= 0.995
    with pytest.raises(ValueError, match="square"):
        km.SVC(kernel="precomputed").fit(X, y)


def test_multiclass_one_versus_one_agrees_with_libsvm_pair_by_pair():
    X, y = load_iris(return_X_y=True)
    ours = km.SVC(C=1.0, decision_function_shape="ovo").fit(X, y)  # default kernel
    gamma = 1.0 / (X.shape[1] * X.var())
    ref = sk.SVC(C=1.0, gamma="scale", decision_function_shape="ovo").fit(X, y)
    assert ours.kernel_.lengthscale == pytest.approx(1 / np.sqrt(2 * gamma))
    X_test = np.vstack([X, fresh(X, n=300)])
    for pair in [(0, 1), (0, 2), (1, 2)]:
        compare_with_libsvm(ours, ref, ours.kernel_, X, y, X_test, pair=pair)
    assert ours.dual_coef_.shape == ref.dual_coef_.shape
    assert_array_equal(ours.n_support_, ref.n_support_)
    assert np.mean(ours.predict(X_test) == ref.predict(X_test)) >= 0.995
    # the "ovr" shape is scikit-learn's transformation of the votes
    ours.set_params(decision_function_shape="ovr")
    ref.set_params(decision_function_shape="ovr")
    D = ours.decision_function(X_test)
    assert D.shape == (X_test.shape[0], 3)
    assert np.mean(np.argmax(D, 1) == np.argmax(ref.decision_function(X_test), 1)) >= 0.99


def test_string_labels_and_one_versus_rest():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    ours = km.SVC(C=1.0).fit(X, names)
    ref = sk.SVC(C=1.0).fit(X, names)
    assert_array_equal(ours.classes_, ref.classes_)
    pred = ours.predict(X)
    assert pred.dtype == names.dtype
    assert np.mean(pred == ref.predict(X)) >= 0.995
    ovr = km.SVC(C=1.0, multiclass="ovr").fit(X, names)
    assert ovr.decision_function(X).shape == (150, 3)
    assert ovr.dual_coef_.shape == (3, ovr.support_.size)
    assert ovr.score(X, names) > 0.95
    # each column is the binary SVC of one class against the rest (positive: that class),
    # solved along another path: checks 1-4 against a separate binary fit
    for c, label in enumerate(ovr.classes_):
        is_c = (names == label).astype(int)
        binary = km.SVC(C=1.0).fit(X, is_c)
        compare_with_libsvm(OvRColumn(ovr, c), binary, ovr.kernel_, X, is_c, fresh(X))


def test_nu_svc_agrees_with_libsvm_and_keeps_the_nu_property():
    X, y = blobs(n=150, seed=5)
    X_test = np.vstack([X, fresh(X, seed=6)])
    kernel = K.RBF(lengthscale=0.9)
    for nu in (0.2, 0.5):
        ours = km.NuSVC(nu=nu, kernel=kernel).fit(X, y)
        ref = sk.NuSVC(nu=nu, kernel="rbf", gamma=gamma_of(0.9)).fit(X, y)
        compare_with_libsvm(ours, ref, kernel, X, y, X_test)  # labels agree off the band
        # PRML 7.1.1: nu bounds the fraction of support vectors from below
        assert ours.support_.size >= nu * X.shape[0]
    with pytest.raises(ValueError, match="nu=0.9 is infeasible"):
        km.NuSVC(nu=0.9).fit(*make_blobs(n_samples=[40, 10], random_state=0))


SVR_CASES = {
    "friedman-RBF": (
        lambda: make_friedman1(150, noise=0.5, random_state=0),
        K.RBF(lengthscale=1.5),
        {"kernel": "rbf", "gamma": gamma_of(1.5)},
        {"C": 3.0, "epsilon": 0.2},
    ),
    "sinusoid-Polynomial": (
        sinusoid,
        K.Polynomial(degree=3, bias=1.0),
        {"kernel": "poly", "degree": 3, "gamma": 1.0, "coef0": 1.0},
        {"C": 10.0, "epsilon": 0.1},
    ),
}


@pytest.mark.parametrize("case", SVR_CASES)
def test_svr_agrees_with_libsvm(case):
    data, kernel, sk_kernel, params = SVR_CASES[case]
    X, t = data()
    ours = km.SVR(kernel=kernel, **params).fit(X, t)
    ref = sk.SVR(**sk_kernel, **params).fit(X, t)
    compare_with_libsvm(ours, ref, kernel, X, t, np.vstack([X, fresh(X)]))


def test_svr_with_a_matern_kernel_against_a_precomputed_gram_matrix():
    X, t = sinusoid(seed=2)
    kernel = K.Matern(lengthscale=0.3, nu=1.5)
    ours = km.SVR(kernel=kernel, C=5.0, epsilon=0.05).fit(X, t)
    ref = sk.SVR(kernel="precomputed", C=5.0, epsilon=0.05).fit(kernel(X), t)
    X_test = fresh(X)
    compare_with_libsvm(ours, ref, kernel, X, t, X_test, ref_test=kernel(X_test, X))


def test_nu_svr_agrees_with_libsvm_and_finds_the_tube():
    X, t = make_friedman1(150, noise=0.5, random_state=1)
    kernel = K.RBF(lengthscale=1.5)
    ours = km.NuSVR(nu=0.3, C=2.0, kernel=kernel).fit(X, t)
    ref = sk.NuSVR(nu=0.3, C=2.0, kernel="rbf", gamma=gamma_of(1.5)).fit(X, t)
    compare_with_libsvm(ours, ref, kernel, X, t, np.vstack([X, fresh(X)]))
    # PRML 7.1.4: at most a fraction nu of the points lie outside the tube
    outside = np.abs(t - ours.predict(X)) > ours.epsilon_ + 1e-3
    assert outside.mean() <= 0.3 + 1e-9
    assert ours.support_.size >= 0.3 * X.shape[0]


def test_one_class_svm_agrees_with_libsvm():
    X, _ = make_blobs(n_samples=150, centers=2, random_state=3)
    for kernel, sk_kernel, nu in [
        (K.RBF(lengthscale=2.0), {"gamma": gamma_of(2.0)}, 0.2),
        (None, {"gamma": "scale"}, 0.5),
    ]:
        ours = km.OneClassSVM(nu=nu, kernel=kernel).fit(X)
        ref = sk.OneClassSVM(nu=nu, **sk_kernel).fit(X)
        X_test = np.vstack([X, fresh(X, n=300)])
        compare_with_libsvm(ours, ref, ours.kernel_, X, np.zeros(X.shape[0]), X_test)
        assert_allclose(ours.score_samples(X_test) - ours.offset_, ours.decision_function(X_test))
        # nu bounds the support vectors from below (sum a = nu N, a <= 1) and the outliers
        # from above: a training point with decision < -tol has a = 1 (tol-KKT)
        assert ours.support_.size >= nu * X.shape[0]
        assert np.mean(ours.decision_function(X) < -ours.tol) <= nu


def test_sample_weight_is_repetition():
    """Weight 2 and a repeated sample give the same dual optimum (the two variables merge)."""
    X, y = blobs(n=60, seed=7)
    rng = np.random.default_rng(0)
    w = rng.integers(0, 4, size=60)
    kernel = K.RBF(lengthscale=0.8)
    weighted = km.SVC(kernel=kernel, C=1.5).fit(X, y, sample_weight=w)
    repeated = km.SVC(kernel=kernel, C=1.5).fit(np.repeat(X, w, 0), np.repeat(y, w))
    # both lie within their certificate, at most tol * sum(C) = tol * C * sum(w), of the optimum
    assert weighted.dual_objective_[0] == pytest.approx(
        repeated.dual_objective_[0], abs=1e-3 * 1.5 * w.sum()
    )
    Z = fresh(X)
    assert np.mean(weighted.predict(Z) == repeated.predict(Z)) >= 0.995


# ====================================================================== probabilities
def test_platt_sigmoid_minimises_the_regularised_cross_entropy():
    from scipy.optimize import minimize

    rng = np.random.default_rng(1)
    f = np.concatenate([rng.normal(1, 1, 80), rng.normal(-1, 1, 60)])
    t = np.arange(140) < 80
    A, B = km.platt_sigmoid(f, t)
    target = np.where(t, 81 / 82, 1 / 62)

    def loss(ab):
        z = ab[0] * f + ab[1]
        return np.sum(np.logaddexp(0, z) - (1 - target) * z)

    ref = minimize(loss, [0.0, 0.0], method="BFGS", options={"gtol": 1e-10})
    # Newton stops when both gradient entries are below 1e-5; near the optimum the loss is then
    # within |g|^2 / (2 lambda_min(H)) of optimal, H the Hessian there
    p = np.exp(-np.logaddexp(0, ref.x[0] * f + ref.x[1]))
    w = p * (1 - p)
    H = np.array([[w @ f**2, w @ f], [w @ f, w.sum()]])
    assert loss([A, B]) <= ref.fun + 2 * (1e-5) ** 2 / (2 * np.linalg.eigvalsh(H)[0]) + 1e-12
    assert A < 0  # larger f means the positive class


def test_pairwise_coupling_recovers_consistent_probabilities():
    rng = np.random.default_rng(2)
    p = rng.dirichlet(np.ones(4), size=10)
    r = p[:, :, None] / (p[:, :, None] + p[:, None, :])  # r_ij = p_i / (p_i + p_j)
    assert_allclose(km.pairwise_coupling(r), p, atol=1e-12)


def test_pairwise_coupling_rejects_bad_input():
    with pytest.raises(ValueError, match=r"shape \(n, k, k\)"):
        km.pairwise_coupling(np.full((3, 3), 0.5))  # one matrix without the point axis
    with pytest.raises(ValueError, match="k >= 2"):
        km.pairwise_coupling(np.full((4, 1, 1), 0.5))
    r = np.full((2, 3, 3), 0.5)
    r[1, 0, 2] = np.nan
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        km.pairwise_coupling(r)


def test_predict_proba():
    X, y = load_iris(return_X_y=True)
    clf = km.SVC(probability=True, random_state=0).fit(X, y)
    P = clf.predict_proba(X)
    assert P.shape == (150, 3)
    assert_allclose(P.sum(axis=1), 1.0)
    assert np.mean(np.argmax(P, 1) == y) > 0.9
    assert_allclose(np.log(P), clf.predict_log_proba(X))
    binary = km.NuSVC(nu=0.3, probability=True, random_state=0).fit(*blobs())
    Pb = binary.predict_proba(blobs()[0])
    assert Pb.shape == (120, 2) and np.all((Pb > 0) & (Pb < 1))
    with pytest.raises(AttributeError, match="predict_proba"):
        km.SVC().fit(X, y).predict_proba(X)


# ====================================================================== estimator contract
def expected_failures(est):
    failures = {
        "check_sample_weight_equivalence_on_dense_data": (
            "with kernel=None the RBF length-scale comes from var(X), which repeating rows "
            "changes (as scikit-learn's gamma='scale'); and two tol-optimal solutions are not "
            "equal to rtol=1e-7. test_sample_weight_is_repetition checks the equivalence."
        ),
    }
    if isinstance(est, km.NuSVC):
        failures["check_class_weight_classifiers"] = (
            "class weights of 1000 and 1e-4 leave the light class a total box below nu N / 2: "
            "that nu-SVC is infeasible and kmlib says so (LIBSVM ignores class_weight here)"
        )
    return failures


@parametrize_with_checks(
    [
        km.SVC(),
        km.NuSVC(nu=0.3),
        km.SVR(),
        km.NuSVR(),
        km.OneClassSVM(),
        km.SVC(probability=True, random_state=0),
        km.SVC(multiclass="ovr"),
        km.SVC(kernel=K.Matern(nu=1.5)),
        km.SVC(kernel="precomputed"),
        km.SVR(kernel="precomputed"),
    ],
    expected_failed_checks=expected_failures,
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_works_in_pipelines_and_grid_search():
    X, y = blobs()
    grid = GridSearchCV(
        make_pipeline(StandardScaler(), km.SVC()),
        {"svc__C": [0.1, 1.0], "svc__kernel": [K.RBF(0.5), K.RBF(2.0)]},
        cv=3,
    )
    grid.fit(X, y)
    assert grid.best_score_ > 0.7
    assert clone(km.SVC(kernel=K.RBF(0.5))).kernel.lengthscale == 0.5


# ====================================================================== bad input
@pytest.mark.parametrize(
    "est, match",
    [
        (km.SVC(C=0.0), "C must be > 0"),
        (km.SVC(C=-1.0), "C must be > 0"),
        (km.SVR(C=0), "C must be > 0"),
        (km.NuSVR(C=-2.0), "C must be > 0"),
        (km.SVR(epsilon=-0.1), "epsilon must be >= 0"),
        (km.NuSVC(nu=0.0), "nu must be > 0"),
        (km.NuSVC(nu=1.5), "nu must be <= 1"),
        (km.NuSVR(nu=-0.2), "nu must be > 0"),
        (km.OneClassSVM(nu=1.01), "nu must be <= 1"),
        (km.SVC(tol=0), "tol must be > 0"),
        (km.SVC(kernel="rbf"), "kernel must be"),
        (km.SVC(multiclass="all"), "multiclass must be"),
        (km.SVC(decision_function_shape="x"), "decision_function_shape must be"),
    ],
)
def test_bad_parameters_are_named(est, match):
    X, y = blobs(20)
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


def test_bad_data_is_named():
    X, y = blobs(20)
    with pytest.raises(ValueError, match="only one class"):
        km.SVC().fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="only one class"):
        km.NuSVC().fit(X, np.full(20, "a"))
    Xn = X.copy()
    Xn[3, 1] = np.nan
    for est in (km.SVC(), km.NuSVC(), km.SVR(), km.NuSVR(), km.OneClassSVM()):
        with pytest.raises(ValueError, match="X contains NaN"):
            est.fit(Xn, y)
    with pytest.raises(ValueError, match="Unknown label type"):
        km.SVC().fit(X, np.linspace(0, 1, 20))
    with pytest.raises(ValueError, match="sample_weight"):
        km.SVC().fit(X, y, sample_weight=np.ones(3))


def test_iteration_limit_warns_and_still_predicts():
    X, y = blobs()
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        clf = km.SVC(max_iter=3).fit(X, y)
    assert clf.n_iter_[0] == 3
    assert clf.predict(X).shape == (120,)
    with pytest.warns(ConvergenceWarning):
        km.SVR(max_iter=2).fit(X, y.astype(float))


# ====================================================================== degenerate and string input
@pytest.mark.parametrize(
    "X, kernel",
    [(np.ones((20, 2)), None), (blobs(20)[0], K.RBF(lengthscale=1e12))],
    ids=["identical_inputs", "lengthscale_1e12"],
)
def test_nu_svc_blames_the_kernel_matrix_not_nu_when_it_cannot_separate(X, kernel):
    """A constant kernel matrix leaves no margin (rho = 0) for any nu: the message says why."""
    y = blobs(20)[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(ValueError, match=r"NuSVC: the kernel gives .* rescale X") as error:
            km.NuSVC(kernel=kernel).fit(X, y)
    assert "nu=" not in str(error.value)


@pytest.mark.parametrize("Model", [km.SVC, km.SVR, km.OneClassSVM])
def test_strings_point_to_the_gram_matrix_of_a_string_kernel(Model):
    """Strings reach the numeric validation; the message shows the precomputed route, which
    works (below)."""
    words = ["the cat", "a dog", "the dog", "a cat", "cat", "dog"]
    y = np.array([0, 1, 1, 0, 0, 1])
    route = r"X holds strings \(such as 'the cat'\) .*kernel='precomputed'\)\.fit\(k\(X_train\)"
    with pytest.raises(ValueError, match=route):
        Model(kernel=Spectrum(2)).fit(words, y)
    gram = Spectrum(2)(words)
    model = Model(kernel="precomputed").fit(gram, y)
    assert model.predict(Spectrum(2)(words[:2], words)).shape == (2,)


def test_mixed_string_and_integer_labels_are_refused_clearly():
    X, _ = blobs(20)
    y = np.array(["cat", 1] * 10, dtype=object)
    for model in (km.SVC(), km.NuSVC()):
        with pytest.raises(ValueError, match="y mixes strings with labels of another type"):
            model.fit(X, y)
