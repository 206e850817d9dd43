"""kmlib.kernel_trick against scikit-learn and against the definitions."""

import warnings

import numpy as np
import pytest
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from kmlib.kernel_trick import (
    KernelKMedoids,
    KernelKNeighborsClassifier,
    KernelPCA,
    KernelRidge,
    feature_space_distances,
)
from kmlib.kernels import RBF, Linear, Polynomial


def data(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("kernel", [RBF(lengthscale=0.7), Polynomial(degree=2, bias=1.0)])
def test_kernel_ridge_matches_scikit_learn_with_the_same_gram_matrix(kernel):
    X, y = data()
    X_new, _ = data(15, seed=1)
    ours = KernelRidge(kernel=kernel, alpha=0.3).fit(X, y)
    theirs = SkKernelRidge(alpha=0.3, kernel="precomputed").fit(kernel(X), y)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, rtol=1e-8)
    np.testing.assert_allclose(
        ours.predict(X_new), theirs.predict(kernel(X_new, X)), rtol=1e-8, atol=1e-12
    )


def test_primal_and_dual_solutions_agree_for_a_linear_kernel():
    X, y = data(50, d=4)
    X_new, _ = data(10, d=4, seed=2)
    kernel = Linear(variance=2.0)
    primal = KernelRidge(kernel=kernel, alpha=0.5, solver="primal").fit(X, y)
    dual = KernelRidge(kernel=kernel, alpha=0.5, solver="dual").fit(X, y)
    assert KernelRidge(kernel=kernel, alpha=0.5).fit(X, y).solver_ == "primal"  # D < N
    np.testing.assert_allclose(primal.predict(X_new), dual.predict(X_new), rtol=1e-10)
    np.testing.assert_allclose(primal.dual_coef_, dual.dual_coef_, rtol=1e-9)
    # w = Phi^T a (PRML (6.3)) with phi(x) = sigma x, in input coordinates w_x = sigma^2 X^T a
    np.testing.assert_allclose(primal.coef_, 2.0 * X.T @ dual.dual_coef_, rtol=1e-9)


def test_primal_needs_a_finite_feature_map():
    X, y = data()
    with pytest.raises(ValueError, match="finite feature map"):
        KernelRidge(kernel=RBF(), solver="primal").fit(X, y)
    with pytest.raises(ValueError, match="solver"):
        KernelRidge(solver="cholesky").fit(X, y)
    with pytest.raises(ValueError, match="alpha"):
        KernelRidge(alpha=0.0).fit(X, y)


@pytest.mark.parametrize("kernel", [RBF(lengthscale=1.5), Polynomial(degree=3, bias=1.0)])
def test_kernel_pca_matches_scikit_learn_up_to_sign(kernel):
    X, _ = data(30)
    X_new, _ = data(8, seed=3)
    ours = KernelPCA(kernel=kernel, n_components=3).fit(X)
    theirs = SkKernelPCA(n_components=3, kernel="precomputed").fit(kernel(X))
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-8)
    train_ours, train_theirs = ours.transform(X), theirs.transform(kernel(X))
    new_ours, new_theirs = ours.transform(X_new), theirs.transform(kernel(X_new, X))
    signs = np.sign(np.sum(train_ours * train_theirs, axis=0))
    scale = np.abs(train_theirs).max()
    np.testing.assert_allclose(train_ours * signs, train_theirs, atol=1e-6 * scale)
    np.testing.assert_allclose(new_ours * signs, new_theirs, atol=1e-6 * scale)


def test_kernel_pca_components_are_unit_directions_and_centred():
    X, _ = data(25)
    kernel = RBF(lengthscale=1.0)
    model = KernelPCA(kernel=kernel, n_components=4).fit(X)
    K = kernel(X)
    H = np.eye(25) - 1.0 / 25
    K_centred = H @ K @ H  # PRML (12.85) as a projection
    a = model.eigenvectors_
    # |v_i|^2 = a_i^T K~ a_i = 1 (PRML (12.81)) and the directions are orthogonal
    np.testing.assert_allclose(a.T @ K_centred @ a, np.eye(4), atol=1e-10)
    # the training projections have zero mean and variances l_i / N = lambda_i
    Z = model.transform(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-10)
    np.testing.assert_allclose(Z.var(axis=0), model.eigenvalues_ / 25, rtol=1e-9)


def test_kernel_pca_with_a_linear_kernel_is_ordinary_pca():
    X, _ = data(30, d=3)
    Z = KernelPCA(kernel=Linear(), n_components=2).fit(X).transform(X)
    centred = X - X.mean(axis=0)
    _, _, Vt = np.linalg.svd(centred, full_matrices=False)
    reference = centred @ Vt[:2].T
    signs = np.sign(np.sum(Z * reference, axis=0))
    np.testing.assert_allclose(Z * signs, reference, atol=1e-10)


def test_feature_space_distance_of_a_linear_kernel_is_euclidean():
    X, _ = data(10)
    Y, _ = data(6, seed=4)
    D = feature_space_distances(Linear(), X, Y)
    np.testing.assert_allclose(D, ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1), atol=1e-12)


