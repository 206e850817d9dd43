r"""Kernels on objects that are not vectors: sets, strings, documents and distributions
(PRML 6.2, MLAPP 14.2.2, 14.2.6 and 14.2.8), and the Fisher kernel (PRML 6.32–6.36).

They are :class:`kmlib.kernels.Kernel` objects, so ``k(X)``, ``k(X, Y)``, ``k.diag(X)``, sums,
products and ``c * k`` work as for vector kernels; ``X`` is a sequence of objects instead of an
array. Their parameters are structural (a string length, a decay, a model), so ``theta`` is empty.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from ._linalg import cholesky, log_det, solve_lower
from ._validation import as_inputs, check_positive
from .kernels import Kernel

__all__ = [
    "SetIntersection",
    "SubsequenceString",
    "TfidfCosine",
    "ProbabilityProduct",
    "Fisher",
    "fisher_information",
]


class _Structured(Kernel):
    """Shared plumbing: no hyperparameters, inputs are sequences of objects."""

    def _check_inputs(self, X, name):
        if isinstance(X, (str, bytes)) or not hasattr(X, "__len__"):
            raise ValueError(
                f"{name} must be a sequence of objects (a list), got {type(X).__name__}"
            )
        if len(X) == 0:
            raise ValueError(f"{name} is empty: it needs at least one object")
        return [self._check_item(item, name) for item in X]

    def _check_pair(self, X, Y):
        pass

    def _gram(self, X, Y, h):
        if Y is None:
            K = np.empty((len(X), len(X)))
            for i, a in enumerate(X):
                for j in range(i + 1):
                    K[i, j] = K[j, i] = self._pair(a, X[j])
            return K
        return np.array([[self._pair(a, b) for b in Y] for a in X], dtype=np.float64)

    def _gram_and_gradient(self, X, h):
        return self._gram(X, None, h), {}

    def _diag(self, X, h):
        return np.array([self._pair(a, a) for a in X], dtype=np.float64)


class SetIntersection(_Structured):
    r"""Kernel on subsets of a fixed set, PRML (6.27): :math:`k(A_1, A_2) = 2^{|A_1 \cap A_2|}`.

    Its feature map has one entry per subset :math:`U`, equal to 1 when :math:`U \subseteq A`
    (PRML Exercise 6.12).

    Inputs are sequences of sets (any iterables of hashable elements).
    """

    def __init__(self):
        pass

    def _check_item(self, item, name):
        try:
            return frozenset(item)
        except TypeError:
            raise ValueError(
                f"every entry of {name} must be an iterable of hashable elements; got {item!r}"
            ) from None

    def _gram(self, X, Y, h):
        # |A ∩ B| for all pairs as a product of 0/1 membership matrices
        Y = X if Y is None else Y
        elements = sorted(set().union(*X, *Y), key=repr)
        column = {e: j for j, e in enumerate(elements)}

        def membership(sets):
            M = np.zeros((len(sets), len(elements)))
            for i, s in enumerate(sets):
                M[i, [column[e] for e in s]] = 1.0
            return M

        return 2.0 ** (membership(X) @ membership(Y).T)  # PRML (6.27)

    def _diag(self, X, h):
        return 2.0 ** np.array([len(a) for a in X], dtype=np.float64)


class SubsequenceString(_Structured):
    r"""Gap-weighted subsequence kernel on strings (Lodhi et al. 2002), by dynamic programming.

    Every subsequence :math:`u` of length ``order`` that occurs in both strings, contiguous or
    not, adds :math:`\lambda^{l_s + l_t}`, where :math:`l_s` and :math:`l_t` are the spans
    (last index minus first index plus one) of the occurrences in each string:

    .. math:: k_n(s, t) = \sum_{u \in \Sigma^n} \sum_{\mathbf i: s[\mathbf i] = u}
              \sum_{\mathbf j: t[\mathbf j] = u} \lambda^{l(\mathbf i) + l(\mathbf j)}

    The recursion of Lodhi et al. costs :math:`O(n |s| |t|)` instead of the exponential sum.

    Parameters
    ----------
    order : int
        Subsequence length :math:`n \geq 1`.
    decay : float
        :math:`\lambda \in (0, 1]`; smaller values penalise gaps more.
    normalize : bool
        Divide by :math:`\sqrt{k(s,s)\,k(t,t)}` so that every string has unit norm (a string
        shorter than ``order`` has no subsequences; its row is then zero).
    """

    def __init__(self, order=2, decay=0.5, normalize=True):
        self.order = order
        self.decay = decay
        self.normalize = normalize

    def _check_item(self, item, name):
        if not isinstance(item, str):
            raise ValueError(f"every entry of {name} must be a str; got {item!r}")
        return item

    def _values(self):
        if not (isinstance(self.order, (int, np.integer)) and self.order >= 1):
            raise ValueError(f"order must be a positive integer; got {self.order!r}")
        decay = float(check_positive(self.decay, "decay"))
        if decay > 1:
            raise ValueError(f"decay must lie in (0, 1]; got {self.decay!r}")
        return super()._values()

    def _raw(self, s, t):
        lam, n = float(self.decay), self.order
        match = np.array([[a == b for b in t] for a in s], dtype=np.float64).reshape(len(s), len(t))
        # Kp[a, b] = K'_{i-1}(s[:a], t[:b]); K'_0 = 1 for all prefixes
        Kp = np.ones((len(s) + 1, len(t) + 1))
        for i in range(1, n + 1):
            # M[a, b] = lambda^2 [s_a == t_b] K'_{i-1}(s[:a-1], t[:b-1])
            M = np.zeros_like(Kp)
            M[1:, 1:] = lam**2 * match * Kp[:-1, :-1]
            if i == n:
                return M.sum()  # K_n(s, t) = sum over matched last characters
            # K''_i(s[:a], t[:b]) = lambda K''_i(s[:a], t[:b-1]) + M[a, b]   (along t)
            Kpp = _discounted_cumsum(M, lam, axis=1)
            # K'_i(s[:a], t[:b]) = lambda K'_i(s[:a-1], t[:b]) + K''_i(s[:a], t[:b])   (along s)
            Kp = _discounted_cumsum(Kpp, lam, axis=0)
        raise AssertionError("unreachable")

    def _pair(self, s, t):
        value = self._raw(s, t)
        if not self.normalize:
            return value
        norm = np.sqrt(self._raw(s, s) * self._raw(t, t))
        return value / norm if norm > 0 else 0.0


def _discounted_cumsum(M, lam, axis):
    """``y[i] = M[i] + lam * y[i - 1]`` along ``axis``: the recursions of Lodhi et al."""
    y = np.moveaxis(np.array(M, dtype=np.float64), axis, 0)
    for i in range(1, y.shape[0]):
        y[i] += lam * y[i - 1]
    return np.moveaxis(y, 0, axis)


def _tokens(document):
    if isinstance(document, str):
        return re.findall(r"[a-z0-9']+", document.lower())
    return [str(token) for token in document]


class TfidfCosine(_Structured):
    r"""Cosine similarity of TF-IDF vectors, MLAPP (14.5)–(14.8).

    For word counts :math:`x_{ij}` the features are :math:`\log(1 + x_{ij})\,
    \mathrm{idf}_j` with :math:`\mathrm{idf}_j = \log\big(N / (1 + N_j)\big)`, where
    :math:`N` documents of the reference ``corpus`` contain :math:`N_j` documents with word
    :math:`j`; the kernel is the inner product of the unit-normalised feature vectors. Words that
    are not in the corpus are ignored, and a document with no known word gets a zero row.

    Inputs are documents: strings (lower-cased and split into words) or sequences of tokens.

    Parameters
    ----------
    corpus : sequence of documents
        Reference documents that fix the vocabulary and the idf weights.
    """

    def __init__(self, corpus):
        self.corpus = corpus

    def _check_item(self, item, name):
        if not isinstance(item, str) and not hasattr(item, "__iter__"):
            raise ValueError(f"every entry of {name} must be a string or a sequence of tokens")
        return _tokens(item)

    def _vocabulary(self):
        docs = self._check_inputs(self.corpus, "corpus")
        document_frequency = Counter(word for doc in docs for word in set(doc))
        words = sorted(document_frequency)
        idf = np.log(len(docs) / (1.0 + np.array([document_frequency[w] for w in words])))
        return {w: j for j, w in enumerate(words)}, idf  # MLAPP (14.6)

    def features(self, X):
        """Unit-normalised TF-IDF vectors of the documents ``X``, shape (n, vocabulary size)."""
        return self._features(self._check_inputs(X, "X"))

    def _features(self, docs):
        column, idf = self._vocabulary()
        counts = np.zeros((len(docs), len(column)))
        for i, doc in enumerate(docs):
            for word, count in Counter(w for w in doc if w in column).items():
                counts[i, column[word]] = count
        phi = np.log1p(counts) * idf  # MLAPP (14.5), (14.7)
        norms = np.linalg.norm(phi, axis=1, keepdims=True)
        return np.divide(phi, norms, out=np.zeros_like(phi), where=norms > 0)

    def _gram(self, X, Y, h):
        Phi_X = self._features(X)
        return Phi_X @ (Phi_X if Y is None else self._features(Y)).T  # MLAPP (14.8)

    def _diag(self, X, h):
        return np.einsum("nv,nv->n", *(2 * [self._features(X)]))


class ProbabilityProduct(_Structured):
    r"""Probability product kernel between Gaussians, MLAPP (14.23) (Jebara et al. 2004).

    .. math:: k(p_1, p_2) = \int p_1(\mathbf x)^\rho\, p_2(\mathbf x)^\rho\, d\mathbf x

    For :math:`p_i = \mathcal N(\boldsymbol\mu_i, \boldsymbol\Sigma_i)` in :math:`D`
    dimensions, completing the square gives

    .. math:: k = (2\pi)^{D(1-2\rho)/2} \rho^{-D/2}
              |\boldsymbol\Sigma_1|^{(1-\rho)/2} |\boldsymbol\Sigma_2|^{(1-\rho)/2}
              |\boldsymbol\Sigma_1 + \boldsymbol\Sigma_2|^{-1/2}
              \exp\!\big(-\tfrac{\rho}{2} \boldsymbol\delta^T
              (\boldsymbol\Sigma_1 + \boldsymbol\Sigma_2)^{-1} \boldsymbol\delta\big),
              \quad \boldsymbol\delta = \boldsymbol\mu_1 - \boldsymbol\mu_2 .

    With :math:`\rho = 1` this is :math:`\mathcal N(\boldsymbol\mu_1 \mid \boldsymbol\mu_2,
    \boldsymbol\Sigma_1 + \boldsymbol\Sigma_2)` (the expected likelihood kernel); with
    :math:`\rho = 1/2` it is the Bhattacharyya kernel, equal to 1 on the diagonal.

    Inputs are sequences of ``(mean, covariance)`` pairs: ``mean`` of shape ``(D,)`` and
    ``covariance`` a positive scalar (isotropic), a vector of shape ``(D,)`` (diagonal) or a
    matrix of shape ``(D, D)``.

    Parameters
    ----------
    rho : float
        Exponent :math:`\rho > 0`.
    """

    def __init__(self, rho=1.0):
        self.rho = rho

    def _values(self):
        check_positive(self.rho, "rho")
        return super()._values()

    def _check_item(self, item, name):
        try:
            mean, cov = item
        except (TypeError, ValueError):
            raise ValueError(f"every entry of {name} must be a (mean, covariance) pair") from None
        mean = as_inputs(mean, f"a mean in {name}").ravel()
        D = mean.size
        cov = np.asarray(cov, dtype=np.float64)
        if cov.ndim == 0:
            cov = float(check_positive(cov, f"a covariance in {name}")) * np.eye(D)
        elif cov.ndim == 1:
            cov = np.diag(check_positive(cov, f"a covariance in {name}"))
        if cov.shape != (D, D) or not np.all(np.isfinite(cov)):
            raise ValueError(f"a covariance in {name} must be finite with shape ({D}, {D})")
        return mean, cov, log_det(cholesky(cov)[0])

    def _pair(self, a, b):
        (m1, S1, logdet1), (m2, S2, logdet2) = a, b
        if m1.size != m2.size:
            raise ValueError("the Gaussians must have the same dimension")
        rho, D = float(self.rho), m1.size
        L, _ = cholesky(S1 + S2)
        z = solve_lower(L, m1 - m2)  # L^{-1} delta, so z^T z = delta^T (S1 + S2)^{-1} delta
        log_k = (
            0.5 * D * (1.0 - 2.0 * rho) * np.log(2.0 * np.pi)
            - 0.5 * D * np.log(rho)
            + 0.5 * (1.0 - rho) * (logdet1 + logdet2)
            - 0.5 * log_det(L)
            - 0.5 * rho * (z @ z)
        )
        return np.exp(log_k)


class Fisher(_Structured):
    r"""Fisher kernel, PRML (6.33): :math:`k(\mathbf x, \mathbf x') = \mathbf g(\mathbf x)^T
    \mathbf F^{-1} \mathbf g(\mathbf x')` with the Fisher score
    :math:`\mathbf g(\mathbf x) = \nabla_{\boldsymbol\theta} \ln p(\mathbf x \mid
    \boldsymbol\theta)` (6.32).

    Parameters
    ----------
    score : callable
        Maps a sequence of ``n`` inputs to the scores, an array of shape ``(n, P)``.
    information : array_like of shape (P, P), optional
        Fisher information :math:`\mathbf F` (6.34), or an estimate such as
        :func:`fisher_information` (6.35). ``None`` uses the identity, which gives the
        non-invariant kernel (6.36).
    """

    def __init__(self, score, information=None):
        self.score = score
        self.information = information

    def _check_inputs(self, X, name):
        G = as_inputs(self.score(X), f"score({name})")
        if G.shape[0] != len(X):
            raise ValueError(f"score({name}) must have one row per input; got shape {G.shape}")
        return G

    def _whiten(self, G):
        """Rows of ``L^{-1} G^T`` transposed, with ``F = L L^T``: inner products give (6.33)."""
        if self.information is None:
            return G
        F = np.asarray(self.information, dtype=np.float64)
        if F.shape != (G.shape[1], G.shape[1]):
            raise ValueError(f"information must have shape ({G.shape[1]}, {G.shape[1]})")
        L, _ = cholesky(F)
        return solve_lower(L, G.T).T

    def _gram(self, X, Y, h):
        Wx = self._whiten(X)
        return Wx @ (Wx if Y is None else self._whiten(Y)).T

    def _diag(self, X, h):
        W = self._whiten(X)
        return np.einsum("np,np->n", W, W)


def fisher_information(score, X):
    r"""Sample estimate of the Fisher information, PRML (6.35).

    .. math:: \mathbf F \simeq \frac1N \sum_n \mathbf g(\mathbf x_n) \mathbf g(\mathbf x_n)^T

    Parameters
    ----------
    score : callable
        Maps ``N`` inputs to their Fisher scores, shape ``(N, P)``.
    X : sequence
        Samples from the model.

    Returns
    -------
    F : ndarray of shape (P, P)
    """
    G = as_inputs(score(X), "score(X)")
    return G.T @ G / G.shape[0]
