r"""Support vector machines on kmlib's SMO solver (PRML 7.1, 7.1.1, 7.1.3, 7.1.4).

Each estimator builds one instance of the dual family of :mod:`kmlib.smo` and solves it
(all minimised, with :math:`Q_{nm} = t_n t_m k(\mathbf x_n, \mathbf x_m)`):

* ``SVC``: :math:`\tfrac12 a^TQa - \mathbf 1^Ta` with :math:`0 \le a_n \le C` and
  :math:`\mathbf t^Ta = 0`, PRML (7.32)-(7.33);
* ``NuSVC``: :math:`\tfrac12 a^TQa` with :math:`0 \le a_n \le 1`, :math:`\mathbf t^Ta = 0`
  and :math:`\mathbf 1^Ta = \nu N`, the ν-SVM of PRML (7.38)-(7.41) (Schölkopf et al. 2000);
* ``SVR``: 2N variables :math:`a_n, \hat a_n \in [0, C]`, linear term
  :math:`\epsilon \mp t_n`, :math:`\sum_n (a_n - \hat a_n) = 0`, PRML (7.61)-(7.63);
* ``NuSVR``: the same variables with linear term :math:`\mp t_n` and also
  :math:`\sum_n (a_n + \hat a_n) = C\nu N`, PRML (7.70)-(7.74);
* ``OneClassSVM``: :math:`\tfrac12 a^TKa` with :math:`0 \le a_n \le 1` and
  :math:`\mathbf 1^Ta = \nu N` (Schölkopf et al. 2001).

The ν-forms are stated as LIBSVM solves them (Chang & Lin 2011), with the bounds scaled by N.
The conventions follow LIBSVM and scikit-learn, so that results can be compared one to one:
``dual_coef_`` holds :math:`a_n t_n` (PRML's :math:`a_n t_n` of (7.13)), ``intercept_`` is
:math:`b`, and for two classes a positive decision value means ``classes_[1]``.

Multiclass classification (PRML 7.1.3) is one-versus-one voting by default, as in LIBSVM,
or one-versus-the-rest with ``multiclass="ovr"``. ``probability=True`` fits Platt's sigmoid to
decision values from an internal 5-fold cross-validation (Platt 2000, in the form of Lin, Lin
& Weng 2007) and couples the pairwise probabilities by the second method of Wu, Lin & Weng
(2004).

``kernel`` takes any kmlib kernel (or any callable ``k(A, B)``), the string ``"precomputed"``
(then ``X`` is the Gram matrix at fit time and the kernel between test and training points at
prediction time), or ``None``: an :class:`~kmlib.kernels.RBF` kernel with
:math:`\ell = \sqrt{d\,\mathrm{var}(X)/2}`, which is scikit-learn's ``gamma="scale"``
(:math:`\gamma = 1/(d\,\mathrm{var}(X))`, :math:`\ell = 1/\sqrt{2\gamma}`), or
:math:`\ell = 1/\sqrt2` when ``X`` is constant.
"""

from __future__ import annotations

import numbers
from itertools import combinations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, OutlierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._chunks import in_blocks
from ._kernel_checks import CONSTANT_GRAM, check_kernel, evaluate_kernel
from ._validation import check_bool, check_real, class_labels, validate_data
from .kernels import RBF
from .smo import KernelRows, solve

__all__ = ["SVC", "SVR", "NuSVC", "NuSVR", "OneClassSVM", "pairwise_coupling", "platt_sigmoid"]

#: Folds of the internal cross-validation behind ``predict_proba`` (LIBSVM's choice).
N_FOLDS = 5


# ====================================================================== probabilities
def platt_sigmoid(f, t, *, max_iter=100, min_step=1e-10, sigma=1e-12, eps=1e-5):
    r"""Fit :math:`P(t=1\mid f) = 1/(1 + \exp(Af + B))` to decision values (Platt scaling).

    Platt (2000) with the safeguards of Lin, Lin & Weng (2007): regularised targets
    :math:`(N_+ + 1)/(N_+ + 2)` and :math:`1/(N_- + 2)` in place of 1 and 0, the cross-entropy
    evaluated without overflow, and Newton's method with a backtracking line search.

    Parameters
    ----------
    f : ndarray of shape (n,)
        Decision values (from cross-validation, so that they are not over-confident).
    t : ndarray of bool, shape (n,)
        ``True`` for the positive class.
    max_iter : int, default=100
        Largest number of Newton iterations.
    min_step : float, default=1e-10
        Smallest step of the line search; when no longer step lowers the loss the fit stops.
    sigma : float, default=1e-12
        Added to the diagonal of the Hessian, so that it stays positive definite.
    eps : float, default=1e-5
        Stop when both entries of the gradient are at most ``eps`` in absolute value.

    Returns
    -------
    A, B : float
        Slope and offset; :math:`A < 0` when larger ``f`` means the positive class.

    Examples
    --------
    Decision values whose classes overlap near zero:

    >>> import numpy as np
    >>> from kmlib.svm import platt_sigmoid
    >>> f = np.array([-3.0, -2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 3.0])
    >>> t = np.array([False, False, False, True, False, True, True, True])
    >>> A, B = platt_sigmoid(f, t)
    >>> round(float(A), 2)
    -0.62
    >>> p = 1.0 / (1.0 + np.exp(A * f + B))  # P(t = 1 | f)
    >>> bool(np.all(np.diff(p) > 0))
    True
    """
    f = np.asarray(f, dtype=np.float64)
    t = np.asarray(t, dtype=bool)
    n_pos, n_neg = int(t.sum()), int((~t).sum())
    target = np.where(t, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))

    def loss(A, B):
        z = A * f + B  # -log p = log(1 + e^z), -log(1 - p) = log(1 + e^z) - z
        return float(np.sum(np.logaddexp(0.0, z) - (1.0 - target) * z))

    A, B = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))
    value = loss(A, B)
    for _ in range(max_iter):
        z = A * f + B
        p = np.exp(-np.logaddexp(0.0, z))  # P(t = 1 | f)
        r = target - p  # d loss / dz
        w = p * (1.0 - p)  # d^2 loss / dz^2
        g = np.array([np.dot(r, f), r.sum()])
        if np.max(np.abs(g)) < eps:
            break
        H = np.array([[np.dot(w, f * f) + sigma, np.dot(w, f)], [np.dot(w, f), w.sum() + sigma]])
        dA, dB = -np.linalg.solve(H, g)  # Newton direction
        decrease = g[0] * dA + g[1] * dB
        step = 1.0
        while step >= min_step:  # backtracking (Armijo) line search
            new = loss(A + step * dA, B + step * dB)
            if new < value + 1e-4 * step * decrease:
                A, B, value = A + step * dA, B + step * dB, new
                break
            step /= 2.0
        else:
            break  # no decrease possible: as good as it gets in floating point
    return A, B


