"""Predictions in bounded memory (kmlib._chunks): the same answer in blocks, and the budget kept.

Every prediction of kmlib compares each query point with the training points (or support
vectors, centres, relevance vectors) in blocks of query rows whose temporaries fit scikit-learn's
``working_memory``. Two things are checked for every estimator and method: a budget small
enough to force many blocks gives the answer of one block, and the peak memory of a prediction
follows the budget, not the number of query points times the number of training points.
"""

import tracemalloc
import warnings

import numpy as np
import pytest
import sklearn
from numpy.testing import assert_allclose, assert_array_equal

from kmlib import _chunks
from kmlib.bsvr import BayesianSVR
from kmlib.btsvc import BTSVC
from kmlib.gp import GaussianProcessRegressor
from kmlib.kernel_machines import L1VMClassifier, L1VMRegressor, L2VMClassifier, L2VMRegressor
from kmlib.kernel_trick import KernelKMedoids, KernelKNeighborsClassifier, KernelPCA, KernelRidge
from kmlib.kernels import RBF, Linear, Matern, Periodic
from kmlib.laplace import GaussianProcessClassifier
from kmlib.rvm import RVC, RVR
from kmlib.smoothing import LOWESS, KernelDensity, KNeighborsDensityClassifier, NadarayaWatson
from kmlib.svm import SVC, SVR, NuSVC, NuSVR, OneClassSVM

N_TRAIN, D = 200, 3
#: Budgets in MiB: one that splits 500 query rows into many blocks, one for the peak check.
TINY, SMALL = 0.01, 1.0


def _data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=n)
    return X, y


X_TRAIN, Y_TRAIN = _data(N_TRAIN, 0)
TWO = (Y_TRAIN > np.median(Y_TRAIN)).astype(int)
THREE = np.digitize(Y_TRAIN, np.quantile(Y_TRAIN, [1 / 3, 2 / 3]))
RADIAL = RBF(lengthscale=1.0)


def _precomputed_svc():
    model = SVC(kernel="precomputed").fit(RADIAL(X_TRAIN), THREE)
    model.memory_test_inputs = lambda X: RADIAL(X, X_TRAIN)  # test rows: k(X, X_train)
    return model


#: (name, fitted model, method name, keyword arguments of the method)
FITTED = {
    "KernelRidge": lambda: KernelRidge(kernel=RADIAL, alpha=0.1).fit(X_TRAIN, Y_TRAIN),
    "KernelRidge dual Linear": lambda: KernelRidge(kernel=Linear(), solver="dual").fit(
        X_TRAIN, Y_TRAIN
    ),
    "KernelRidge RBF*Periodic": lambda: KernelRidge(kernel=RBF() * Periodic(period=3.0)).fit(
        X_TRAIN, Y_TRAIN
    ),
    "KernelPCA": lambda: KernelPCA(kernel=RADIAL, n_components=3).fit(X_TRAIN),
    "KernelKNeighborsClassifier": lambda: KernelKNeighborsClassifier(kernel=RADIAL).fit(
        X_TRAIN, THREE
    ),
    "KernelKMedoids": lambda: KernelKMedoids(kernel=RADIAL, n_clusters=3, random_state=0).fit(
        X_TRAIN
    ),
    "GaussianProcessRegressor": lambda: GaussianProcessRegressor(
        kernel=Matern(nu=2.5), noise_variance=0.1, optimize=False
    ).fit(X_TRAIN, Y_TRAIN),
    "GaussianProcessClassifier": lambda: GaussianProcessClassifier(
        kernel=RADIAL, optimize=False
    ).fit(X_TRAIN, TWO),
    "NadarayaWatson": lambda: NadarayaWatson(bandwidth=0.4).fit(X_TRAIN, Y_TRAIN),
    "KernelDensity": lambda: KernelDensity(bandwidth=0.5).fit(X_TRAIN),
    "KernelDensity epanechnikov": lambda: KernelDensity(bandwidth=1.5, kernel="epanechnikov").fit(
        X_TRAIN
    ),
    "KNeighborsDensityClassifier": lambda: KNeighborsDensityClassifier(n_neighbors=7).fit(
        X_TRAIN, THREE
    ),
    "LOWESS": lambda: LOWESS(frac=0.3).fit(X_TRAIN, Y_TRAIN),
    "L2VMRegressor": lambda: L2VMRegressor(kernel=RADIAL, alpha=0.1).fit(X_TRAIN, Y_TRAIN),
    "L1VMRegressor": lambda: L1VMRegressor(kernel=RADIAL, alpha=0.1).fit(X_TRAIN, Y_TRAIN),
    "L2VMClassifier": lambda: L2VMClassifier(kernel=RADIAL, alpha=0.1).fit(X_TRAIN, THREE),
    "L1VMClassifier": lambda: L1VMClassifier(kernel=RADIAL, alpha=0.1).fit(X_TRAIN, TWO),
    "SVC": lambda: SVC(kernel=RADIAL, probability=True, random_state=0).fit(X_TRAIN, THREE),
    "SVC ovr": lambda: SVC(kernel=RADIAL, multiclass="ovr").fit(X_TRAIN, THREE),
    "SVC precomputed": _precomputed_svc,
    "NuSVC": lambda: NuSVC(nu=0.3, kernel=RADIAL).fit(X_TRAIN, TWO),
    "SVR": lambda: SVR(kernel=RADIAL, epsilon=0.05).fit(X_TRAIN, Y_TRAIN),
    "SVR default kernel": lambda: SVR().fit(X_TRAIN, Y_TRAIN),
    "NuSVR": lambda: NuSVR(kernel=RADIAL).fit(X_TRAIN, Y_TRAIN),
    "OneClassSVM": lambda: OneClassSVM(nu=0.2, kernel=RADIAL).fit(X_TRAIN),
    "RVR": lambda: RVR(kernel=RADIAL).fit(X_TRAIN, Y_TRAIN),
    "RVC": lambda: RVC(kernel=RADIAL).fit(X_TRAIN, TWO),
    "BayesianSVR": lambda: BayesianSVR(kernel=RADIAL, optimize=False).fit(X_TRAIN, Y_TRAIN),
    "BTSVC": lambda: BTSVC(kernel=RADIAL, optimize=False).fit(X_TRAIN, TWO),
}