@pytest.mark.parametrize("k", [1, 3, 5])
def test_kernel_knn_with_a_linear_kernel_is_euclidean_knn(k):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int)
    X_new = rng.normal(size=(40, 2))
    ours = KernelKNeighborsClassifier(kernel=Linear(), n_neighbors=k).fit(X, y).predict(X_new)
    theirs = KNeighborsClassifier(n_neighbors=k).fit(X, y).predict(X_new)
    np.testing.assert_array_equal(ours, theirs)


def test_kernel_knn_tie_goes_to_the_class_of_the_nearest_neighbour():
    X = np.array([[0.0], [1.0], [3.0], [4.0]])
    y = np.array(["a", "b", "a", "b"])
    model = KernelKNeighborsClassifier(kernel=Linear(), n_neighbors=2).fit(X, y)
    # neighbours of 0.9: 1.0 (b) then 0.0 (a), one vote each
    assert model.predict([[0.9]])[0] == "b"
    assert model.predict([[0.1]])[0] == "a"


def test_kernel_k_medoids_medoids_are_members_and_the_cost_is_optimal_per_cluster():
    rng = np.random.default_rng(6)
    X = np.vstack([rng.normal(loc, 0.3, size=(20, 2)) for loc in ([0, 0], [3, 0], [0, 3])])
    kernel = RBF(lengthscale=2.0)
    model = KernelKMedoids(kernel=kernel, n_clusters=3, random_state=0).fit(X)
    D = feature_space_distances(kernel, X, X)
    assert len(set(model.medoid_indices_)) == 3
    for cluster, medoid in enumerate(model.medoid_indices_):
        members = np.flatnonzero(model.labels_ == cluster)
        assert medoid in members
        # no other member would have a smaller summed distance (Algorithm 14.1's update)
        assert D[medoid, members].sum() <= D[np.ix_(members, members)].sum(axis=1).min() + 1e-12
    # every point sits with its nearest medoid, and inertia is their summed distance
    np.testing.assert_array_equal(model.labels_, np.argmin(D[:, model.medoid_indices_], axis=1))
    np.testing.assert_allclose(
        model.inertia_, D[np.arange(60), model.medoid_indices_[model.labels_]].sum()
    )
    np.testing.assert_array_equal(model.predict(X), model.labels_)
    # the three blobs are recovered
    assert sorted(np.bincount(model.labels_)) == [20, 20, 20]


def test_k_medoids_does_not_increase_its_cost_over_its_start():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(50, 2))
    kernel = RBF(lengthscale=1.0)
    D = feature_space_distances(kernel, X, X)
    start = np.random.default_rng(1).choice(50, 4, replace=False)  # the fit's first medoids
    model = KernelKMedoids(kernel=kernel, n_clusters=4, random_state=1).fit(X)
    assert model.inertia_ <= D[:, start].min(axis=1).sum() + 1e-12


def test_bad_arguments_raise_clear_errors():
    X, y = data(10)
    with pytest.raises(ValueError, match="n_components"):
        KernelPCA(n_components=11).fit(X)
    with pytest.raises(ValueError, match="n_neighbors"):
        KernelKNeighborsClassifier(n_neighbors=0).fit(X, y > 0)
    with pytest.raises(ValueError, match="n_clusters"):
        KernelKMedoids(n_clusters=11).fit(X)
    with pytest.raises(ValueError):
        KernelRidge().fit(np.full((3, 2), np.nan), [1.0, 2.0, 3.0])