def _sigmoid_predict(f, A, B):
    z = A * f + B
    return np.exp(-np.logaddexp(0.0, z))


def pairwise_coupling(r):
    r"""Class probabilities from pairwise ones (Wu, Lin & Weng 2004, method 2).

    Minimises :math:`\sum_i\sum_{j\ne i}(r_{ji}p_i - r_{ij}p_j)^2` subject to
    :math:`\sum_i p_i = 1`, i.e. solves :math:`\begin{pmatrix}Q & \mathbf 1\\ \mathbf 1^T & 0
    \end{pmatrix}\begin{pmatrix}\mathbf p\\ b\end{pmatrix} = \begin{pmatrix}\mathbf 0\\ 1
    \end{pmatrix}` with :math:`Q_{ii} = \sum_{j\ne i} r_{ji}^2`, :math:`Q_{ij} = -r_{ji}r_{ij}`.

    Parameters
    ----------
    r : ndarray of shape (n, k, k)
        ``r[:, i, j]`` estimates :math:`P(y = i \mid y \in \{i, j\}, x)`, and
        ``r[:, j, i] = 1 - r[:, i, j]``.

    Returns
    -------
    p : ndarray of shape (n, k)
        Rows sum to one.

    Raises
    ------
    ValueError
        If ``r`` is not of shape (n, k, k) with k >= 2 or holds values outside [0, 1].

    Examples
    --------
    Pairwise probabilities :math:`r_{ij} = p_i/(p_i + p_j)` that agree with
    :math:`\mathbf p = (0.5, 0.3, 0.2)` give that :math:`\mathbf p` back:

    >>> import numpy as np
    >>> from kmlib.svm import pairwise_coupling
    >>> p = np.array([0.5, 0.3, 0.2])
    >>> r = p[:, np.newaxis] / (p[:, np.newaxis] + p[np.newaxis, :])  # the diagonal is unused
    >>> np.round(pairwise_coupling(r[np.newaxis]), 4)
    array([[0.5, 0.3, 0.2]])
    """
    r = np.asarray(r, dtype=np.float64)
    if r.ndim != 3 or r.shape[1] != r.shape[2] or r.shape[1] < 2:
        raise ValueError(
            f"r must have shape (n, k, k) with k >= 2 classes (one k x k matrix of pairwise "
            f"probabilities per point); got shape {r.shape}"
        )
    off = ~np.eye(r.shape[1], dtype=bool)
    if not np.all((r[:, off] >= 0) & (r[:, off] <= 1)):  # also false for NaN
        raise ValueError("r must hold pairwise probabilities in [0, 1] off its diagonals")
    n, k, _ = r.shape
    Q = -r.transpose(0, 2, 1) * r  # Q_ij = -r_ji r_ij
    sq = np.where(off, r.transpose(0, 2, 1) ** 2, 0.0)
    Q[:, np.arange(k), np.arange(k)] = sq.sum(axis=2)  # Q_ii = sum_j r_ji^2
    M = np.zeros((n, k + 1, k + 1))
    M[:, :k, :k] = Q
    M[:, :k, k] = 1.0
    M[:, k, :k] = 1.0
    rhs = np.zeros((n, k + 1, 1))
    rhs[:, k, 0] = 1.0
    p = np.linalg.solve(M, rhs)[:, :k, 0]
    p = np.clip(p, 0.0, None)  # the exact solution is non-negative; remove rounding
    return p / p.sum(axis=1, keepdims=True)