CASES = [
    ("KernelRidge", "predict", {}),
    ("KernelRidge dual Linear", "predict", {}),
    ("KernelRidge RBF*Periodic", "predict", {}),
    ("KernelPCA", "transform", {}),
    ("KernelKNeighborsClassifier", "predict", {}),
    ("KernelKMedoids", "predict", {}),
    ("GaussianProcessRegressor", "predict", {}),
    ("GaussianProcessRegressor", "predict", {"return_std": True}),
    ("GaussianProcessRegressor", "predict", {"return_std": True, "include_noise": True}),
    ("GaussianProcessClassifier", "predict", {}),
    ("GaussianProcessClassifier", "predict_proba", {}),
    ("GaussianProcessClassifier", "latent_mean_and_variance", {}),
    ("NadarayaWatson", "predict", {}),
    ("NadarayaWatson", "predict", {"return_std": True}),
    ("NadarayaWatson", "conditional_density", {"t": np.linspace(-2.0, 2.0, 5)}),
    ("KernelDensity", "score_samples", {}),
    ("KernelDensity epanechnikov", "score_samples", {}),
    ("KNeighborsDensityClassifier", "predict_proba", {}),
    ("KNeighborsDensityClassifier", "score_samples", {}),
    ("KNeighborsDensityClassifier", "log_class_densities", {}),
    ("LOWESS", "predict", {}),
    ("L2VMRegressor", "predict", {}),
    ("L1VMRegressor", "predict", {}),
    ("L2VMClassifier", "predict_proba", {}),
    ("L2VMClassifier", "decision_function", {}),
    ("L1VMClassifier", "predict", {}),
    ("SVC", "decision_function", {}),
    ("SVC", "predict", {}),
    ("SVC", "predict_proba", {}),
    ("SVC ovr", "predict", {}),
    ("SVC precomputed", "decision_function", {}),
    ("NuSVC", "decision_function", {}),
    ("SVR", "predict", {}),
    ("SVR default kernel", "predict", {}),
    ("NuSVR", "predict", {}),
    ("OneClassSVM", "score_samples", {}),
    ("RVR", "predict", {"return_std": True}),
    ("RVC", "predict_proba", {}),
    ("RVC", "latent_mean_and_variance", {}),
    ("BayesianSVR", "predict", {}),
    ("BayesianSVR", "predict", {"return_std": True}),
    ("BTSVC", "predict", {}),
    ("BTSVC", "predict_proba", {}),
    ("BTSVC", "decision_function", {}),
]
#: Predictions that involve no BLAS product: the same to the last bit in any block.
WITHOUT_BLAS = {
    "KernelDensity",
    "KernelDensity epanechnikov",
    "KNeighborsDensityClassifier",
    ("NadarayaWatson", "conditional_density"),
}
IDS = [f"{name}.{method}{'+' + '+'.join(kw) if kw else ''}" for name, method, kw in CASES]


@pytest.fixture(scope="module")
def fitted():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence of the small fits is beside the point
        return {name: make() for name, make in FITTED.items()}


def _predict(model, method, kwargs, n, seed):
    X, _ = _data(n, seed)
    X = getattr(model, "memory_test_inputs", lambda X: X)(X)
    return getattr(model, method)(X, **kwargs)


def _as_tuple(result):
    return result if isinstance(result, tuple) else (result,)


