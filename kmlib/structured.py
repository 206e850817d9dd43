r"""Kernels on objects that are not vectors: sets, strings, documents, point sets and
distributions (PRML 6.2, MLAPP 14.2.2, 14.2.6–14.2.8), and the Fisher kernel (PRML 6.32–6.36).

They are :class:`kmlib.kernels.Kernel` objects, so ``k(X)``, ``k(X, Y)``, ``k.diag(X)``, sums,
products and ``c * k`` work as for vector kernels; ``X`` is a sequence of objects instead of an
array (a list, a numpy array, a pandas Series or a DataFrame of one column; a DataFrame of
several columns is refused). Their parameters are structural (a string length, a decay, a
model), so ``theta`` is empty.

An estimator that computes on numeric arrays takes such a kernel through its Gram matrix:
``SVC(kernel="precomputed").fit(k(X_train), y)``, then ``predict(k(X_test, X_train))``.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
from scipy import sparse

from ._linalg import cholesky, log_det, solve_lower
from ._validation import (
    as_inputs,
    check_bool,
    check_matching_features,
    check_positive,
    check_positive_int,
    check_symmetric,
)
from .kernels import Kernel

__all__ = [
    "SetIntersection",
    "SubsequenceString",
    "Spectrum",
    "AllSubstrings",
    "TfidfCosine",
    "PyramidMatch",
    "ProbabilityProduct",
    "Fisher",
    "fisher_information",
]


class _Structured(Kernel):
    """Shared plumbing: no hyperparameters, inputs are sequences of objects."""

    def _check_inputs(self, X, name):
        if hasattr(X, "columns"):  # a pandas DataFrame: the objects are its one column
            if X.shape[1] != 1:
                raise ValueError(
                    f"{name} is a DataFrame of {X.shape[1]} columns; {type(self).__name__} takes "
                    f"one column of objects: pass a single column, such as {name}[column]"
                )
            X = X.iloc[:, 0]
        if isinstance(X, (str, bytes)) or not hasattr(X, "__len__"):
            raise ValueError(
                f"{name} must be a sequence of objects (a list), got {type(X).__name__}"
            )
        if len(X) == 0:
            raise ValueError(f"{name} is empty: it needs at least one object")
        return [self._check_item(item, name) for item in X]

    def _check_pair(self, X, Y):
        pass

    def _values(self):
        if hasattr(self, "normalize"):
            check_bool(self.normalize, "normalize")
        return super()._values()

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


def _cholesky_factor(A, refusal):
    """Lower Cholesky factor of the symmetric matrix ``A``, or a ValueError saying ``refusal``."""
    try:
        return cholesky(A)[0]
    except np.linalg.LinAlgError:
        raise ValueError(refusal) from None


class SetIntersection(_Structured):
    r"""Kernel on subsets of a fixed set, PRML (6.27): :math:`k(A_1, A_2) = 2^{|A_1 \cap A_2|}`.

    Its feature map has one entry per subset :math:`U`, equal to 1 when :math:`U \subseteq A`
    (PRML Exercise 6.12).

    Inputs are sequences of sets (any iterables of hashable elements). Two sets that share
    more than 1023 elements have :math:`2^{|A_1 \cap A_2|}` beyond the largest float64, and
    the kernel raises a ``ValueError`` rather than return an infinite value.

    Examples
    --------
    >>> from kmlib.structured import SetIntersection
    >>> print(SetIntersection()([{1, 2}, {2, 3}, {4}]))
    [[4. 2. 1.]
     [2. 4. 1.]
     [1. 1. 2.]]
    """

    _overflow_advice = (
        "2**|A & B| exceeds float64 once two sets of X share more than 1023 elements; "
        "use smaller sets"
    )

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


class _Strings(_Structured):
    """Kernels on strings: every input is a ``str``."""

    def _check_item(self, item, name):
        if not isinstance(item, str):
            raise ValueError(f"every entry of {name} must be a str; got {item!r}")
        return item


class SubsequenceString(_Strings):
    r"""Gap-weighted subsequence kernel on strings (Lodhi et al. 2002), by dynamic programming.

    Every subsequence :math:`u` of length ``order`` that occurs in both strings, contiguous or
    not, adds :math:`\lambda^{l_s + l_t}`, where :math:`l_s` and :math:`l_t` are the spans
    (last index minus first index plus one) of the occurrences in each string:

    .. math:: k_n(s, t) = \sum_{u \in \Sigma^n} \sum_{\mathbf i: s[\mathbf i] = u}
              \sum_{\mathbf j: t[\mathbf j] = u} \lambda^{l(\mathbf i) + l(\mathbf j)}

    The recursion of Lodhi et al. costs :math:`O(n |s| |t|)` instead of the exponential sum.

    Parameters
    ----------
    order : int, default=2
        Subsequence length :math:`n \geq 1`.
    decay : float, default=0.5
        :math:`\lambda \in (0, 1]`; smaller values penalise gaps more.
    normalize : bool, default=True
        Divide by :math:`\sqrt{k(s,s)\,k(t,t)}` so that every string has unit norm (a string
        shorter than ``order`` has no subsequences; its row is then zero).

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.structured import SubsequenceString
    >>> k = SubsequenceString(order=2, decay=0.5)
    >>> print(np.round(k(["kernel", "kernels", "colonel"]), 4))
    [[1.     0.91   0.2993]
     [0.91   1.     0.2723]
     [0.2993 0.2723 1.    ]]
    """

    def __init__(self, order=2, decay=0.5, normalize=True):
        self.order = order
        self.decay = decay
        self.normalize = normalize

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


class _SubstringCounts(_Strings):
    r"""Kernels :math:`\sum_s w_s \phi_s(x) \phi_s(x')` on substring counts, MLAPP (14.22).

    :math:`\phi_s(x)` is the number of times ``s`` occurs in ``x`` as a contiguous substring
    (overlapping occurrences count separately). A subclass says which lengths it counts and
    with what weight (``_weights``: a dict ``{length: w}``); the weight of ``s`` depends on
    its length only.
    """

    @staticmethod
    def _counts(x, lengths):
        """Count dictionary :math:`\\{s: \\phi_s(x)\\}` over the substrings of the given lengths."""
        return Counter(x[i : i + m] for m in lengths for i in range(len(x) - m + 1))

    def _gram(self, X, Y, h):
        weights = self._weights()
        counts_X = [self._counts(x, weights) for x in X]
        counts_Y = counts_X if Y is None else [self._counts(y, weights) for y in Y]
        # one column per substring seen in X or Y; a row of counts is the dictionary of a string
        column = {}
        coordinates = [
            [
                (i, column.setdefault(s, len(column)), n)
                for i, c in enumerate(counts)
                for s, n in c.items()
            ]
            for counts in (counts_X, counts_Y)
        ]
        w = sparse.diags([weights[len(s)] for s in column])

        def count_matrix(entries, n_rows):
            rows, cols, values = zip(*entries) if entries else ((), (), ())
            return sparse.csr_matrix(
                (np.asarray(values, dtype=np.float64), (rows, cols)), shape=(n_rows, len(column))
            )

        C_X = count_matrix(coordinates[0], len(X))
        C_Y = count_matrix(coordinates[1], len(counts_Y))
        # MLAPP (14.22): sum over the substrings both strings contain; a row product costs
        # O(|x| + |x'|) per length, the sizes of the two count dictionaries
        K = (C_X @ w @ C_Y.T).toarray()
        if Y is None:  # the sparse product sums in different orders above and below the diagonal
            K = np.triu(K) + np.triu(K, 1).T
        if not self.normalize:
            return K
        norms = np.sqrt(np.outer(self._self_values(counts_X), self._self_values(counts_Y)))
        return np.divide(K, norms, out=np.zeros_like(K), where=norms > 0)

    def _self_values(self, counts):
        weights = self._weights()
        return np.array(
            [sum(weights[len(s)] * n * n for s, n in c.items()) for c in counts], dtype=np.float64
        )

    def _diag(self, X, h):
        values = self._self_values([self._counts(x, self._weights()) for x in X])
        return (values > 0).astype(np.float64) if self.normalize else values


class Spectrum(_SubstringCounts):
    r"""k-spectrum string kernel (Leslie et al. 2002), MLAPP §14.2.6.

    The feature vector of a string counts each of its substrings of length exactly ``length``
    (its k-mers), so the kernel is (14.22) with :math:`w_s = 1` for :math:`|s| = k` and 0
    otherwise:

    .. math:: k(x, x') = \sum_{s \in \mathcal A^k} \phi_s(x)\, \phi_s(x').

    ``length=1`` is the bag-of-characters kernel (the dot product of character histograms).
    Each string becomes a k-mer count dictionary once; a pair then costs
    :math:`O(|x| + |x'|)` dictionary operations.

    Parameters
    ----------
    length : int, default=3
        Substring length :math:`k \geq 1`.
    normalize : bool, default=False
        Divide by :math:`\sqrt{k(x, x)\,k(x', x')}` (the cosine of the count vectors); a string
        shorter than ``length`` has no k-mers and gets a zero row.

    Examples
    --------
    "abab" holds "ab" twice and "ba" once, "bab" each once:

    >>> import numpy as np
    >>> from kmlib.structured import Spectrum
    >>> print(Spectrum(length=2)(["abab", "bab"]))
    [[5. 3.]
     [3. 2.]]
    >>> print(np.round(Spectrum(length=2, normalize=True)(["abab", "bab"]), 4))
    [[1.     0.9487]
     [0.9487 1.    ]]
    """

    def __init__(self, length=3, normalize=False):
        self.length = length
        self.normalize = normalize

    def _values(self):
        check_positive_int(self.length, "length")
        return super()._values()

    def _weights(self):
        return {int(self.length): 1.0}


class AllSubstrings(_SubstringCounts):
    r"""Weighted all-substrings kernel, MLAPP (14.22) with :math:`w_s = \lambda^{|s|}`.

    .. math:: k(x, x') = \sum_{s:\, 1 \leq |s| \leq p} \lambda^{|s|} \phi_s(x)\, \phi_s(x')
              = \sum_{m=1}^{p} \lambda^m k_m(x, x'),

    a positively weighted sum of the m-spectrum kernels :math:`k_m` (:class:`Spectrum`). With
    ``max_length=1`` it is :math:`\lambda` times the bag-of-characters kernel. Each string
    becomes one count dictionary of its substrings up to length :math:`p`; a pair then costs
    :math:`O(p(|x| + |x'|))` dictionary operations.

    Parameters
    ----------
    max_length : int, default=3
        Longest substring counted, :math:`p \geq 1`.
    decay : float, default=0.5
        :math:`\lambda > 0`; below 1 it down-weights long substrings, above 1 it favours them
        (any positive value gives a valid kernel, since the sum is finite).
    normalize : bool, default=False
        Divide by :math:`\sqrt{k(x, x)\,k(x', x')}`; the empty string gets a zero row.

    Examples
    --------
    "ab" and "abb" share "a", "b" (once in "ab", twice in "abb") and "ab":
    :math:`0.5\cdot1 + 0.5\cdot2 + 0.25\cdot1 = 1.75`.

    >>> from kmlib.structured import AllSubstrings
    >>> print(AllSubstrings(max_length=2, decay=0.5)(["ab", "abb"]))
    [[1.25 1.75]
     [1.75 3.  ]]
    """

    def __init__(self, max_length=3, decay=0.5, normalize=False):
        self.max_length = max_length
        self.decay = decay
        self.normalize = normalize

    def _values(self):
        check_positive_int(self.max_length, "max_length")
        check_positive(self.decay, "decay")
        return super()._values()

    def _weights(self):
        lam = float(self.decay)
        return {m: lam**m for m in range(1, int(self.max_length) + 1)}  # w_s = lambda^|s|


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

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.structured import TfidfCosine
    >>> k = TfidfCosine(["the cat sat", "the dog sat", "a cat ran", "a bird flew"])
    >>> print(np.round(k(["the cat sat", "a cat ran", "the dog"]), 4))
    [[1.     0.2067 0.2213]
     [0.2067 1.     0.    ]
     [0.2213 0.     1.    ]]
    >>> k.features(["the cat"]).shape  # one column per word of the corpus
    (1, 8)
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


class PyramidMatch(_Structured):
    r"""Pyramid match kernel on sets of points (Grauman & Darrell 2005), MLAPP §14.2.7.

    Each input is a set of points with non-negative coordinates, an array of shape ``(m, d)``;
    ``m`` may differ from set to set, ``d`` may not. Level :math:`i = 0, 1, \dots` of the
    pyramid is a grid of cubes of side :math:`b 2^i` (:math:`b` is ``bin_size``): the point
    :math:`\mathbf x` falls into the bin :math:`\lfloor (\mathbf x + \mathbf t) / (b 2^i)
    \rfloor` (:math:`\mathbf t` is ``shift``), so each bin at level :math:`i` is the union of
    :math:`2^d` bins at level :math:`i - 1`. With :math:`H_i(X)` the histogram of :math:`X` at
    level :math:`i` and :math:`\mathcal I(A, B) = \sum_j \min(A_j, B_j)` the histogram
    intersection, the pairs first matched at level :math:`i` number

    .. math:: N_i = \mathcal I(H_i(X), H_i(Y)) - \mathcal I(H_{i-1}(X), H_{i-1}(Y)),
              \qquad \mathcal I(H_{-1}(X), H_{-1}(Y)) = 0,

    and each is given the weight :math:`w_i = 1 / (d\, 2^i)`, the inverse of the L1 diameter of
    a level-:math:`i` bin in units of :math:`b`:

    .. math:: K_\Delta(X, Y) = \sum_{i \geq 0} w_i N_i .

    The sum ends where all points of both sets share one bin (from then on
    :math:`N_i = 0`): after :math:`\lceil \log_2 D \rceil + 1` levels for coordinates in
    :math:`[0, D)`. Since :math:`K_\Delta = \sum_i (w_i - w_{i+1})\,\mathcal I(H_i(X), H_i(Y))`
    with :math:`w_i` decreasing, it is a positive combination of histogram-intersection
    kernels, hence valid.

    Parameters
    ----------
    bin_size : float, default=1.0
        Side :math:`b > 0` of the finest bins. With integer coordinates and ``bin_size=1``
        only identical points share a level-0 bin.
    shift : float or array_like of shape (d,), default=None
        Non-negative offset :math:`\mathbf t` added to every point before binning; a random
        shift averages out the artefacts of the grid. ``None`` means no shift.
    normalize : bool, default=True
        Divide by :math:`\sqrt{K_\Delta(X, X) K_\Delta(Y, Y)}`, where
        :math:`K_\Delta(X, X) = |X| / d`.

    Examples
    --------
    Two point sets in the plane; the two points of ``B`` are first matched at level 1:

    >>> import numpy as np
    >>> from kmlib.structured import PyramidMatch
    >>> A = np.array([[0.0, 0.0], [1.0, 1.0], [3.0, 2.0]])
    >>> B = np.array([[0.0, 1.0], [3.0, 3.0]])
    >>> k = PyramidMatch(bin_size=1.0, normalize=False)
    >>> print(k([A, B]))
    [[1.5 0.5]
     [0.5 1. ]]
    >>> k.new_matches(A, B)
    array([0., 2., 0.])
    >>> print(k.matching_cost([A], [B]))
    [[8.]]
    """

    def __init__(self, bin_size=1.0, shift=None, normalize=True):
        self.bin_size = bin_size
        self.shift = shift
        self.normalize = normalize

    def _values(self):
        check_positive(self.bin_size, "bin_size")
        if self.shift is not None:
            check_positive(self.shift, "shift", allow_zero=True)
        return super()._values()

    def _check_item(self, item, name):
        return as_inputs(item, f"a point set in {name}")

    def _check_inputs(self, X, name):
        sets = super()._check_inputs(X, name)
        dims = sorted({P.shape[1] for P in sets})
        if len(dims) > 1:
            raise ValueError(f"the point sets in {name} must all have one dimension d; got {dims}")
        return sets

    def _check_pair(self, X, Y):
        if X[0].shape[1] != Y[0].shape[1]:
            raise ValueError(
                "the point sets compared must have one dimension d; "
                f"got d={X[0].shape[1]} and d={Y[0].shape[1]}"
            )

    def _finest_bins(self, sets):
        """Level-0 bin indices of every point: one int64 array of shape (m, d) per set."""
        d = sets[0].shape[1]
        shift = np.zeros(d) if self.shift is None else np.asarray(self.shift, dtype=np.float64)
        if shift.ndim > 1 or shift.size not in (1, d):
            raise ValueError(f"shift must be a number or have shape ({d},); got {np.shape(shift)}")
        bins = []
        for P in sets:
            Z = (P + shift) / float(self.bin_size)
            if np.any(Z < 0):
                raise ValueError(
                    "the pyramid match needs points with non-negative coordinates "
                    "(after adding shift); translate the point sets first"
                )
            if np.any(Z >= 2.0**52):
                raise ValueError(
                    "the points' coordinates / bin_size must stay below 2**52, the integers "
                    "that float64 holds exactly: scale X (and Y) down, or raise bin_size"
                )
            bins.append(np.floor(Z).astype(np.int64))
        return bins

    def _new_matches(self, X, Y):
        """:math:`N_i` for every pair of sets, shape (len(X), len(Y), n_levels), and ``d``."""
        bins_X = self._finest_bins(X)
        bins_Y = bins_X if Y is None else self._finest_bins(Y)
        # at level n_levels - 1 every index (B >> i) is 0: all points share one bin
        top = max(int(B.max()) for B in bins_X + bins_Y)
        n_levels = top.bit_length() + 1
        pyramid_X = [_pyramid(B, n_levels) for B in bins_X]
        pyramid_Y = pyramid_X if Y is None else [_pyramid(B, n_levels) for B in bins_Y]
        N = np.empty((len(pyramid_X), len(pyramid_Y), n_levels))
        for a, hist_a in enumerate(pyramid_X):
            for b in range(a + 1) if Y is None else range(len(pyramid_Y)):
                overlap = [_intersection(p, q) for p, q in zip(hist_a, pyramid_Y[b])]
                N[a, b] = np.diff(overlap, prepend=0.0)  # new matches N_i
                if Y is None:
                    N[b, a] = N[a, b]
        return N, bins_X[0].shape[1]

    def _gram(self, X, Y, h):
        N, d = self._new_matches(X, Y)
        K = N @ (1.0 / (d * 2.0 ** np.arange(N.shape[2])))  # K_Delta = sum_i N_i / (d 2^i)
        if not self.normalize:
            return K
        sizes_Y = [len(P) for P in (X if Y is None else Y)]
        return K / np.sqrt(np.outer([len(P) for P in X], sizes_Y) / d**2)

    def _diag(self, X, h):
        self._finest_bins(X)  # the same checks as for the full matrix
        if self.normalize:
            return np.ones(len(X))
        return np.array([len(P) / P.shape[1] for P in X], dtype=np.float64)  # N_0 = |X|

    def new_matches(self, A, B):
        r"""The counts :math:`N_0, N_1, \dots, N_L` of pairs first matched at each level.

        :math:`L` is the first level at which all points of ``A`` and ``B`` share one bin, so
        the counts sum to :math:`\min(|A|, |B|)`.

        Parameters
        ----------
        A : array_like of shape (m, d)
        B : array_like of shape (m', d)

        Returns
        -------
        N : ndarray of shape (L + 1,)
        """
        self._values()
        A, B = self._check_inputs([A], "A"), self._check_inputs([B], "B")
        self._check_pair(A, B)
        N, _ = self._new_matches(A, B)
        return N[0, 0]

    def matching_cost(self, X, Y=None):
        r"""Pyramid estimate of the optimal L1 matching cost between point sets.

        Each pair first matched at level :math:`i` is charged the L1 diameter
        :math:`d\, b\, 2^i` of its bin, :math:`C = \sum_i d\, b\, 2^i N_i`. The pairs the
        pyramid counts form a matching of :math:`\min(|X|, |Y|)` points, and no pair in it is
        farther apart than it is charged, so :math:`C` is never below the optimal matching cost
        :math:`\min_\pi \sum_{\mathbf x} \|\mathbf x - \pi(\mathbf x)\|_1`.

        Parameters
        ----------
        X : sequence of array_like of shape (m_n, d)
            Point sets.
        Y : sequence of array_like of shape (m'_k, d), default=None
            Second sequence of point sets; ``None`` compares ``X`` with itself.

        Returns
        -------
        C : ndarray of shape (len(X), len(Y))
        """
        self._values()
        X = self._check_inputs(X, "X")
        if Y is not None:
            Y = self._check_inputs(Y, "Y")
            self._check_pair(X, Y)
        N, d = self._new_matches(X, Y)
        return N @ (d * float(self.bin_size) * 2.0 ** np.arange(N.shape[2]))


def _pyramid(bins, n_levels):
    """Histograms of one set at levels 0 .. n_levels - 1, as ``{bin: count}`` dictionaries."""
    levels = []
    for i in range(n_levels):
        cells, counts = np.unique(bins >> i, axis=0, return_counts=True)  # floor(index / 2^i)
        levels.append({cell.tobytes(): int(n) for cell, n in zip(cells, counts)})
    return levels


def _intersection(p, q):
    """Histogram intersection :math:`\\sum_j \\min(p_j, q_j)` of two count dictionaries."""
    if len(q) < len(p):
        p, q = q, p
    return sum(min(n, q.get(cell, 0)) for cell, n in p.items())


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
    symmetric positive definite matrix of shape ``(D, D)`` (checked).

    Parameters
    ----------
    rho : float, default=1.0
        Exponent :math:`\rho > 0`.

    Examples
    --------
    The Bhattacharyya kernel between two isotropic Gaussians and a diagonal one:

    >>> import numpy as np
    >>> from kmlib.structured import ProbabilityProduct
    >>> gaussians = [(np.zeros(2), 1.0), (np.array([1.0, 0.0]), 1.0), (np.zeros(2), [1.0, 4.0])]
    >>> print(np.round(ProbabilityProduct(rho=0.5)(gaussians), 4))
    [[1.     0.8825 0.8944]
     [0.8825 1.     0.7893]
     [0.8944 0.7893 1.    ]]
    """

    _overflow_advice = (
        "the Gaussians in X are too narrow (or too wide) for their densities in float64: "
        "rescale the means and covariances"
    )

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
        if cov.shape != (D, D):
            raise ValueError(f"a covariance in {name} must have shape ({D}, {D}); got {cov.shape}")
        check_symmetric(cov, f"a covariance in {name}")
        L = _cholesky_factor(cov, f"a covariance in {name} must be positive definite")
        return mean, cov, log_det(L)

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
    information : array_like of shape (P, P), default=None
        Fisher information :math:`\mathbf F` (6.34), or an estimate such as
        :func:`fisher_information` (6.35). ``None`` uses the identity, which gives the
        non-invariant kernel (6.36).

    Examples
    --------
    The score of a unit-variance Gaussian in its mean :math:`\mu = 1.5` is
    :math:`x - \mu`:

    >>> import numpy as np
    >>> from kmlib.structured import Fisher, fisher_information
    >>> def score(X):
    ...     return np.asarray(X, dtype=float).reshape(-1, 1) - 1.5
    >>> X = [0.0, 1.0, 2.0, 3.0]
    >>> k = Fisher(score, information=fisher_information(score, X))
    >>> print(np.round(k(X), 4))
    [[ 1.8  0.6 -0.6 -1.8]
     [ 0.6  0.2 -0.2 -0.6]
     [-0.6 -0.2  0.2  0.6]
     [-1.8 -0.6  0.6  1.8]]
    """

    def __init__(self, score, information=None):
        self.score = score
        self.information = information

    def _check_inputs(self, X, name):
        if not callable(self.score):
            raise ValueError(f"score must be a function of the inputs; got {self.score!r}")
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
        check_symmetric(F, "information")
        L = _cholesky_factor(
            F, "information must be positive definite (a Fisher information matrix, PRML 6.34)"
        )
        return solve_lower(L, G.T).T

    def _check_pair(self, X, Y):
        check_matching_features(X, Y, "score(X)", "score(Y)")

    def _gram(self, X, Y, h):
        Wx = self._whiten(X)
        return Wx @ (Wx if Y is None else self._whiten(Y)).T

    def _diag(self, X, h):
        W = self._whiten(X)
        return np.einsum("np,np->n", W, W)


def fisher_information(score, X):
    r"""Sample estimate of the Fisher information, PRML (6.35).

    .. math:: \mathbf F \simeq \frac1n \sum_{i=1}^n \mathbf g(\mathbf x_i) \mathbf g(\mathbf x_i)^T

    Parameters
    ----------
    score : callable
        Maps ``n`` inputs to their Fisher scores, shape ``(n, P)``.
    X : sequence
        Samples from the model.

    Returns
    -------
    F : ndarray of shape (P, P)

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.structured import fisher_information
    >>> def score(X):  # of a unit-variance Gaussian, in its mean 1.5
    ...     return np.asarray(X, dtype=float).reshape(-1, 1) - 1.5
    >>> fisher_information(score, [0.0, 1.0, 2.0, 3.0])
    array([[1.25]])
    """
    G = as_inputs(score(X), "score(X)")
    return G.T @ G / G.shape[0]