# ====================================================================== shared machinery
class _BaseSVM(BaseEstimator):
    """Kernel handling, validation and solver calls shared by all SVMs."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self._precomputed()
        return tags

    def _precomputed(self):
        return isinstance(self.kernel, str) and self.kernel == "precomputed"

    def _check_common(self):
        check_real(self.tol, "tol", low=0.0)
        check_bool(self.shrinking, "shrinking")
        if hasattr(self, "probability"):
            check_bool(self.probability, "probability")
        check_real(self.cache_size, "cache_size", low=0.0)
        integer = isinstance(self.max_iter, numbers.Integral) and not isinstance(
            self.max_iter, bool
        )
        if not integer or self.max_iter == 0 or self.max_iter < -1:
            raise ValueError(
                f"max_iter must be a positive integer or -1 (no limit); got {self.max_iter!r}"
            )
        check_kernel(self.kernel, RBF, names=("precomputed",))  # only the kinds, at fit time

    def _validate_X(self, X, y="no_validation", reset=True, **kwargs):
        checks = {"reset": reset, "dtype": np.float64, "order": "C", "precomputed": True}
        if isinstance(y, str) and y == "no_validation":
            X = validate_data(self, X, **checks)
        else:
            X, y = validate_data(self, X, y, **checks, **kwargs)
        if self._precomputed() and reset and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"X must be a square Gram matrix when kernel='precomputed'; got shape {X.shape}"
            )
        return X if isinstance(y, str) and y == "no_validation" else (X, y)

    def _sample_weight(self, sample_weight, n):
        if sample_weight is None:
            return np.ones(n)
        sw = np.asarray(sample_weight, dtype=np.float64)
        if sw.ndim == 0:
            sw = np.full(n, float(sw))
        if sw.shape != (n,):
            raise ValueError(f"sample_weight must have shape ({n},); got {sw.shape}")
        if not np.all(np.isfinite(sw)) or np.any(sw < 0):
            raise ValueError("sample_weight must be finite and non-negative")
        return sw

    def _fit_kernel(self, X):
        """Set ``kernel_`` and return the kernel rows of the training set."""

        def scaled_rbf():
            var = X.var()
            gamma = 1.0 / (X.shape[1] * var) if var > 0 else 1.0  # sklearn's gamma="scale"
            return RBF(lengthscale=float(1.0 / np.sqrt(2.0 * gamma)))

        self.kernel_ = check_kernel(self.kernel, scaled_rbf, names=("precomputed",))
        if self._precomputed():
            return KernelRows(matrix=X)
        return KernelRows(self.kernel_, X, cache_size=self.cache_size)

    def _solve(self, rows, y, p, C, alpha0=None, sample_index=None, two_constraints=False):
        return solve(
            rows,
            y,
            p,
            C,
            alpha0,
            sample_index=sample_index,
            two_constraints=two_constraints,
            tol=self.tol,
            max_iter=self.max_iter,
            shrinking=self.shrinking,
        )

    def _set_support(self, X, support):
        self.support_ = np.asarray(support, dtype=np.int32)
        if self._precomputed():
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = X[self.support_]

    def _kernel_to_support(self, X):
        """Kernel between the rows of ``X`` and the support vectors, shape (n, n_SV)."""
        if self._precomputed():
            return X[:, self.support_]
        return evaluate_kernel(self.kernel_, X, self.support_vectors_)

    def _raw_decision(self, X):
        """``K(X, SV) @ _coef + _b``, shape (n, n_problems), computed in blocks of rows."""
        if self._coef.shape[0] == 0:  # no support vectors: the decision is the offset alone
            return np.tile(self._b, (X.shape[0], 1))
        return in_blocks(
            lambda rows: self._kernel_to_support(rows) @ self._coef + self._b,
            X,
            self._coef.shape[0],
            kernel=self.kernel_,
        )


# ====================================================================== classifiers
class _BaseSVC(ClassifierMixin, _BaseSVM):
    """Binary problems, multiclass strategies and probabilities shared by SVC and NuSVC."""

    def _check_classifier(self):
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise ValueError(
                "decision_function_shape must be 'ovr' or 'ovo'; "
                f"got {self.decision_function_shape!r}"
            )
        if self.multiclass not in ("ovo", "ovr"):
            raise ValueError(f"multiclass must be 'ovo' or 'ovr'; got {self.multiclass!r}")

    def fit(self, X, y, sample_weight=None):
        """Fit the classifier.

        Parameters
        ----------
        X : array_like of shape (n, d), or (n, n) with ``kernel="precomputed"``
            Training inputs (or their Gram matrix).
        y : array_like of shape (n,)
            Class labels (any type that ``numpy.unique`` can sort).
        sample_weight : array_like of shape (n,) or None, default=None
            Multiplies the box constraint of each sample (samples of weight zero are dropped).

        Returns
        -------
        self
        """
        self._check_common()
        self._check_params()
        self._check_classifier()
        X, y = self._validate_X(X, y)
        self.classes_, y_enc = class_labels(y)
        k = len(self.classes_)
        if k < 2:
            raise ValueError(
                f"y has only one class ({self.classes_[0]!r}); a classifier needs samples of at "
                "least two classes"
            )
        sw = self._sample_weight(sample_weight, X.shape[0])
        cw = compute_class_weight(self.class_weight, classes=self.classes_, y=y)
        weight = cw[y_enc] * sw  # scales each sample's box
        rows = self._fit_kernel(X)
        if self.multiclass == "ovo" or k == 2:
            problems = [(y_enc == a, y_enc == b) for a, b in combinations(range(k), 2)]
        else:
            problems = [(y_enc == a, y_enc != a) for a in range(k)]
        rng = check_random_state(self.random_state)
        coefs, bs, iters, objs, probA, probB = [], [], [], [], [], []
        for first, second in problems:
            idx = np.flatnonzero((first | second) & (weight > 0))
            # LIBSVM's order: the first class (+1) before the second (-1)
            idx = np.concatenate([idx[first[idx]], idx[second[idx]]])
            t = np.where(first[idx], 1.0, -1.0)
            if np.all(t > 0) or np.all(t < 0):
                raise ValueError(
                    "after removing samples of zero weight a binary problem has only one class; "
                    "check sample_weight and class_weight"
                )
            coef, b, res_iter, res_obj = self._binary(rows, idx, t, weight[idx])
            coefs.append((idx, coef))
            bs.append(b)
            iters.append(res_iter)
            objs.append(res_obj)
            if self.probability:
                A, B = self._platt_cv(rows, idx, t, weight[idx], rng)
                probA.append(A)
                probB.append(B)
        self._assemble(X, y_enc, coefs, bs)
        self.n_iter_ = np.array(iters, dtype=np.int32)
        self.dual_objective_ = np.array(objs)
        if self.probability:
            self.probA_, self.probB_ = np.array(probA), np.array(probB)
        return self

    def _assemble(self, X, y_enc, coefs, bs):
        """Support set in scikit-learn's order (by class, then index) and dual coefficients."""
        k = len(self.classes_)
        n = X.shape[0]
        sv = np.zeros(n, dtype=bool)
        for idx, coef in coefs:
            sv[idx[coef != 0]] = True
        support = np.concatenate([np.flatnonzero(sv & (y_enc == c)) for c in range(k)])
        self._set_support(X, support)
        self.n_support_ = np.array([np.sum(sv & (y_enc == c)) for c in range(k)], dtype=np.int32)
        position = np.full(n, -1)
        position[support] = np.arange(support.size)
        # internal coefficients: column q gives decision value q, positive -> first class
        self._coef = np.zeros((support.size, len(coefs)))
        for q, (idx, coef) in enumerate(coefs):
            nz = coef != 0
            self._coef[position[idx[nz]], q] = coef[nz]
        self._b = np.array(bs, dtype=np.float64)
        if k == 2:  # scikit-learn: positive means classes_[1]
            self.dual_coef_ = -self._coef.T
            self.intercept_ = -self._b
        elif self.multiclass == "ovo":
            # LIBSVM's layout: SVs of class i hold their coefficient of pair (i, j) in row
            # j - 1 when j > i and in row j when j < i
            self.dual_coef_ = np.zeros((k - 1, support.size))
            cls = y_enc[support]
            for q, (a, b) in enumerate(combinations(range(k), 2)):
                col = self._coef[:, q]
                self.dual_coef_[b - 1, cls == a] = col[cls == a]
                self.dual_coef_[a, cls == b] = col[cls == b]
            self.intercept_ = self._b.copy()
        else:
            self.dual_coef_ = self._coef.T.copy()
            self.intercept_ = self._b.copy()

    def _platt_cv(self, rows, idx, t, weight, rng):
        """Decision values by N_FOLDS-fold cross-validation, then Platt's sigmoid."""
        perm = rng.permutation(idx.size)
        folds = np.array_split(perm, N_FOLDS)
        dec = np.zeros(idx.size)
        for fold in folds:
            if fold.size == 0:
                continue
            train = np.setdiff1d(perm, fold)
            train = np.concatenate([train[t[train] > 0], train[t[train] < 0]])
            pos, neg = np.sum(t[train] > 0), np.sum(t[train] < 0)
            if pos == 0 or neg == 0:  # LIBSVM: a one-class fold predicts its class
                dec[fold] = 1.0 if pos > 0 else (-1.0 if neg > 0 else 0.0)
                continue
            coef, b, _, _ = self._binary(rows, idx[train], t[train], weight[train])
            nz = np.flatnonzero(coef)
            cols = idx[train][nz]
            order = np.argsort(cols)
            dec[fold] = rows.dot(idx[fold], cols[order], coef[nz][order]) + b
        return platt_sigmoid(dec, t > 0)

    # ------------------------------------------------------------------ prediction
    def _decision_pairs(self, X):
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        return self._raw_decision(X)

    def decision_function(self, X):
        """Decision values.

        Parameters
        ----------
        X : array_like of shape (n, d), or (n, n_train) with ``kernel="precomputed"``

        Returns
        -------
        ndarray of shape (n,) for two classes (positive means ``classes_[1]``); otherwise
        (n, n_classes) with ``decision_function_shape="ovr"`` (one-versus-one votes plus
        confidences scaled into (-1/3, 1/3), as scikit-learn does), or (n, n_pairs) with ``"ovo"``
        (positive means the first class of the pair). With ``multiclass="ovr"`` the columns are
        the K one-versus-rest classifiers.
        """
        raw = self._decision_pairs(X)
        k = len(self.classes_)
        if k == 2:
            return -raw[:, 0]
        if self.multiclass == "ovr" or self.decision_function_shape == "ovo":
            return raw
        votes = np.zeros((raw.shape[0], k))
        conf = np.zeros((raw.shape[0], k))
        for q, (a, b) in enumerate(combinations(range(k), 2)):
            votes[:, a] += raw[:, q] >= 0  # scikit-learn's convention here
            votes[:, b] += raw[:, q] < 0
            conf[:, a] += raw[:, q]
            conf[:, b] -= raw[:, q]
        return votes + conf / (3.0 * (np.abs(conf) + 1.0))

    def predict(self, X):
        """Class labels: LIBSVM's one-versus-one vote (ties go to the lower class index), or the
        largest one-versus-rest decision value.

        Parameters
        ----------
        X : array_like of shape (n, d), or (n, n_train) with ``kernel="precomputed"``

        Returns
        -------
        ndarray of shape (n,)
        """
        raw = self._decision_pairs(X)
        k = len(self.classes_)
        if k == 2:
            return self.classes_[np.where(raw[:, 0] > 0, 0, 1)]
        if self.multiclass == "ovr":
            return self.classes_[np.argmax(raw, axis=1)]
        votes = np.zeros((raw.shape[0], k), dtype=np.intp)
        for q, (a, b) in enumerate(combinations(range(k), 2)):
            votes[:, a] += raw[:, q] > 0
            votes[:, b] += raw[:, q] <= 0
        return self.classes_[np.argmax(votes, axis=1)]

    def _check_proba(self):
        if not self.probability:
            raise AttributeError("predict_proba is available only when probability=True")
        return True

    @available_if(_check_proba)
    def predict_proba(self, X):
        """Class probabilities from Platt's sigmoids (and pairwise coupling for k > 2).

        Parameters
        ----------
        X : array_like of shape (n, d), or (n, n_train) with ``kernel="precomputed"``

        Returns
        -------
        ndarray of shape (n, n_classes)
            Columns in the order of ``classes_``.
        """
        raw = self._decision_pairs(X)
        k = len(self.classes_)
        pr = np.clip(_sigmoid_predict(raw, self.probA_, self.probB_), 1e-7, 1 - 1e-7)
        if k == 2:
            return np.column_stack([pr[:, 0], 1.0 - pr[:, 0]])
        if self.multiclass == "ovr":
            return pr / pr.sum(axis=1, keepdims=True)

        def couple(pr):  # (n, k + 1, k + 1) arrays in the coupling: in blocks as well
            r = np.zeros((pr.shape[0], k, k))
            for q, (a, b) in enumerate(combinations(range(k), 2)):
                r[:, a, b] = pr[:, q]
                r[:, b, a] = 1.0 - pr[:, q]
            return pairwise_coupling(r)

        return in_blocks(couple, pr, (k + 1) ** 2, arrays=8.0)

    @available_if(_check_proba)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))


