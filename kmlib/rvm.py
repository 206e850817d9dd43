r"""Relevance vector machines for regression and classification (PRML 7.2; Tipping 2001).

The model is linear in :math:`M` fixed basis functions, :math:`y(\mathbf x) =
\mathbf w^\top\boldsymbol\phi(\mathbf x)`, where :math:`\boldsymbol\phi` is a bias and one kernel
column :math:`k(\mathbf x, \mathbf x_n)` per training point (7.78), so :math:`M = N + 1`. Each
weight has its own prior precision :math:`\alpha_i` (7.80), and the :math:`\alpha_i` (and the
noise precision :math:`\beta` for regression) maximise the evidence. Two algorithms do that:

* ``method="reestimate"`` — the fixed-point updates (7.87)–(7.89) (classification: (7.116) after
  an IRLS search for the weight mode), starting from all :math:`M` basis functions and pruning
  those whose :math:`\alpha_i` passes a threshold. Every iteration factorises the current
  :math:`M\times M` posterior precision. It is written here, below.
* ``method="sequential"`` — the fast marginal-likelihood algorithm of Tipping & Faul (2003),
  PRML 7.2.2, in ``kmlib._rvm_sequential``. It starts with no basis function (a classifier
  also climbs from two more starts) and takes, one at a time, the add, re-estimate or delete
  move (7.101) that raises the log evidence most, by the exact gain (7.96)–(7.97) computed from
  the sparsity and quality factors (7.102)–(7.107) of every candidate. Only the active basis
  functions are factorised; for regression the posterior and the factors follow each move by
  rank-one updates, and a joint Newton step stops the fit from creeping along ridges of the
  evidence.

Both algorithms work on basis columns scaled to unit length and, for regression, on targets
scaled to unit root mean square. Neither changes the evidence maximum: scaling a column by
:math:`c` is the same model with :math:`\alpha_i/c^2`, and scaling the targets rescales
:math:`\mathbf w` and :math:`\beta^{-1/2}`. All fitted attributes are in the original units.

Where things are: the estimators :class:`RVR` and :class:`RVC` and the re-estimation in this
module; the equations both algorithms share (:func:`regression_posterior`,
:func:`classification_mode`, :func:`sparsity_quality`, :func:`log_evidence_term`,
:func:`optimal_alpha`, exported here) in ``kmlib._rvm_model``; the sequential algorithm in
``kmlib._rvm_sequential`` and its compiled single moves in ``kmlib._rvm_moves``; the
design matrix (7.78) is :func:`kmlib.kernels.design_matrix`.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from ._chunks import in_blocks
from ._kernel_checks import check_kernel, warn_if_constant
from ._rvm_model import (
    _beta_candidates,
    _Fit,
    _heading_out,
    _posterior,
    _report,
    classification_mode,
    log_evidence_term,
    optimal_alpha,
    regression_posterior,
    sparsity_quality,
)
from ._rvm_sequential import (
    initial_noise_precision,
    sequential_classification,
    sequential_regression,
)
from ._validation import (
    binary_training_data,
    check_bool,
    check_non_negative_int,
    check_positive_int,
    check_real,
    validate_data,
)
from .kernels import RBF, design_matrix

__all__ = [
    "RVR",
    "RVC",
    "regression_posterior",  # this and the four below from kmlib._rvm_model
    "classification_mode",
    "sparsity_quality",
    "log_evidence_term",
    "optimal_alpha",
]


# ------------------------------------------------------------------------ re-estimation
def _reestimate_regression(Phi, t, beta, tol, max_iter, threshold, verbose):
    """The evidence fixed point (7.87)-(7.89) from all basis functions, with pruning.

    A function is pruned when its alpha passes ``threshold``, or when the evidence has settled
    (an iteration changes it by less than ``tol``) and the function's own conditional optimum
    (7.101) is infinite: the fixed point would only push it slowly towards infinity, and removing
    it raises the evidence by -lambda(alpha_i) >= 0 (7.96).

    ``Phi`` (n, n_basis) holds unit columns and ``t`` (n,) targets of unit root mean square;
    ``beta`` is the noise precision to start from, ``threshold`` the ``prune_threshold`` of
    :class:`RVR`, and ``tol``, ``max_iter`` and ``verbose`` are the estimator's. Returns the fit
    in these scaled units, a ``kmlib._rvm_model._Fit``.
    """
    n, M = Phi.shape
    G, PhiT_t = Phi.T @ Phi, Phi.T @ t
    active = np.flatnonzero(np.diag(G) > 0)  # a zero column can never enter the model
    alpha = np.full(M, np.inf)
    alpha[active] = 1.0  # unit columns, unit-RMS targets: prior variance of y about 1
    path = []
    converged = False
    for n_iter in range(1, max_iter + 1):
        post = _posterior(
            G[np.ix_(active, active)], PhiT_t[active], Phi[:, active], t, alpha[active], beta
        )
        path.append(post.log_evidence)
        _report(verbose, "reestimate", n_iter, active.size, post.log_evidence)
        # PRML (7.87); gamma_i <= 0 (round-off) or m_i = 0 means the prior alone sets w_i: prune
        usable = (post.gamma > 0) & (post.mean != 0)
        new = np.full(active.size, np.inf)
        new[usable] = post.gamma[usable] / post.mean[usable] ** 2
        new_beta = _beta_candidates(post, n, beta)[0]  # PRML (7.88)
        keep = new < threshold
        if len(path) > 1 and abs(path[-1] - path[-2]) < tol and keep.all():
            # settled; what still heads for alpha = inf leaves now (7.101)
            keep = ~_heading_out(post.mean, post.gamma, post.cov)
            converged = keep.all()
        alpha[active] = new
        alpha[active[~keep]] = np.inf
        active, beta = active[keep], new_beta
        if converged:
            break
    post = _posterior(
        G[np.ix_(active, active)], PhiT_t[active], Phi[:, active], t, alpha[active], beta
    )
    path.append(post.log_evidence)
    return _Fit(
        alpha, active, beta, post.mean, post.cov, post.log_evidence, path, n_iter, converged
    )


def _reestimate_classification(Phi, t, tol, max_iter, threshold, verbose):
    """IRLS for the mode, then (7.116) for every alpha, from all basis functions, with pruning.

    The parameters are those of :func:`_reestimate_regression` without ``beta``, with labels
    ``t`` in {0, 1}; it returns a ``_Fit`` whose ``beta`` is nan.
    """
    M = Phi.shape[1]
    active = np.flatnonzero(np.sum(Phi**2, axis=0) > 0)
    alpha = np.full(M, np.inf)
    alpha[active] = 1.0
    w0 = np.zeros(active.size)
    path = []
    converged = False
    for n_iter in range(1, max_iter + 1):
        mode = classification_mode(Phi[:, active], t, alpha[active], w0=w0)
        path.append(mode.log_evidence)
        _report(verbose, "reestimate", n_iter, active.size, mode.log_evidence)
        gamma = 1.0 - alpha[active] * np.diag(mode.cov)
        usable = (gamma > 0) & (mode.w != 0)
        new = np.full(active.size, np.inf)
        new[usable] = gamma[usable] / mode.w[usable] ** 2  # PRML (7.116)
        keep = new < threshold
        if len(path) > 1 and abs(path[-1] - path[-2]) < tol and keep.all():
            keep = ~_heading_out(mode.w, gamma, mode.cov)  # as for regression, on (7.117)-(7.119)
            converged = keep.all()
        alpha[active] = new
        alpha[active[~keep]] = np.inf
        active, w0 = active[keep], mode.w[keep]
        if converged:
            break
    mode = classification_mode(Phi[:, active], t, alpha[active], w0=w0)
    path.append(mode.log_evidence)
    return _Fit(alpha, active, np.nan, mode.w, mode.cov, mode.log_evidence, path, n_iter, converged)


# ------------------------------------------------------------------------------- estimators
class _RVMBase(BaseEstimator):
    """Parameters, basis construction and bookkeeping shared by :class:`RVR` and :class:`RVC`."""

    _methods = ("sequential", "reestimate")

    def __init__(
        self,
        kernel=None,
        method="sequential",
        bias=True,
        tol=1e-6,
        max_iter=1000,
        prune_threshold=1e9,
        verbose=0,
    ):
        self.kernel = kernel
        self.method = method
        self.bias = bias
        self.tol = tol
        self.max_iter = max_iter
        self.prune_threshold = prune_threshold
        self.verbose = verbose

    def _validate_params_and_basis(self, X):
        """Check the parameters; return the training basis of validated inputs ``X`` (n, d)
        with unit-length columns, shape (n, n_basis), and the column norms, shape (n_basis,)."""
        if self.method not in self._methods:
            raise ValueError(f"method must be 'sequential' or 'reestimate'; got {self.method!r}")
        check_real(self.tol, "tol", low=0)
        check_real(self.prune_threshold, "prune_threshold", low=0)
        check_positive_int(self.max_iter, "max_iter")
        check_bool(self.bias, "bias")
        check_non_negative_int(self.verbose, "verbose", allow_bool=True)
        if X.shape[0] < 2:
            raise ValueError(
                f"{type(self).__name__} needs at least 2 samples; got {X.shape[0]} sample"
            )
        self.kernel_ = check_kernel(self.kernel, RBF)
        Phi = design_matrix(self.kernel_, X, X, bias=self.bias)
        warn_if_constant(Phi[:, 1:] if self.bias else Phi, type(self).__name__)
        norms = np.sqrt(np.sum(Phi**2, axis=0))
        norms[norms == 0] = 1.0  # an all-zero column stays zero and never enters the model
        return Phi / norms, norms

    def _store(self, X, fit, norms, t_scale):
        """Fitted attributes in the original units from ``fit`` (a ``_Fit``) on unit columns
        (``norms``, shape (n_basis,)) and targets divided by ``t_scale``."""
        n = X.shape[0]
        order = np.argsort(fit.active)  # the algorithms keep entry order; report by index
        active = fit.active[order]
        mean, cov = fit.mean[order], fit.cov[np.ix_(order, order)]
        scale = norms[active] / t_scale  # w_original = w_scaled / scale
        self.alpha_ = fit.alpha * norms**2 / t_scale**2
        self.coef_ = np.zeros(norms.size)
        self.coef_[active] = mean / scale
        self.sigma_ = cov / np.outer(scale, scale)
        self.active_ = active
        offset = 1 if self.bias else 0
        self.relevance_ = active[active >= offset] - offset
        self.relevance_vectors_ = X[self.relevance_]
        self.log_marginal_likelihood_ = fit.log_evidence - n * np.log(t_scale)
        self.log_marginal_likelihood_path_ = np.asarray(fit.path) - n * np.log(t_scale)
        self.n_iter_ = fit.n_iter
        if not fit.converged:
            warnings.warn(
                f"{type(self).__name__} ({self.method}) stopped at max_iter={self.max_iter} "
                "before converging; raise max_iter or tol",
                ConvergenceWarning,
                stacklevel=3,
            )
        if active.size == 0:
            warnings.warn(
                f"{type(self).__name__}: every basis function was pruned, so the model predicts "
                "0 everywhere; under this kernel the targets look like noise. Try another kernel "
                "or length-scale.",
                UserWarning,
                stacklevel=3,
            )

    def _active_basis(self, X):
        """Columns of the kept basis functions at validated new points, shape (m, n_active)."""
        with_bias = bool(self.bias and self.active_.size and self.active_[0] == 0)
        if not self.relevance_.size:
            return np.ones((X.shape[0], 1)) if with_bias else np.zeros((X.shape[0], 0))
        return design_matrix(self.kernel_, X, self.relevance_vectors_, bias=with_bias)

    def _latent(self, X):
        """phi(x)^T m and phi(x)^T Sigma phi(x), shape (m,) each."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        n_active = self.relevance_.size + 1
        return in_blocks(self._latent_rows, X, n_active, arrays=2.0, kernel=self.kernel_)

    def _latent_rows(self, X):
        """:meth:`_latent` at validated rows."""
        Phi = self._active_basis(X)
        mean = Phi @ self.coef_[self.active_]
        var = np.einsum("ij,ij->i", Phi @ self.sigma_, Phi)
        return mean, np.maximum(var, 0.0)