@pytest.mark.parametrize(("name", "method", "kwargs"), CASES, ids=IDS)
def test_many_blocks_give_the_answer_of_one(fitted, name, method, kwargs, monkeypatch):
    model = fitted[name]
    whole = _predict(model, method, kwargs, 500, seed=1)
    blocks = []
    gen_batches = _chunks.gen_batches

    def counted(n, size):
        batches = list(gen_batches(n, size))
        blocks.append(len(batches))
        return batches

    monkeypatch.setattr(_chunks, "gen_batches", counted)
    with sklearn.config_context(working_memory=TINY):
        parts = _predict(model, method, kwargs, 500, seed=1)
    assert blocks and min(blocks) >= 5  # the tiny budget did split the rows
    for one, many in zip(_as_tuple(whole), _as_tuple(parts), strict=True):
        if one.dtype.kind != "f" or name in WITHOUT_BLAS or (name, method) in WITHOUT_BLAS:
            assert_array_equal(many, one)
        else:  # a BLAS product's last bit can depend on the block's shape; where the sum over
            # the training points cancels, that bit is relative to its terms, not to the result
            assert_allclose(many, one, rtol=1e-12, atol=1e-12 * np.max(np.abs(one)))


@pytest.mark.parametrize(("name", "method", "kwargs"), CASES, ids=IDS)
def test_the_peak_follows_the_budget_not_the_number_of_points(fitted, name, method, kwargs):
    model = fitted[name]
    n = 20_000
    X, _ = _data(n, seed=2)
    X = getattr(model, "memory_test_inputs", lambda X: X)(X)
    with sklearn.config_context(working_memory=SMALL):
        getattr(model, method)(X[:10], **kwargs)  # caches, lazy imports: not the prediction's
        tracemalloc.start()
        try:
            result = getattr(model, method)(X, **kwargs)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    outputs = sum(r.nbytes for r in _as_tuple(result))
    # the blocks' temporaries within the budget; around them, the outputs and a few arrays of
    # the same length that assemble them (labels, probabilities), and a validated copy of X
    bound = SMALL * 2**20 + 4 * outputs + 2 * X.nbytes + 2**19
    assert peak < bound, f"peak {peak / 2**20:.2f} MiB, bound {bound / 2**20:.2f} MiB"
    all_at_once = n * N_TRAIN * 8  # one (n_test, n_train) array, before its temporaries
    assert peak < all_at_once / 4


def test_one_block_when_everything_fits(monkeypatch):
    def no_blocks(n, size):
        raise AssertionError("split into blocks although everything fits")

    monkeypatch.setattr(_chunks, "gen_batches", no_blocks)
    X, _ = _data(100, seed=3)
    out = _chunks.in_blocks(lambda rows: rows.sum(axis=1), X, N_TRAIN, arrays=4.0)
    assert_array_equal(out, X.sum(axis=1))


def test_blocks_stop_growing_where_they_stop_being_faster(monkeypatch):
    sizes = []
    gen_batches = _chunks.gen_batches

    def recorded(n, size):
        sizes.append(size)
        return gen_batches(n, size)

    monkeypatch.setattr(_chunks, "gen_batches", recorded)
    row_bytes = 1000 * 8  # one array of 1000 values
    X = np.zeros((3 * _chunks.BLOCK_BYTES // row_bytes, 1))
    with sklearn.config_context(working_memory=2**20):  # a budget far above the speed limit
        out = _chunks.in_blocks(lambda rows: (rows[:, 0], rows), X, 1000, arrays=1.0)
    assert sizes == [_chunks.BLOCK_BYTES // row_bytes]
    assert out[0].shape == (X.shape[0],) and out[1].shape == X.shape


def test_a_row_over_the_budget_goes_alone():
    X = np.arange(6.0).reshape(3, 2)
    with sklearn.config_context(working_memory=1e-6):
        out = _chunks.in_blocks(lambda rows: rows * 2.0, X, 10**6, arrays=10.0)
    assert_array_equal(out, X * 2.0)


@pytest.mark.parametrize(
    "kernel",
    [RBF(), RBF(lengthscale=np.ones(D)), Matern(nu=0.5), Matern(nu=1.5), Matern(nu=1.2), Linear(),
     Periodic(), RBF() * Periodic(), 2.0 * RBF() + Linear()],
    ids=repr,
)
def test_a_kernel_holds_no_more_than_the_temporaries_it_declares(kernel):
    """Blocks are sized by Kernel._temporaries: the kernel's evaluation must stay within it."""
    from kmlib._kernel_checks import evaluate_kernel

    X, _ = _data(300, seed=4)
    evaluate_kernel(kernel, X[:2], X_TRAIN)
    tracemalloc.start()
    try:
        evaluate_kernel(kernel, X, X_TRAIN)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    declared = _chunks.kernel_temporaries(kernel, D) * X.shape[0] * N_TRAIN * 8
    assert peak <= declared + 2**16