class SVC(_BaseSVC):
    r"""C-support vector classifier, PRML 7.1 and 7.1.1 (soft margin).

    Solves the dual (7.32)-(7.33) with kmlib's SMO and predicts by the sign of (7.13),
    :math:`y(\mathbf x) = \sum_n a_n t_n k(\mathbf x, \mathbf x_n) + b`.

    Parameters
    ----------
    C : float, default=1.0
        Box constraint :math:`C > 0` of (7.33); the penalty on the slacks in (7.21).
    kernel : kmlib kernel, callable, "precomputed" or None, default=None
        ``None`` is an RBF kernel matching scikit-learn's ``gamma="scale"`` (module docstring).
    tol : float, default=1e-3
        Stopping tolerance on the maximal KKT violation :math:`m(\alpha) - M(\alpha)`.
    shrinking : bool, default=True
        Use the shrinking heuristics of the solver.
    probability : bool, default=False
        Fit Platt sigmoids by internal 5-fold cross-validation so that ``predict_proba`` works
        (five more fits per binary problem).
    cache_size : float, default=200
        Memory for kernel rows in megabytes; the whole Gram matrix is kept when it fits.
    class_weight : dict, "balanced" or None, default=None
        Multiplies the box constraint of each class (``{label: weight}``); ``"balanced"`` uses
        ``n_samples / (n_classes * count)``; ``None`` gives every class weight one.
    max_iter : int, default=-1
        Iteration limit of each solve; -1 for LIBSVM's ``max(10**7, 100 n)``. Hitting it warns
        with ``ConvergenceWarning``.
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        Shape of ``decision_function`` for more than two classes (see there).
    multiclass : {"ovo", "ovr"}, default="ovo"
        Training strategy for more than two classes: one-versus-one voting (LIBSVM) or one
        classifier per class against the rest (PRML 7.1.3).
    random_state : int, RandomState or None, default=None
        Seeds the cross-validation folds of ``probability=True``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    kernel_ : kernel or "precomputed"
        The kernel used (the default RBF when ``kernel=None``).
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors, grouped by class.
    support_vectors_ : ndarray of shape (n_SV, d)
        Empty with ``kernel="precomputed"``.
    n_support_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray of shape (n_classes - 1, n_SV)
        :math:`a_n t_n` in LIBSVM's layout; ``(n_classes, n_SV)`` with ``multiclass="ovr"``.
    intercept_ : ndarray of shape (n_classifiers,)
        :math:`b` of each binary classifier.
    n_iter_ : ndarray of shape (n_classifiers,)
        SMO iterations of each binary problem.
    dual_objective_ : ndarray of shape (n_classifiers,)
        Minimised dual objective of each binary problem (LIBSVM's ``obj``).
    probA_, probB_ : ndarray of shape (n_classifiers,)
        Platt's :math:`A, B` (only with ``probability=True``).

    Examples
    --------
    Two well-separated groups; with a linear kernel and a large ``C`` the fit is the
    maximum-margin hyperplane :math:`\mathbf w^T\mathbf x + b = 0` of PRML 7.1, here
    :math:`\mathbf w = (0.4, 0.4)`, :math:`b = -1.4`:

    >>> import numpy as np
    >>> from kmlib.kernels import Linear
    >>> from kmlib.svm import SVC
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [3.0, 3.0], [3.0, 4.0], [4.0, 3.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> clf = SVC(C=10.0).fit(X, y)
    >>> clf.predict([[0.5, 0.5], [3.5, 3.5]])
    array([0, 1])
    >>> linear = SVC(C=10.0, kernel=Linear()).fit(X, y)
    >>> np.round(linear.dual_coef_ @ linear.support_vectors_, 2), np.round(linear.intercept_, 2)
    (array([[0.4, 0.4]]), array([-1.4]))
    """

    def __init__(
        self,
        C=1.0,
        kernel=None,
        tol=1e-3,
        *,
        shrinking=True,
        probability=False,
        cache_size=200,
        class_weight=None,
        max_iter=-1,
        decision_function_shape="ovr",
        multiclass="ovo",
        random_state=None,
    ):
        self.C = C
        self.kernel = kernel
        self.tol = tol
        self.shrinking = shrinking
        self.probability = probability
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.multiclass = multiclass
        self.random_state = random_state

    def _check_params(self):
        check_real(self.C, "C", low=0.0)

    def _binary(self, rows, idx, t, weight):
        # PRML (7.32): minimise 1/2 a^T Q a - 1^T a with 0 <= a_n <= C (7.33), t^T a = 0
        res = self._solve(rows, t, -1.0, self.C * weight, sample_index=idx)
        return res.alpha * t, res.b, res.n_iter, res.objective