class RVR(RegressorMixin, _RVMBase):
    r"""Relevance vector regression (PRML 7.2.1–7.2.2).

    The noise precision :math:`\beta` is learned with the :math:`\alpha_i`.

    Parameters
    ----------
    kernel : kmlib kernel or callable, default=None
        Basis functions :math:`k(\mathbf x, \mathbf x_n)`, one per training point; ``None``
        gives ``RBF(lengthscale=1.0)``. The RVM does not learn the kernel's hyperparameters.
    method : {"sequential", "reestimate"}, default="sequential"
        The fast sequential algorithm of PRML 7.2.2 (Tipping & Faul 2003), or the re-estimation
        fixed point (7.87)–(7.89) with pruning (Tipping 2001). The evidence has many local
        maxima, and the two methods, started from the empty and the full model, can stop at
        different ones; neither is sure to find the higher. Re-estimation never brings back a
        pruned function, so it can stop where adding one would still raise the evidence. The
        sequential method's cost grows with the number of relevance vectors: it is much the
        faster when they are few. When the fit matters, run both methods and keep the higher
        ``log_marginal_likelihood_``.
    bias : bool, default=True
        Include the constant basis function of (7.78), so that :math:`M = N + 1`.
    tol : float, default=1e-6
        Convergence tolerance on the log evidence. Sequential: stop when no single add,
        re-estimate or delete move, nor the update of the noise precision, would raise it by
        more than ``tol``; active functions whose optimum (7.101) is infinite are then deleted.
        An iteration may be a joint Newton step on all active :math:`\alpha_i` (or on two of
        them) instead of a single move that revisits a recently moved function, when that gains
        more (see the module notes). Re-estimation: stop when an iteration changes it by less
        than ``tol`` and no kept function has an infinite conditional optimum (7.101) (those are
        pruned at that point).
    max_iter : int, default=1000
        Iteration limit; reaching it warns with ``ConvergenceWarning``.
    prune_threshold : float, default=1e9
        Re-estimation only: a basis function leaves the model when its :math:`\alpha_i`
        exceeds this (measured for a unit-length column and targets of unit root mean square).
    verbose : int, default=0
        Print progress every ``verbose`` iterations (0: silent).

    Attributes
    ----------
    alpha_ : ndarray of shape (n_basis,)
        Prior precisions :math:`\alpha_i`; ``inf`` for a pruned basis function. There are
        ``n_basis = n + 1`` basis functions with ``bias=True`` (index 0 is the bias, and the
        kernel column of training point ``i`` follows at ``i + 1``), ``n`` without.
    coef_ : ndarray of shape (n_basis,)
        Posterior mean :math:`\mathbf m` (7.82) of the weights, zero where pruned.
    active_ : ndarray of shape (n_active,)
        Indices of the basis functions in the model, ascending.
    sigma_ : ndarray of shape (n_active, n_active)
        Posterior covariance :math:`\boldsymbol\Sigma` (7.83) of the active weights.
    relevance_ : ndarray of shape (n_relevance,)
        Training indices of the relevance vectors.
    relevance_vectors_ : ndarray of shape (n_relevance, d)
        The relevance vectors, ``X[relevance_]``.
    kernel_ : kmlib kernel or callable
        The kernel used (a copy of ``kernel``).
    n_features_in_ : int
        Number of input features ``d`` seen in ``fit``.
    n_iter_ : int
        Iterations taken: sequential, each a single move, a joint step or a new noise
        precision alone; re-estimation, each one update of all :math:`\alpha_i` and :math:`\beta`.
    log_marginal_likelihood_path_ : ndarray of shape (n_iter_ + 1,)
        The log evidence at the start and after every iteration.
    beta_ : float
        Noise precision :math:`\beta`.
    log_marginal_likelihood_ : float
        Log evidence (7.85) at the fitted :math:`\boldsymbol\alpha, \beta`.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernels import RBF
    >>> from kmlib.rvm import RVR
    >>> X = np.linspace(0.0, 1.0, 20)[:, np.newaxis]
    >>> y = np.sin(2 * np.pi * X[:, 0])
    >>> model = RVR(kernel=RBF(lengthscale=0.2), method="reestimate").fit(X, y)
    >>> mean, std = model.predict(X[:3], return_std=True)
    >>> mean.shape, std.shape
    ((3,), (3,))
    >>> bool(np.max(np.abs(model.predict(X) - y)) < 0.1)  # a few kernel columns fit the sine
    True
    >>> model.relevance_vectors_.shape[1], bool(model.relevance_.size < 20)
    (1, True)
    """

    def fit(self, X, y):
        """Maximise the evidence over the precisions and the noise level.

        Parameters
        ----------
        X : array_like of shape (n, d)
            Training inputs, each the centre of one kernel basis function.
        y : array_like of shape (n,)
            Real targets.

        Returns
        -------
        self : RVR
            The fitted model.
        """
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        Phi, norms = self._validate_params_and_basis(X)
        rms = np.sqrt(np.mean(y**2))
        t_scale = rms if rms > 0 else 1.0
        t = y / t_scale
        if self.method == "sequential":
            # its steps handle a few active columns: one BLAS thread is faster than several
            with threadpool_limits(limits=1, user_api="blas"):
                fit = sequential_regression(
                    Phi, t, initial_noise_precision(t), self.tol, self.max_iter, self.verbose
                )
        else:
            beta = 10.0  # initial noise variance: a tenth of the mean square target
            fit = _reestimate_regression(
                Phi, t, beta, self.tol, self.max_iter, self.prune_threshold, self.verbose
            )
        self._store(X, fit, norms, t_scale)
        self.beta_ = fit.beta / t_scale**2
        return self

    def predict(self, X, return_std=False, include_noise=False):
        r"""Predictive mean (7.90) and standard deviation, the square root of (7.91).

        Parameters
        ----------
        X : array_like of shape (m, d)
            Query points.
        return_std : bool, default=False
            Also return the standard deviation.
        include_noise : bool, default=False
            ``True`` adds the noise variance :math:`\beta^{-1}`, exactly (7.91): the spread of
            a new target. ``False``, the default as in every kmlib regressor, gives the
            uncertainty of :math:`y(\mathbf x)` alone.

        Returns
        -------
        mean : ndarray of shape (m,)
        std : ndarray of shape (m,)
            Only with ``return_std=True``.
        """
        mean, var = self._latent(X)
        if not return_std:
            return mean
        if include_noise:
            var = var + 1.0 / self.beta_  # PRML (7.91)
        return mean, np.sqrt(var)


