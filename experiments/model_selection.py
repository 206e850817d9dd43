"""The thesis's model selection (Chu 2003, 4.5 and 5.5): grids for the SVMs, starts for BSVR.

The coarse grid is 7 x 7, linearly spaced in (log10 C, log10 kappa) over a box; the fine grid
is spaced by 0.1 around the best coarse point (9 x 9 in the thesis). kappa is the kernel's
inverse squared length-scale, exp(-kappa/2 |x - x'|^2), so the kmlib RBF gets lengthscale
kappa^-1/2. SVR is chosen by 5-fold cross-validated squared error (4.5); SVC by the number of
cross-validation errors, leave-one-out below 100 points and 10-fold above, ties going to fewer
support vectors (5.5, footnote 11).

Either solver fits the classical SVMs: kmlib's SMO, or LIBSVM through scikit-learn. Both solve
the same dual to the same stopping tolerance (1e-3), so they choose the same grid point up to
ties. The stored full-protocol runs used LIBSVM, chosen when kmlib's SMO was still slower at large
C; since its loop is compiled (``kmlib._smo_loop``) it is not, and either choice gives the same
grid points, so the entries keep LIBSVM to stay comparable with the stored files.

BSVR's hyperparameters come from the evidence, which has several maxima: ``fit_bsvr`` starts
from the thesis's default and the two other points it recommends and keeps the best evidence.

Every protocol stores the fitted hyperparameters of its Bayesian models (``fitted``), and can fit
them again at those values without optimising (``at_stored``): an evaluation that is the same on
any processor, where the optimiser's path is not (the evidence of BSVR in particular has jumps,
where a training point enters or leaves the quadratic zone of the SILF, and L-BFGS-B stops at
points that depend on the last bits of the arithmetic).
"""

import copy
import warnings

import numpy as np
from sklearn import svm as libsvm
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import KFold, LeaveOneOut, StratifiedKFold, cross_val_score

from kmlib.bsvr import BIAS_VARIANCE_BOUNDS, LENGTHSCALE_BOUNDS, BayesianSVR
from kmlib.kernels import RBF, Constant
from kmlib.svm import SVC, SVR

SOLVERS = ("kmlib", "libsvm")


def rbf_of_kappa(kappa):
    """The Gaussian kernel exp(-kappa/2 |x - x'|^2) as a kmlib RBF."""
    return RBF(lengthscale=float(kappa) ** -0.5)


def _check_solver(solver):
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")


def svr_model(C, epsilon, kappa, solver="kmlib"):
    """An unfitted SVR with the Gaussian kernel exp(-kappa/2 |x - x'|^2), from either solver."""
    _check_solver(solver)
    if solver == "libsvm":
        return libsvm.SVR(C=C, epsilon=epsilon, gamma=kappa / 2.0, tol=1e-3)
    return SVR(C=C, epsilon=epsilon, kernel=rbf_of_kappa(kappa))


def svc_model(C, kappa, solver="kmlib"):
    """An unfitted SVC with the Gaussian kernel exp(-kappa/2 |x - x'|^2), from either solver."""
    _check_solver(solver)
    if solver == "libsvm":
        return libsvm.SVC(C=C, gamma=kappa / 2.0, tol=1e-3)
    return SVC(C=C, kernel=rbf_of_kappa(kappa))


def covariance(d, ard, variance=1.0):
    """(4.3) or, with ard, (4.42): kappa_0 = ``variance`` fixed; kappa_l = 0.5, kappa_b = 100.

    The boxes are the thesis's (BayesianSVR's): ln l in [-5, 8.5], ln kappa_b in [-13, 10].
    """
    rbf = RBF(
        lengthscale=np.full(d, np.sqrt(2.0)) if ard else np.sqrt(2.0),
        variance=variance,
        limits={"variance": "fixed", "lengthscale": LENGTHSCALE_BOUNDS},
    )
    return rbf + Constant(100.0, limits={"variance": BIAS_VARIANCE_BOUNDS})


def fitted(model):
    """The fitted hyperparameters of a kmlib Bayesian model, as stored in a results file.

    Returns
    -------
    dict
        ``theta``, the kernel's log hyperparameters, and the model's own fitted values among
        ``C``, ``epsilon`` (BSVR) and ``noise_variance`` (GPR): what :func:`at_stored` needs to
        fit the same model again.
    """
    values = {"theta": model.kernel_.theta}
    parameters = model.get_params(deep=False)
    for name in ("C", "epsilon", "noise_variance"):
        if name in parameters:
            values[name] = float(getattr(model, f"{name}_"))
    return values


def at_stored(model, stored):
    """An unfitted copy of ``model`` that fits at ``stored`` hyperparameters, not optimising them.

    Parameters
    ----------
    model : estimator
        A kmlib Bayesian model as the protocol builds it (its ``kernel`` given).
    stored : dict
        What :func:`fitted` returned for the fit to repeat.
    """
    kernel = clone(model.kernel)
    kernel.theta = np.asarray(stored["theta"], dtype=np.float64)
    values = {name: stored[name] for name in ("C", "epsilon", "noise_variance") if name in stored}
    return clone(model).set_params(kernel=kernel, optimize=False, **values)


#: (name, C, kappa) of BSVR's starting points: the thesis's default, then its two alternatives
BSVR_STARTS = (("default", 1.0, 0.5), ("C=10", 10.0, 0.5), ("kappa=1/d", 1.0, None))