class NuSVC(_BaseSVC):
    r"""ν-support vector classifier, PRML 7.1.1 (Schölkopf et al. 2000).

    ν bounds the fraction of margin errors from above and the fraction of support vectors from
    below. LIBSVM's form is solved: :math:`\min \tfrac12 a^TQa` with :math:`0 \le a_n \le 1`,
    :math:`t^Ta = 0`, :math:`\mathbf 1^Ta = \nu N` (PRML (7.38)-(7.41) with the bounds scaled by
    N), after which the coefficients and the bias are divided by the margin :math:`\rho` of the
    fit, so that the decision function matches a C-SVM with :math:`C = 1/\rho`.
    ``dual_objective_`` is LIBSVM's ``obj``, :math:`\tfrac12 a^TQa/\rho^2`.

    Parameters
    ----------
    nu : float, default=0.5
        :math:`0 < \nu \le 1`; each pair of classes must satisfy
        :math:`\nu (N_1 + N_2)/2 \le \min(N_1, N_2)`.
    kernel : kmlib kernel, callable, "precomputed" or None, default=None
        ``None`` is an RBF kernel matching scikit-learn's ``gamma="scale"`` (module docstring).
    tol : float, default=1e-3
        Stopping tolerance on the maximal KKT violation :math:`m(\alpha) - M(\alpha)`.
    shrinking : bool, default=True
        Use the shrinking heuristics of the solver.
    probability : bool, default=False
        Fit Platt sigmoids by internal 5-fold cross-validation so that ``predict_proba`` works
        (five more fits per binary problem).
    cache_size : float, default=200
        Memory for kernel rows in megabytes; the whole Gram matrix is kept when it fits.
    class_weight : dict, "balanced" or None, default=None
        Multiplies the box constraint of each class (``{label: weight}``); ``"balanced"`` uses
        ``n_samples / (n_classes * count)``; ``None`` gives every class weight one.
    max_iter : int, default=-1
        Iteration limit of each solve; -1 for LIBSVM's ``max(10**7, 100 n)``. Hitting it warns
        with ``ConvergenceWarning``.
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        Shape of ``decision_function`` for more than two classes (see there).
    multiclass : {"ovo", "ovr"}, default="ovo"
        Training strategy for more than two classes: one-versus-one voting (LIBSVM) or one
        classifier per class against the rest (PRML 7.1.3).
    random_state : int, RandomState or None, default=None
        Seeds the cross-validation folds of ``probability=True``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    kernel_ : kernel or "precomputed"
        The kernel used (the default RBF when ``kernel=None``).
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors, grouped by class.
    support_vectors_ : ndarray of shape (n_SV, d)
        Empty with ``kernel="precomputed"``.
    n_support_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray of shape (n_classes - 1, n_SV)
        :math:`a_n t_n` in LIBSVM's layout; ``(n_classes, n_SV)`` with ``multiclass="ovr"``.
    intercept_ : ndarray of shape (n_classifiers,)
        :math:`b` of each binary classifier.
    n_iter_ : ndarray of shape (n_classifiers,)
        SMO iterations of each binary problem.
    dual_objective_ : ndarray of shape (n_classifiers,)
        Minimised dual objective of each binary problem (LIBSVM's ``obj``).
    probA_, probB_ : ndarray of shape (n_classifiers,)
        Platt's :math:`A, B` (only with ``probability=True``).

    Examples
    --------
    Three classes, one-versus-one; ``nu=0.5`` is feasible since every class holds half of
    each pair:

    >>> import numpy as np
    >>> from kmlib.svm import NuSVC
    >>> X = np.array([[0.0], [0.2], [2.0], [2.2], [4.0], [4.2]])
    >>> y = np.array(["a", "a", "b", "b", "c", "c"])
    >>> clf = NuSVC(nu=0.5).fit(X, y)
    >>> clf.predict([[0.1], [2.1], [4.1]])
    array(['a', 'b', 'c'], dtype='<U1')
    >>> clf.decision_function([[0.1]]).shape  # one column per class ("ovr" shape)
    (1, 3)
    """

    def __init__(
        self,
        nu=0.5,
        kernel=None,
        tol=1e-3,
        *,
        shrinking=True,
        probability=False,
        cache_size=200,
        class_weight=None,
        max_iter=-1,
        decision_function_shape="ovr",
        multiclass="ovo",
        random_state=None,
    ):
        self.nu = nu
        self.kernel = kernel
        self.tol = tol
        self.shrinking = shrinking
        self.probability = probability
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.multiclass = multiclass
        self.random_state = random_state

    def _check_params(self):
        check_real(self.nu, "nu", low=0.0, high=1.0)

    def _binary(self, rows, idx, t, weight):
        # feasible start: fill nu * N / 2 of box per class, in order (LIBSVM's choice); with
        # weights N counts weight, so that a weight of 2 is the same as a repeated sample
        C = weight
        alpha0 = np.zeros(t.size)
        need = self.nu * C.sum() / 2.0  # nu N / 2 for unit weights
        for sign in (1.0, -1.0):
            members = np.flatnonzero(t == sign)
            if need > C[members].sum() * (1 + 1e-12):
                raise ValueError(
                    f"nu={self.nu} is infeasible: nu * (N1 + N2) / 2 exceeds the (weighted) size "
                    "of the smaller class in a binary problem; choose a smaller nu"
                )
            filled = np.minimum(
                C[members], np.maximum(need - np.cumsum(C[members]) + C[members], 0)
            )
            alpha0[members] = filled
        res = self._solve(rows, t, 0.0, C, alpha0, sample_index=idx, two_constraints=True)
        b_pos, b_neg = res.b
        r = 0.5 * (b_neg - b_pos)  # the margin rho of the nu-problem (Schoelkopf et al. 2000)
        if not r > 0:
            # sum_m a_m t_m K_nm at each training point (the gradient is Q a, Q_nm = t_n t_m
            # K_nm): all alike when the kernel cannot tell the points apart, which leaves no
            # margin whatever nu is
            kernel_part = res.grad * t
            bound = np.max(np.abs(rows.diag[idx])) * np.sum(res.alpha)
            if np.ptp(kernel_part) <= CONSTANT_GRAM * bound:
                raise ValueError(
                    "NuSVC: the kernel gives the training points of two classes (nearly) the "
                    "same values, so no margin separates them: X holds identical points, or the "
                    "kernel's length-scale is far above their spread; rescale X or the kernel"
                )
            raise ValueError(
                f"nu={self.nu} gives a degenerate problem (margin rho = {r:.3g}); choose another nu"
            )
        b = 0.5 * (b_pos + b_neg) / r
        return res.alpha * t / r, b, res.n_iter, res.objective / r**2