class RVC(ClassifierMixin, _RVMBase):
    r"""Relevance vector classification for two classes (PRML 7.2.3).

    The weight posterior is replaced by its Laplace approximation at the mode; the
    :math:`\alpha_i` maximise the approximate evidence (7.114). For more classes, wrap it in
    :class:`sklearn.multiclass.OneVsRestClassifier`.

    Parameters
    ----------
    kernel : kmlib kernel or callable, default=None
        Basis functions :math:`k(\mathbf x, \mathbf x_n)`, one per training point; ``None``
        gives ``RBF(lengthscale=1.0)``. The RVM does not learn the kernel's hyperparameters.
    method : {"sequential", "reestimate"}, default="sequential"
        The fast sequential algorithm of PRML 7.2.2 (Tipping & Faul 2003) on the Laplace
        approximation, or re-estimation by (7.116) with pruning (Tipping 2001). The evidence has
        many local maxima, and the two can stop at different ones. The sequential method climbs
        from three starts, the empty model and ten and forty mutually dissimilar basis
        functions with large prior variances, and keeps the highest maximum: on nearly
        separable data the empty start alone ends at a weak classifier. Re-estimation starts
        from all basis functions and never brings back a pruned one. When the fit matters, run
        both methods and keep the higher ``log_marginal_likelihood_``.
    bias : bool, default=True
        Include the constant basis function of (7.78), so that :math:`M = N + 1`.
    tol : float, default=1e-6
        Convergence tolerance on the (Laplace) log evidence. Sequential: each climb stops when
        no single add, re-estimate or delete move would raise it by more than ``tol``, and a
        later start is kept only if it ends more than ``tol`` higher. Re-estimation: stop when
        an iteration changes it by less than ``tol`` and no kept function has an infinite
        conditional optimum (7.101) (those are pruned at that point).
    max_iter : int, default=1000
        Iteration limit; reaching it warns with ``ConvergenceWarning``.
    prune_threshold : float, default=1e9
        Re-estimation only: a basis function leaves the model when its :math:`\alpha_i`
        exceeds this (measured for a unit-length column).
    verbose : int, default=0
        Print progress every ``verbose`` iterations (0: silent).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels; ``classes_[1]`` is the class whose probability :math:`\sigma(y)` models.
    alpha_ : ndarray of shape (n_basis,)
        Prior precisions :math:`\alpha_i`; ``inf`` for a pruned basis function. There are
        ``n_basis = n + 1`` basis functions with ``bias=True`` (index 0 is the bias, and the
        kernel column of training point ``i`` follows at ``i + 1``), ``n`` without.
    coef_ : ndarray of shape (n_basis,)
        Weights at the mode :math:`\mathbf w^*` (7.112), zero where pruned.
    active_ : ndarray of shape (n_active,)
        Indices of the basis functions in the model, ascending.
    sigma_ : ndarray of shape (n_active, n_active)
        Covariance :math:`\boldsymbol\Sigma` (7.113) of the Laplace approximation over the
        active weights.
    relevance_ : ndarray of shape (n_relevance,)
        Training indices of the relevance vectors.
    relevance_vectors_ : ndarray of shape (n_relevance, d)
        The relevance vectors, ``X[relevance_]``.
    kernel_ : kmlib kernel or callable
        The kernel used (a copy of ``kernel``).
    n_features_in_ : int
        Number of input features ``d`` seen in ``fit``.
    n_iter_ : int
        Iterations taken: sequential, the moves of the climb kept; re-estimation, the updates
        (7.116) of all :math:`\alpha_i`.
    log_marginal_likelihood_path_ : ndarray of shape (n_iter_ + 1,)
        The log evidence at the start and after every iteration.
    log_marginal_likelihood_ : float
        Laplace log evidence (7.114) at the fitted :math:`\boldsymbol\alpha`.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.datasets import two_class
    >>> from kmlib.kernels import RBF
    >>> from kmlib.rvm import RVC
    >>> X, y = two_class(60, random_state=0)
    >>> model = RVC(kernel=RBF(lengthscale=1.0), method="reestimate").fit(X, y)
    >>> model.classes_
    array([0, 1])
    >>> proba = model.predict_proba(X[:4])
    >>> proba.shape, bool(np.allclose(proba.sum(axis=1), 1.0))
    ((4, 2), True)
    >>> bool(np.mean(model.predict(X) == y) > 0.9)
    True
    """

    def fit(self, X, y):
        """Maximise the approximate evidence over the precisions.

        Parameters
        ----------
        X : array_like of shape (n, d)
            Training inputs, each the centre of one kernel basis function.
        y : array_like of shape (n,)
            Labels: exactly two distinct values.

        Returns
        -------
        self : RVC
            The fitted model.
        """
        X, t = binary_training_data(self, X, y)
        Phi, norms = self._validate_params_and_basis(X)
        if self.method == "sequential":
            fit = sequential_classification(Phi, t, self.tol, self.max_iter, self.verbose)
        else:
            fit = _reestimate_classification(
                Phi, t, self.tol, self.max_iter, self.prune_threshold, self.verbose
            )
        self._store(X, fit, norms, 1.0)
        return self

    def decision_function(self, X):
        r""":math:`\mathbf w^{*\top}\boldsymbol\phi(\mathbf x)`, the argument of (7.108) at the
        mode.

        Parameters
        ----------
        X : array_like of shape (m, d)
            Query points.

        Returns
        -------
        ndarray of shape (m,)
            Positive where ``classes_[1]`` is the more probable class.
        """
        return self._latent(X)[0]

    def latent_mean_and_variance(self, X):
        r"""Mean :math:`\mathbf w^{*\top}\boldsymbol\phi` and variance
        :math:`\boldsymbol\phi^\top\boldsymbol\Sigma\boldsymbol\phi` of the latent value.

        With :func:`kmlib.laplace.probit_probability` they give the moderated probability of
        PRML (4.153), which averages (7.108) over the Laplace posterior instead of plugging in
        :math:`\mathbf w^*`.

        Parameters
        ----------
        X : array_like of shape (m, d)
            Query points.

        Returns
        -------
        mean, var : ndarray of shape (m,)
            Mean and variance of the latent value at each query point.
        """
        return self._latent(X)

    def predict_proba(self, X):
        r"""Class probabilities :math:`\sigma(\mathbf w^{*\top}\boldsymbol\phi(\mathbf x))` (7.108).

        Parameters
        ----------
        X : array_like of shape (m, d)
            Query points.

        Returns
        -------
        proba : ndarray of shape (m, 2)
            Columns in the order of ``classes_``.
        """
        p1 = expit(self.decision_function(X))
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X):
        """The more probable class.

        Parameters
        ----------
        X : array_like of shape (m, d)
            Points to classify.

        Returns
        -------
        labels : ndarray of shape (m,)
            Entries of ``classes_``.
        """
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