@parametrize_with_checks(
    [KernelRidge(), KernelPCA(), KernelKNeighborsClassifier(), KernelKMedoids(random_state=0)]
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_k_medoids_cost_never_increases_from_one_pass_to_the_next():
    """Stopping after t passes for t = 1, 2, ... traces the objective of one run (same seed)."""
    rng = np.random.default_rng(8)
    X = np.vstack([rng.normal(loc, 0.8, size=(25, 2)) for loc in ([0, 0], [2, 1], [0, 2.5])])
    kernel = RBF(lengthscale=1.5)
    D = feature_space_distances(kernel, X, X)
    start = np.random.default_rng(3).choice(75, 5, replace=False)
    costs = [D[:, start].min(axis=1).sum()]
    final = KernelKMedoids(kernel=kernel, n_clusters=5, random_state=3).fit(X)
    assert final.n_iter_ >= 3  # the run is long enough to test something
    for passes in range(1, final.n_iter_ + 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = KernelKMedoids(kernel=kernel, n_clusters=5, max_iter=passes, random_state=3)
            costs.append(model.fit(X).inertia_)
        for cluster, medoid in enumerate(model.medoid_indices_):
            assert model.labels_[medoid] == cluster  # medoids are members of their cluster
    assert np.all(np.diff(costs) <= 1e-12)
    assert costs[-1] == pytest.approx(final.inertia_)


def test_k_medoids_warns_when_it_stops_at_max_iter():
    rng = np.random.default_rng(8)
    X = np.vstack([rng.normal(loc, 0.8, size=(25, 2)) for loc in ([0, 0], [2, 1], [0, 2.5])])
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        KernelKMedoids(kernel=RBF(lengthscale=1.5), n_clusters=5, max_iter=1, random_state=3).fit(X)


def test_k_medoids_with_duplicate_points_keeps_every_cluster():
    X = np.array([[0.0, 0.0]] * 4 + [[3.0, 0.0]] * 4)
    for seed in range(5):
        model = KernelKMedoids(kernel=Linear(), n_clusters=3, random_state=seed).fit(X)
        assert sorted(set(model.labels_)) == [0, 1, 2]  # no empty cluster
        np.testing.assert_array_equal(model.labels_[model.medoid_indices_], [0, 1, 2])
        assert model.inertia_ == pytest.approx(0.0)


def test_kernel_pca_components_beyond_the_rank_are_zero():
    """A linear kernel on 2-D data: the centred Gram matrix has rank 2, so components 3 and 4
    have eigenvalue 0, no direction, and project every point to 0."""
    X, _ = data(20, d=2)
    X_new, _ = data(5, d=2, seed=9)
    model = KernelPCA(kernel=Linear(), n_components=4).fit(X)
    assert np.all(model.eigenvalues_[:2] > 0)
    np.testing.assert_array_equal(model.eigenvalues_[2:], 0.0)
    np.testing.assert_array_equal(model.eigenvectors_[:, 2:], 0.0)
    np.testing.assert_array_equal(model.transform(X_new)[:, 2:], 0.0)
    assert np.all(np.abs(model.transform(X_new)[:, :2]).max(axis=0) > 0)


def test_k_medoids_is_a_scikit_learn_clusterer_with_fit_predict():
    from sklearn.base import is_clusterer

    rng = np.random.default_rng(10)
    X = np.vstack([rng.normal(loc, 0.3, size=(15, 2)) for loc in ([0, 0], [3, 0])])
    model = KernelKMedoids(kernel=RBF(lengthscale=2.0), n_clusters=2, random_state=0)
    assert is_clusterer(model)
    labels = model.fit_predict(X)
    np.testing.assert_array_equal(labels, model.labels_)
    assert sorted(np.bincount(labels)) == [15, 15]


def test_kernel_pca_finds_every_component_when_eigenvalues_crowd():
    """A length-scale far below the spacing of the inputs gives a Gram matrix within 1e-5 of
    the identity; LAPACK's subset driver can then return fewer eigenpairs than asked for (an
    IndexError before). The components are the leading ones of the full decomposition."""
    X = np.random.default_rng(0).normal(size=(30, 2))
    for variance in (1e-3, 1.0, 1e3):
        pca = KernelPCA(RBF(lengthscale=1e-2, variance=variance), n_components=2).fit(X)
        K = RBF(lengthscale=1e-2, variance=variance)(X)
        K_centred = K - K.mean(axis=0) - K.mean(axis=1)[:, None] + K.mean()
        top = np.linalg.eigvalsh(K_centred)[::-1][:2]
        np.testing.assert_allclose(pca.eigenvalues_, top, rtol=1e-10)
        assert pca.transform(X).shape == (30, 2)


def test_kernel_pca_names_its_outputs_and_sets_pandas_output():
    import pandas as pd  # a test dependency (pyproject.toml)
    X = pd.DataFrame(data(n=20)[0], columns=["a", "b", "c"])
    pca = KernelPCA(n_components=2).set_output(transform="pandas").fit(X)
    assert list(pca.get_feature_names_out()) == ["kernelpca0", "kernelpca1"]
    Z = pca.transform(X)
    assert isinstance(Z, pd.DataFrame) and list(Z.columns) == ["kernelpca0", "kernelpca1"]
    np.testing.assert_array_equal(Z.to_numpy(), KernelPCA(n_components=2).fit(X).transform(X))


def test_kernel_pca_refuses_kernel_values_that_overflow_when_centred():
    X = data(n=10)[0]
    with pytest.raises(ValueError, match="overflow float64 when they are centred"):
        KernelPCA(RBF(variance=1.7e308)).fit(X)


@pytest.mark.parametrize(
    "model, y",
    [(KernelRidge(), np.arange(4.0)), (KernelPCA(), None), (KernelKMedoids(), None)],
    ids=repr,
)
def test_strings_point_to_the_precomputed_route(model, y):
    words = ["the cat", "a dog", "the dog", "a cat"]
    with pytest.raises(ValueError, match="X holds strings .* kernel='precomputed'"):
        model.fit(words, y)


def test_mixed_string_and_integer_labels_are_refused_clearly():
    X = data(n=6)[0]
    y = np.array(["cat", 1, "cat", 1, "cat", 1], dtype=object)
    with pytest.raises(ValueError, match="y mixes strings with labels of another type"):
        KernelKNeighborsClassifier(n_neighbors=1).fit(X, y)