# ====================================================================== regression
class _BaseSVR(RegressorMixin, _BaseSVM):
    def fit(self, X, y, sample_weight=None):
        """Fit the regressor.

        Parameters
        ----------
        X : array_like of shape (n, d), or (n, n) with ``kernel="precomputed"``
        y : array_like of shape (n,)
            Targets.
        sample_weight : array_like of shape (n,) or None, default=None
            Multiplies ``C`` per sample (samples of weight zero are dropped).

        Returns
        -------
        self
        """
        self._check_common()
        self._check_params()
        X, y = self._validate_X(X, y, y_numeric=True)
        y = np.asarray(y, dtype=np.float64)
        sw = self._sample_weight(sample_weight, X.shape[0])
        idx = np.flatnonzero(sw > 0)
        if idx.size == 0:
            raise ValueError("sample_weight is zero for every sample: nothing to fit")
        rows = self._fit_kernel(X)
        n = idx.size
        # 2n variables: a_n (y = +1) then a_hat_n (y = -1), both on sample n (PRML (7.61))
        signs = np.concatenate([np.ones(n), -np.ones(n)])
        C = np.tile(self._C() * sw[idx], 2)
        res, coef_b = self._solve_2n(rows, idx, y[idx], signs, C)
        coef, b = coef_b
        nz = coef != 0
        self._set_support(X, idx[nz])
        self._coef = coef[nz][:, None]
        self._b = np.array([b])
        self.dual_coef_ = self._coef.T.copy()  # a_n - a_hat_n of PRML (7.64)
        self.intercept_ = self._b.copy()
        self.n_support_ = np.array([nz.sum()], dtype=np.int32)
        self.n_iter_ = int(res.n_iter)
        self.dual_objective_ = float(res.objective)
        return self

    def predict(self, X):
        """Predictions :math:`y(\\mathbf x) = \\sum_n (a_n - \\hat a_n) k(\\mathbf x, \\mathbf x_n)
        + b`, PRML (7.64).

        Parameters
        ----------
        X : array_like of shape (n, d), or (n, n_train) with ``kernel="precomputed"``

        Returns
        -------
        ndarray of shape (n,)
        """
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        return self._raw_decision(X)[:, 0]