def fit_bsvr(Z, z, beta, kernel, n_starts=3, at=None):
    """BSVR from the thesis's start and from the two others it recommends, best evidence kept.

    The thesis starts from C = 1, epsilon = 0.05, kappa = 0.5, kappa_b = 100 and suggests also
    trying C = 10 or kappa = 1/d and keeping the fit with the highest evidence (4.5, footnote
    17). ``kernel`` is the covariance RBF + Constant (``covariance``); each start sets its
    length-scales. ``n_starts`` uses the first starts of ``BSVR_STARTS``. Returns the kept model
    and the log evidence reached from each start; with ``at`` (stored :func:`fitted` values), the
    model fitted there instead, and no starts.
    """
    if at is not None:
        return at_stored(BayesianSVR(kernel=kernel, beta=beta), at).fit(Z, z), {}
    d = Z.shape[1]
    ard = np.ndim(kernel.k1.lengthscale) > 0
    fits = {}
    for start, C, kappa in BSVR_STARTS[:n_starts]:
        kappa = 1 / d if kappa is None else kappa
        start_kernel = copy.deepcopy(kernel)
        start_kernel.k1.lengthscale = np.full(d, kappa**-0.5) if ard else kappa**-0.5
        fits[start] = BayesianSVR(kernel=start_kernel, beta=beta, C=C).fit(Z, z)
    evidence = {start: model.log_marginal_likelihood_ for start, model in fits.items()}
    return fits[max(evidence, key=evidence.get)], evidence


def coarse_to_fine(evaluate, log10_C, log10_kappa, fine_half_width=0.4):
    """The grid point of smallest ``evaluate``: a 7 x 7 grid over the box, then a finer one.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(log10_C, log10_kappa)`` returns a sortable key; smaller is better, and the
        first of equal keys in grid order wins.
    log10_C, log10_kappa : (float, float)
        The coarse grid's box.
    fine_half_width : float
        The fine grid spans the best coarse point ± this, in steps of 0.1 (0.4: the thesis's
        9 x 9).

    Returns
    -------
    dict
        ``log10_C``, ``log10_kappa`` and ``key`` of the best point, and ``visited``, every
        evaluated point's key.
    """
    visited = {}

    def key(point):
        point = (round(point[0], 6), round(point[1], 6))
        if point not in visited:
            with warnings.catch_warnings():
                # a solver at its iteration limit still returns its best point
                warnings.simplefilter("ignore", ConvergenceWarning)
                visited[point] = evaluate(*point)
        return visited[point]

    coarse = [(a, b) for a in np.linspace(*log10_C, 7) for b in np.linspace(*log10_kappa, 7)]
    best = min(coarse, key=key)
    offsets = np.arange(-fine_half_width, fine_half_width + 1e-9, 0.1)
    fine = [(best[0] + a, best[1] + b) for a in offsets for b in offsets]
    best = min([best] + fine, key=key)  # the coarse winner keeps its place among equals
    return {"log10_C": best[0], "log10_kappa": best[1], "key": key(best), "visited": visited}


def select_svr(X, y, epsilon, seed, fine_half_width=0.4, solver="kmlib"):
    """SVR's (C, kappa) by 5-fold cross-validated squared error on the thesis's box (4.5).

    ``solver`` is "kmlib" or "libsvm" (see the module's docstring).

    Returns
    -------
    dict
        ``C``, ``kappa``, the cross-validated mean squared error ``cv_mse`` and the number of
        grid ``points`` evaluated.
    """
    folds = KFold(min(5, len(y)), shuffle=True, random_state=seed)

    def cv_mse(log_C, log_kappa):
        model = svr_model(10.0**log_C, epsilon, 10.0**log_kappa, solver)
        return -cross_val_score(model, X, y, cv=folds, scoring="neg_mean_squared_error").mean()

    best = coarse_to_fine(cv_mse, (-0.5, 2.5), (-2.5, 0.5), fine_half_width)
    return {"C": 10.0 ** best["log10_C"], "kappa": 10.0 ** best["log10_kappa"],
            "cv_mse": best["key"], "points": len(best["visited"])}


def select_svc(X, y, folds=None, fine_half_width=0.4, seed=0, solver="kmlib"):
    """SVC's (C, kappa) by cross-validation errors on the thesis's box (5.5), ties to fewer SVs.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
    folds : int, "loo" or None
        None: leave-one-out below 100 points, 10-fold otherwise, as the thesis.
    fine_half_width : float
    seed : int
        Shuffles the folds.
    solver : {"kmlib", "libsvm"}

    Returns
    -------
    C, kappa : float
    cv_error : float
        Fraction of cross-validation errors at the chosen point.
    ties : int
        How many grid points share the smallest number of errors.
    """
    if folds is None:
        folds = "loo" if len(y) < 100 else 10
    splitter = LeaveOneOut() if folds == "loo" else StratifiedKFold(folds, shuffle=True,
                                                                    random_state=seed)
    splits = list(splitter.split(X, y))

    def errors_then_support_vectors(log_C, log_kappa):
        def model():
            return svc_model(10.0**log_C, 10.0**log_kappa, solver)
        errors = sum(int(np.sum(model().fit(X[tr], y[tr]).predict(X[te]) != y[te]))
                     for tr, te in splits)
        return errors, model().fit(X, y).support_.size

    best = coarse_to_fine(errors_then_support_vectors, (0.0, 3.0), (-3.0, 0.0), fine_half_width)
    errors = best["key"][0]
    ties = sum(key[0] == errors for key in best["visited"].values())
    return 10.0 ** best["log10_C"], 10.0 ** best["log10_kappa"], errors / len(y), ties
