r"""The kernel trick applied to linear methods (MLAPP 14.4; PRML 6.1 and 12.3).

A method that touches its inputs only through inner products can work in the feature space of
any kernel :math:`k(\mathbf x, \mathbf x') = \phi(\mathbf x)^T\phi(\mathbf x')`:

* ridge regression in its dual form, :math:`\mathbf a = (\mathbf K + \lambda\mathbf I)^{-1}
  \mathbf y`, :math:`y(\mathbf x) = \mathbf k(\mathbf x)^T\mathbf a` (PRML (6.8)–(6.9),
  MLAPP 14.4.3), against the primal :math:`\mathbf w = (\boldsymbol\Phi^T\boldsymbol\Phi +
  \lambda\mathbf I)^{-1}\boldsymbol\Phi^T\mathbf y` where the feature map is finite;
* principal components of the centred feature vectors (PRML 12.3, MLAPP 14.4.4);
* nearest neighbours and K-medoids with the feature-space distance
  :math:`\lVert\phi(\mathbf x) - \phi(\mathbf x')\rVert^2 = k(\mathbf x, \mathbf x) -
  2k(\mathbf x, \mathbf x') + k(\mathbf x', \mathbf x')` (MLAPP 14.4.1–14.4.2).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    RegressorMixin,
    TransformerMixin,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from . import _linalg
from ._chunks import in_blocks, kernel_times
from ._kernel_checks import check_kernel, evaluate_kernel, kernel_diagonal, warn_if_constant
from ._validation import (
    all_finite,
    as_generator,
    check_positive,
    check_positive_int,
    class_labels,
    validate_data,
)
from .kernels import RBF, Linear

__all__ = [
    "KernelRidge",
    "KernelPCA",
    "KernelKNeighborsClassifier",
    "KernelKMedoids",
    "feature_space_distances",
]


def feature_space_distances(kernel, X, Y):
    r"""Squared feature-space distances :math:`k(x,x) - 2k(x,y) + k(y,y)` (MLAPP 14.4.1).

    Parameters
    ----------
    kernel : kmlib kernel
        The kernel :math:`k` that defines the feature space.
    X : ndarray of shape (n, d)
        First set of points.
    Y : ndarray of shape (m, d)
        Second set of points.

    Returns
    -------
    ndarray of shape (n, m)
        Clipped at zero, where rounding could make a distance slightly negative.

    Examples
    --------
    With an RBF kernel every point lies on the unit sphere of the feature space, so no two
    points are more than :math:`\sqrt2` apart:

    >>> import numpy as np
    >>> from kmlib.kernels import RBF
    >>> from kmlib.kernel_trick import feature_space_distances
    >>> print(np.round(feature_space_distances(RBF(), [[0.0]], [[0.0], [1.0], [10.0]]), 4))
    [[0.     0.7869 2.    ]]
    """
    K = evaluate_kernel(kernel, X, Y)
    D = kernel_diagonal(kernel, X)[:, None] - 2.0 * K + kernel_diagonal(kernel, Y)[None, :]
    return np.maximum(D, 0.0)


class KernelRidge(RegressorMixin, BaseEstimator):
    r"""Kernel ridge regression, in the dual or (for a linear kernel) the primal form.

    Minimises :math:`\tfrac12\sum_n (y_n - \mathbf w^T\phi(\mathbf x_n))^2 +
    \tfrac\lambda2\lVert\mathbf w\rVert^2` with :math:`\lambda` = ``alpha`` (no intercept).

    Parameters
    ----------
    kernel : kmlib kernel or None, default=None
        ``None`` uses ``RBF(lengthscale=1.0)``.
    alpha : float, default=1.0
        :math:`\lambda > 0`.
    solver : {"auto", "dual", "primal"}, default="auto"
        With :math:`n` training points in :math:`d` dimensions, ``"dual"`` factorises the
        :math:`n\times n` matrix :math:`\mathbf K + \lambda\mathbf I`, :math:`O(n^3 + n^2 d)`;
        ``"primal"`` factorises the :math:`d\times d` matrix
        :math:`\boldsymbol\Phi^T\boldsymbol\Phi + \lambda\mathbf I`, :math:`O(d^3 + n d^2)`,
        and needs a kernel with a finite feature map (``Linear``, where :math:`\phi(\mathbf x) =
        \sigma\mathbf x`). ``"auto"`` takes the primal for a ``Linear`` kernel with
        :math:`d < n` and the dual otherwise: the cost crossover of MLAPP 14.4.3.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n,)
        :math:`\mathbf a` of PRML (6.8), also on the primal path (:math:`\mathbf a =
        (\mathbf y - \boldsymbol\Phi\mathbf w)/\lambda`).
    coef_ : ndarray of shape (d,) or None
        :math:`\mathbf w` in input coordinates on the primal path (``None`` on the dual path).
    solver_ : str
        The form that was solved.
    X_train_ : ndarray of shape (n, d)

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernels import RBF, Linear
    >>> from kmlib.kernel_trick import KernelRidge
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> model = KernelRidge(kernel=RBF(lengthscale=1.0), alpha=0.1).fit(X, [0.0, 1.0, 0.0, 1.0])
    >>> print(np.round(model.predict([[1.5], [3.0]]), 4))
    [0.4748 0.8112]

    A linear kernel with fewer dimensions than points is solved in the primal:

    >>> model = KernelRidge(kernel=Linear(), alpha=1.0).fit(X, 2.0 * X[:, 0])
    >>> model.solver_, np.round(model.coef_, 4).tolist()
    ('primal', [1.8667])
    """

    def __init__(self, kernel=None, alpha=1.0, solver="auto"):
        self.kernel = kernel
        self.alpha = alpha
        self.solver = solver

    def fit(self, X, y):
        """Solve for the weights.

        Parameters
        ----------
        X : array_like of shape (n, d)
            Training inputs.
        y : array_like of shape (n,)
            Targets.

        Returns
        -------
        self
        """
        check_positive(self.alpha, "alpha")
        if self.solver not in ("auto", "dual", "primal"):
            raise ValueError(f"solver must be 'auto', 'dual' or 'primal'; got {self.solver!r}")
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        kernel = check_kernel(self.kernel, RBF, callables=False)
        linear = isinstance(kernel, Linear)
        if self.solver == "primal" and not linear:
            raise ValueError(
                "solver='primal' needs a kernel with a finite feature map (Linear); "
                f"got {type(kernel).__name__}: use solver='dual'"
            )
        n, d = X.shape
        primal = self.solver == "primal" or (self.solver == "auto" and linear and d < n)
        self.kernel_ = kernel
        self.X_train_ = X
        if primal:
            Phi = np.sqrt(kernel.variance) * X  # phi(x) = sigma x
            A = Phi.T @ Phi
            A[np.diag_indices(d)] += self.alpha
            w = _linalg.solve_psd(A, Phi.T @ y)  # PRML (3.28) with lambda
            self.coef_ = np.sqrt(kernel.variance) * w
            self.dual_coef_ = (y - Phi @ w) / self.alpha  # PRML (6.4)
            self.solver_ = "primal"
        else:
            K = evaluate_kernel(kernel, X)
            warn_if_constant(K, "KernelRidge")
            K[np.diag_indices(n)] += self.alpha
            self.dual_coef_ = _linalg.solve_psd(K, y)  # PRML (6.8)
            self.coef_ = None
            self.solver_ = "dual"
        return self

    def predict(self, X):
        r""":math:`y(\mathbf x) = \mathbf k(\mathbf x)^T\mathbf a` (PRML (6.9)).

        Parameters
        ----------
        X : array_like of shape (m, d)
            Query points.

        Returns
        -------
        ndarray of shape (m,)
        """
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.coef_ is not None:
            return X @ self.coef_
        return kernel_times(self.kernel_, X, self.X_train_, self.dual_coef_)  # in blocks


class KernelPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Principal components in the feature space of a kernel (PRML 12.3, MLAPP 14.4.4).

    The Gram matrix of the centred feature vectors is :math:`\tilde{\mathbf K} = \mathbf K -
    \mathbf 1_N\mathbf K - \mathbf K\mathbf 1_N + \mathbf 1_N\mathbf K\mathbf 1_N` (PRML (12.85)),
    with :math:`\mathbf 1_N` the matrix whose entries are all :math:`1/N`. Its eigenvectors
    :math:`\mathbf a_i` with eigenvalues :math:`\ell_i = N\lambda_i` give the components;
    scaled so that :math:`\ell_i\mathbf a_i^T\mathbf a_i = 1`, the feature-space direction
    :math:`\mathbf v_i = \sum_n a_{in}\tilde\phi(\mathbf x_n)` has unit length (PRML (12.81)),
    and the projection of a point is :math:`\tilde{\mathbf k}(\mathbf x)^T\mathbf a_i` (12.82).

    Parameters
    ----------
    kernel : kmlib kernel or None, default=None
        ``None`` uses ``RBF(lengthscale=1.0)``.
    n_components : int, default=2
        Number of components kept, at most the number of training points.

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues :math:`\ell_i` of :math:`\tilde{\mathbf K}`, largest first.
    eigenvectors_ : ndarray of shape (n, n_components)
        The :math:`\mathbf a_i`, scaled as above; components with :math:`\ell_i \le 0` (up to
        rounding) have no direction and get zero columns, so they project everything to 0.
    X_train_ : ndarray of shape (n, d)

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernels import RBF
    >>> from kmlib.kernel_trick import KernelPCA
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> pca = KernelPCA(kernel=RBF(lengthscale=2.0), n_components=2).fit(X)
    >>> print(np.round(pca.eigenvalues_, 4))
    [3.2093 1.4269]
    >>> pca.transform(X[:5]).shape
    (5, 2)
    """

    def __init__(self, kernel=None, n_components=2):
        self.kernel = kernel
        self.n_components = n_components

    @property
    def _n_features_out(self):
        """Number of output columns, for ``get_feature_names_out`` ("kernelpca0", ...)."""
        return self.eigenvectors_.shape[1]

    def fit(self, X, y=None):
        """Centre the Gram matrix and find its leading eigenvectors.

        Parameters
        ----------
        X : array_like of shape (n, d)
            Training inputs.
        y : None, default=None
            Ignored; there for the scikit-learn API.

        Returns
        -------
        self
        """
        X = validate_data(self, X, dtype=np.float64)
        n = X.shape[0]
        check_positive_int(self.n_components, "n_components", n_samples=n)
        self.kernel_ = check_kernel(self.kernel, RBF, callables=False)
        K = evaluate_kernel(self.kernel_, X)
        warn_if_constant(K, "KernelPCA")
        self._K_column_means = K.mean(axis=0)
        self._K_mean = self._K_column_means.mean()
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below
            K_centred = (
                K - self._K_column_means[None, :] - self._K_column_means[:, None] + self._K_mean
            )  # PRML (12.85)
        if not all_finite(K_centred):
            raise ValueError(
                f"KernelPCA: the kernel's values (up to {np.max(np.abs(K)):.3g}) overflow "
                "float64 when they are centred; scale the kernel (its variance) down"
            )
        first = n - self.n_components
        values, vectors = linalg.eigh(K_centred, subset_by_index=(first, n - 1))
        if values.size < self.n_components:
            # LAPACK's subset driver (?syevr) can return fewer eigenpairs than asked for when
            # the wanted eigenvalues form a cluster (K = I, say, from a length-scale far below
            # the inputs' spacing); the full decomposition has them all
            values, vectors = linalg.eigh(K_centred)
            values, vectors = values[first:], vectors[:, first:]
        values, vectors = values[::-1], vectors[:, ::-1]
        tiny = values <= 1e-12 * max(values[0], 1e-300)
        with np.errstate(divide="ignore"):
            scale = np.where(tiny, 0.0, 1.0 / np.sqrt(np.where(tiny, 1.0, values)))
        self.eigenvalues_ = np.where(tiny, 0.0, values)
        self.eigenvectors_ = vectors * scale  # PRML (12.81): l_i a_i^T a_i = 1
        self.X_train_ = X
        return self

    def transform(self, X):
        r"""Projections :math:`\tilde{\mathbf k}(\mathbf x)^T\mathbf a_i` of new points.

        The test kernel is centred with the training means: :math:`\tilde k(\mathbf x,
        \mathbf x_n) = k(\mathbf x, \mathbf x_n) - \bar k(\mathbf x) - \bar k_n + \bar k`, where
        :math:`\bar k(\mathbf x)` averages over the training points (PRML Exercise 12.26).

        Parameters
        ----------
        X : array_like of shape (m, d)
            Points to project.

        Returns
        -------
        ndarray of shape (m, n_components)
        """
        check_is_fitted(self, "eigenvectors_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return in_blocks(self._project, X, self.X_train_.shape[0], arrays=1.0, kernel=self.kernel_)

    def _project(self, X):
        """:meth:`transform` of validated rows."""
        K = evaluate_kernel(self.kernel_, X, self.X_train_)
        K_centred = K - K.mean(axis=1, keepdims=True) - self._K_column_means[None, :] + self._K_mean
        return K_centred @ self.eigenvectors_


class KernelKNeighborsClassifier(ClassifierMixin, BaseEstimator):
    """Nearest-neighbour classification with feature-space distances (MLAPP 14.4.1).

    Parameters
    ----------
    kernel : kmlib kernel or None, default=None
        ``None`` uses ``RBF(lengthscale=1.0)``.
    n_neighbors : int, default=5
        Number of neighbours that vote.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    X_train_ : ndarray of shape (n, d)

    Notes
    -----
    A tie in the vote goes to the tied class whose nearest member among the neighbours is
    closest; among equally distant training points the one listed first counts as nearer.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernel_trick import KernelKNeighborsClassifier
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [5.0, 5.0], [5.1, 5.0], [5.0, 5.1]])
    >>> model = KernelKNeighborsClassifier(n_neighbors=3).fit(X, ["a", "a", "a", "b", "b", "b"])
    >>> model.predict([[0.2, 0.1], [4.8, 5.2]]).tolist()
    ['a', 'b']
    """

    def __init__(self, kernel=None, n_neighbors=5):
        self.kernel = kernel
        self.n_neighbors = n_neighbors

    def fit(self, X, y):
        """Store the training set.

        Parameters
        ----------
        X : array_like of shape (n, d)
            Training inputs.
        y : array_like of shape (n,)
            Class labels.

        Returns
        -------
        self
        """
        check_positive_int(self.n_neighbors, "n_neighbors")
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, self._codes = class_labels(y)
        self.kernel_ = check_kernel(self.kernel, RBF, callables=False)
        self.X_train_ = X
        return self

    def predict(self, X):
        """Majority class among the nearest neighbours in feature space.

        Parameters
        ----------
        X : array_like of shape (m, d)
            Query points.

        Returns
        -------
        ndarray of shape (m,)
            Labels from ``classes_``.
        """
        check_is_fitted(self, "X_train_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        winner = in_blocks(self._vote, X, self.X_train_.shape[0], arrays=3.0, kernel=self.kernel_)
        return self.classes_[winner]

    def _vote(self, X):
        """Index in ``classes_`` of the vote's winner for each validated row, shape (m,)."""
        k = min(self.n_neighbors, self.X_train_.shape[0])
        distances = feature_space_distances(self.kernel_, X, self.X_train_)
        order = np.argsort(distances, axis=1, kind="stable")[:, :k]
        labels = self._codes[order]  # (M, k), nearest first
        votes = np.zeros((X.shape[0], self.classes_.size))
        np.add.at(votes, (np.arange(X.shape[0])[:, None], labels), 1.0)
        # ties: the tied class met first in the nearest-first list wins
        first_seen = np.full(votes.shape, k, dtype=float)
        for rank in range(k - 1, -1, -1):
            first_seen[np.arange(X.shape[0]), labels[:, rank]] = rank
        return np.argmax(votes - first_seen / (k + 1.0), axis=1)


class KernelKMedoids(ClusterMixin, BaseEstimator):
    """K-medoids clustering with feature-space distances (MLAPP 14.4.2, Algorithm 14.1).

    Alternates assigning every point to its nearest medoid and moving each cluster's medoid to
    the member with the smallest summed distance to the other members, distances being the
    squared feature-space distances. Both steps lower (or keep) the total distance of the
    points to their medoids; the iteration stops when the assignment no longer changes, and
    warns with ``ConvergenceWarning`` if ``max_iter`` passes come first. A single start: the
    result depends on ``random_state``, so compare ``inertia_`` over a few seeds.

    Parameters
    ----------
    kernel : kmlib kernel or None, default=None
        ``None`` uses ``RBF(lengthscale=1.0)``.
    n_clusters : int, default=2
        Number of clusters, at most the number of training points.
    max_iter : int, default=300
        Most passes of assignment and medoid update.
    random_state : int, Generator, RandomState or None, default=None
        Seeds the choice of the initial medoids (distinct training points).

    Attributes
    ----------
    medoid_indices_ : ndarray of shape (n_clusters,)
        Training indices of the medoids.
    labels_ : ndarray of shape (n,)
    inertia_ : float
        Sum of the squared feature-space distances of the points to their medoids.
    n_iter_ : int
    X_train_ : ndarray of shape (n, d)
        The training inputs, whose rows ``medoid_indices_`` are the medoids.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernel_trick import KernelKMedoids
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [5.0, 5.0], [5.1, 5.0], [5.0, 5.1]])
    >>> model = KernelKMedoids(n_clusters=2, random_state=0).fit(X)
    >>> model.labels_.tolist()
    [1, 1, 1, 0, 0, 0]
    >>> model.predict([[0.2, 0.1], [4.8, 5.2]]).tolist()
    [1, 0]
    """

    def __init__(self, kernel=None, n_clusters=2, max_iter=300, random_state=None):
        self.kernel = kernel
        self.n_clusters = n_clusters
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, y=None):
        """Find the medoids.

        Parameters
        ----------
        X : array_like of shape (n, d)
            Training inputs.
        y : None, default=None
            Ignored; there for the scikit-learn API.

        Returns
        -------
        self
        """
        X = validate_data(self, X, dtype=np.float64)
        n = X.shape[0]
        check_positive_int(self.n_clusters, "n_clusters", n_samples=n)
        check_positive_int(self.max_iter, "max_iter")
        self.kernel_ = check_kernel(self.kernel, RBF, callables=False)
        D = feature_space_distances(self.kernel_, X, X)
        medoids = as_generator(self.random_state).choice(n, self.n_clusters, replace=False)
        labels = self._assign(D, medoids)
        converged = False
        for self.n_iter_ in range(1, self.max_iter + 1):
            for cluster in range(self.n_clusters):  # MLAPP (14.31): the best member
                members = np.flatnonzero(labels == cluster)
                cost = D[np.ix_(members, members)].sum(axis=1)
                medoids[cluster] = members[np.argmin(cost)]
            new_labels = self._assign(D, medoids)
            if np.array_equal(new_labels, labels):
                converged = True
                break
            labels = new_labels
        if not converged:
            warnings.warn(
                f"KernelKMedoids stopped at max_iter = {self.max_iter} before the assignment "
                "settled; the medoids returned are the last ones (raise max_iter)",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.medoid_indices_ = medoids
        self.labels_ = labels
        self.inertia_ = float(D[np.arange(n), medoids[labels]].sum())
        self.X_train_ = X
        return self

    @staticmethod
    def _assign(D, medoids):
        """Nearest medoid of every point; a medoid always keeps itself, even when a duplicate
        point is another medoid, so that no cluster is empty and medoids are members."""
        labels = np.argmin(D[:, medoids], axis=1)  # Algorithm 14.1, assignment step
        labels[medoids] = np.arange(medoids.size)
        return labels

    def predict(self, X):
        """Index of the nearest medoid for each point.

        Parameters
        ----------
        X : array_like of shape (m, d)
            Query points.

        Returns
        -------
        ndarray of shape (m,)
            Cluster labels, as in ``labels_``.
        """
        check_is_fitted(self, "medoid_indices_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        medoids = self.X_train_[self.medoid_indices_]
        return in_blocks(
            lambda rows: np.argmin(feature_space_distances(self.kernel_, rows, medoids), axis=1),
            X,
            medoids.shape[0],
            arrays=2.0,
            kernel=self.kernel_,
        )