class SVR(_BaseSVR):
    r"""ε-support vector regression, PRML 7.1.4.

    Minimises the dual of (7.55) in LIBSVM's 2N-variable form: variables :math:`a_n` and
    :math:`\hat a_n` in :math:`[0, C]`, linear term :math:`\epsilon - t_n` and
    :math:`\epsilon + t_n`, constraint :math:`\sum_n (a_n - \hat a_n) = 0` (7.58).

    Parameters
    ----------
    C : float, default=1.0
        :math:`C > 0` of (7.55).
    epsilon : float, default=0.1
        Half-width :math:`\epsilon \ge 0` of the insensitive error (7.51).
    kernel : kmlib kernel, callable, "precomputed" or None, default=None
        ``None`` is an RBF kernel matching scikit-learn's ``gamma="scale"`` (module docstring).
    tol : float, default=1e-3
        Stopping tolerance on the maximal KKT violation.
    shrinking : bool, default=True
        Use the shrinking heuristics of the solver.
    cache_size : float, default=200
        Memory for kernel rows in megabytes; the whole Gram matrix is kept when it fits.
    max_iter : int, default=-1
        Iteration limit; -1 for LIBSVM's ``max(10**7, 200 n)``. Hitting it warns with
        ``ConvergenceWarning``.

    Attributes
    ----------
    kernel_ : kernel or "precomputed"
    support_ : ndarray of shape (n_SV,)
    support_vectors_ : ndarray of shape (n_SV, d)
    n_support_ : ndarray of shape (1,)
    dual_coef_ : ndarray of shape (1, n_SV)
        :math:`a_n - \hat a_n`.
    intercept_ : ndarray of shape (1,)
    n_iter_ : int
    dual_objective_ : float
        Minimised objective of the 2N-variable dual (LIBSVM's ``obj``).

    Examples
    --------
    On the line :math:`t = 2x + 1` over :math:`[0, 1]` the flattest function within the tube
    of half-width 0.05 has slope 1.9 and offset 1.05:

    >>> import numpy as np
    >>> from kmlib.kernels import Linear
    >>> from kmlib.svm import SVR
    >>> X = np.linspace(0.0, 1.0, 20)[:, np.newaxis]
    >>> t = 2.0 * X[:, 0] + 1.0
    >>> reg = SVR(C=10.0, epsilon=0.05, kernel=Linear()).fit(X, t)
    >>> np.round(reg.predict([[0.0], [1.0]]), 2)
    array([1.05, 2.95])
    """

    def __init__(
        self,
        C=1.0,
        epsilon=0.1,
        kernel=None,
        tol=1e-3,
        *,
        shrinking=True,
        cache_size=200,
        max_iter=-1,
    ):
        self.C = C
        self.epsilon = epsilon
        self.kernel = kernel
        self.tol = tol
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.max_iter = max_iter

    def _check_params(self):
        check_real(self.C, "C", low=0.0)
        check_real(self.epsilon, "epsilon", low=0.0, low_open=False)

    def _C(self):
        return self.C

    def _solve_2n(self, rows, idx, t, signs, C):
        p = np.concatenate([self.epsilon - t, self.epsilon + t])
        res = self._solve(rows, signs, p, C, sample_index=np.tile(idx, 2))
        n = idx.size
        return res, (res.alpha[:n] - res.alpha[n:], res.b)


class NuSVR(_BaseSVR):
    r"""ν-support vector regression, PRML 7.1.4 (7.70)-(7.74), Schölkopf et al. (2000).

    ν bounds the fraction of points outside the tube from above and the fraction of support
    vectors from below; the tube width is found by the fit (``epsilon_``). LIBSVM's form is
    solved: 2N variables in :math:`[0, C]`, linear term :math:`\mp t_n`,
    :math:`\sum_n (a_n - \hat a_n) = 0` and :math:`\sum_n (a_n + \hat a_n) = C\nu N`.

    Parameters
    ----------
    nu : float, default=0.5
        :math:`0 < \nu \le 1`.
    C : float, default=1.0
        :math:`C > 0`.
    kernel : kmlib kernel, callable, "precomputed" or None, default=None
        ``None`` is an RBF kernel matching scikit-learn's ``gamma="scale"`` (module docstring).
    tol : float, default=1e-3
        Stopping tolerance on the maximal KKT violation.
    shrinking : bool, default=True
        Use the shrinking heuristics of the solver.
    cache_size : float, default=200
        Memory for kernel rows in megabytes; the whole Gram matrix is kept when it fits.
    max_iter : int, default=-1
        Iteration limit; -1 for LIBSVM's ``max(10**7, 200 n)``. Hitting it warns with
        ``ConvergenceWarning``.

    Attributes
    ----------
    kernel_ : kernel or "precomputed"
    support_ : ndarray of shape (n_SV,)
    support_vectors_ : ndarray of shape (n_SV, d)
    n_support_ : ndarray of shape (1,)
    dual_coef_ : ndarray of shape (1, n_SV)
        :math:`a_n - \hat a_n`.
    intercept_ : ndarray of shape (1,)
    n_iter_ : int
    dual_objective_ : float
        Minimised objective of the 2N-variable dual (LIBSVM's ``obj``).
    epsilon_ : float
        The tube half-width :math:`\epsilon` that the fit found.

    Examples
    --------
    A line with a small wiggle; the fit finds a tube narrower than the wiggle's amplitude 0.1
    and a slope near 2:

    >>> import numpy as np
    >>> from kmlib.kernels import Linear
    >>> from kmlib.svm import NuSVR
    >>> X = np.linspace(0.0, 1.0, 30)[:, np.newaxis]
    >>> t = 2.0 * X[:, 0] + 1.0 + 0.1 * np.sin(37.0 * X[:, 0])
    >>> reg = NuSVR(nu=0.5, C=10.0, kernel=Linear()).fit(X, t)
    >>> bool(0.0 < reg.epsilon_ < 0.1)
    True
    >>> np.round(reg.predict([[0.0], [1.0]]), 1)
    array([1., 3.])
    """

    def __init__(
        self,
        nu=0.5,
        C=1.0,
        kernel=None,
        tol=1e-3,
        *,
        shrinking=True,
        cache_size=200,
        max_iter=-1,
    ):
        self.nu = nu
        self.C = C
        self.kernel = kernel
        self.tol = tol
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.max_iter = max_iter

    def _check_params(self):
        check_real(self.nu, "nu", low=0.0, high=1.0)
        check_real(self.C, "C", low=0.0)

    def _C(self):
        return self.C

    def _solve_2n(self, rows, idx, t, signs, C):
        n = idx.size
        Cn = C[:n]
        need = self.nu * Cn.sum() / 2.0  # C nu N / 2 for unit weights: sum of a_n at the start
        first = np.minimum(Cn, np.maximum(need - np.cumsum(Cn) + Cn, 0.0))
        alpha0 = np.concatenate([first, first])
        p = np.concatenate([-t, t])
        res = self._solve(
            rows, signs, p, C, alpha0, sample_index=np.tile(idx, 2), two_constraints=True
        )
        b_pos, b_neg = res.b
        self.epsilon_ = float(0.5 * (b_pos - b_neg))  # LIBSVM's -r
        return res, (res.alpha[:n] - res.alpha[n:], 0.5 * (b_pos + b_neg))


# ====================================================================== novelty detection
class OneClassSVM(OutlierMixin, _BaseSVM):
    r"""One-class SVM for novelty detection (Schölkopf et al. 2001; MLAPP 14.5).

    Solves :math:`\min\tfrac12 a^TKa` with :math:`0 \le a_n \le 1` and
    :math:`\sum_n a_n = \nu N` (LIBSVM's scaling) and flags a point as an inlier when
    :math:`\sum_n a_n k(\mathbf x, \mathbf x_n) - \rho > 0`.

    Parameters
    ----------
    nu : float, default=0.5
        :math:`0 < \nu \le 1`: an upper bound on the fraction of training outliers and a lower
        bound on the fraction of support vectors.
    kernel : kmlib kernel, callable, "precomputed" or None, default=None
        ``None`` is an RBF kernel matching scikit-learn's ``gamma="scale"`` (module docstring).
    tol : float, default=1e-3
        Stopping tolerance on the maximal KKT violation.
    shrinking : bool, default=True
        Use the shrinking heuristics of the solver.
    cache_size : float, default=200
        Memory for kernel rows in megabytes.
    max_iter : int, default=-1
        Iteration limit; -1 for LIBSVM's default. Hitting it warns with ``ConvergenceWarning``.

    Attributes
    ----------
    kernel_, support_, support_vectors_, n_support_ : as for :class:`SVR`
    dual_coef_ : ndarray of shape (1, n_SV)
        :math:`a_n`.
    intercept_ : ndarray of shape (1,)
        :math:`-\rho`.
    offset_ : float
        :math:`\rho`; ``decision_function = score_samples - offset_``.
    n_iter_ : int
    dual_objective_ : float

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernels import RBF
    >>> from kmlib.svm import OneClassSVM
    >>> X = np.random.default_rng(0).standard_normal((50, 2))
    >>> detector = OneClassSVM(nu=0.1, kernel=RBF(lengthscale=2.0)).fit(X)
    >>> detector.predict([[0.0, 0.0], [4.0, 4.0]])  # the centre is in, a far point is out
    array([ 1, -1])
    """

    def __init__(
        self, nu=0.5, kernel=None, tol=1e-3, *, shrinking=True, cache_size=200, max_iter=-1
    ):
        self.nu = nu
        self.kernel = kernel
        self.tol = tol
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.max_iter = max_iter

    def fit(self, X, y=None, sample_weight=None):
        """Fit the support of the data.

        Parameters
        ----------
        X : array_like of shape (n, d), or (n, n) with ``kernel="precomputed"``
        y : None, default=None
            Ignored; present for the scikit-learn API.
        sample_weight : array_like of shape (n,) or None, default=None
            Multiplies each sample's box (samples of weight zero are dropped).

        Returns
        -------
        self
        """
        self._check_common()
        check_real(self.nu, "nu", low=0.0, high=1.0)
        X = self._validate_X(X)
        sw = self._sample_weight(sample_weight, X.shape[0])
        idx = np.flatnonzero(sw > 0)
        if idx.size == 0:
            raise ValueError("sample_weight is zero for every sample: nothing to fit")
        rows = self._fit_kernel(X)
        C = sw[idx]
        need = self.nu * C.sum()
        alpha0 = np.minimum(C, np.maximum(need - np.cumsum(C) + C, 0.0))
        res = self._solve(rows, np.ones(idx.size), 0.0, C, alpha0, sample_index=idx)
        nz = res.alpha != 0
        self._set_support(X, idx[nz])
        self._coef = res.alpha[nz][:, None]
        self._b = np.array([res.b])
        self.dual_coef_ = self._coef.T.copy()
        self.intercept_ = self._b.copy()
        self.offset_ = float(-res.b)
        self.n_support_ = np.array([nz.sum()], dtype=np.int32)
        self.n_iter_ = int(res.n_iter)
        self.dual_objective_ = float(res.objective)
        return self

    def decision_function(self, X):
        """Signed distance to the boundary, :math:`\\sum_n a_n k(\\mathbf x, \\mathbf x_n) - \\rho`;
        positive for inliers.

        Parameters
        ----------
        X : array_like of shape (n, d), or (n, n_train) with ``kernel="precomputed"``

        Returns
        -------
        ndarray of shape (n,)
        """
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        return self._raw_decision(X)[:, 0]

    def score_samples(self, X):
        """:math:`\\sum_n a_n k(\\mathbf x, \\mathbf x_n)`, ndarray of shape (n,)."""
        return self.decision_function(X) + self.offset_

    def predict(self, X):
        """+1 for inliers (decision value > 0, as LIBSVM), -1 for outliers; shape (n,)."""
        return np.where(self.decision_function(X) > 0, 1, -1)
