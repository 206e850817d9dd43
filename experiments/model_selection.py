"""The thesis's model selection for the classical SVMs: a coarse grid, then a fine one (Chu 2003, 4.5 and 5.5).

The coarse grid is 7 x 7, linearly spaced in (log10 C, log10 kappa) over the given box; the
fine grid is 9 x 9 with step 0.1 around the best coarse point. kappa is the kernel's inverse
squared length-scale, exp(-kappa/2 |x - x'|^2), so the kmlib RBF gets lengthscale kappa^-1/2.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import cross_val_score

from kmlib.kernels import RBF


def rbf_of_kappa(kappa):
    """The Gaussian kernel exp(-kappa/2 |x - x'|^2) as a kmlib RBF."""
    return RBF(lengthscale=float(kappa) ** -0.5)


def coarse_to_fine(make_model, X, y, cv, log10_C, log10_kappa, scoring):
    """The (C, kappa) of best cross-validated score on the coarse grid, then on the fine one.

    Parameters
    ----------
    make_model : callable
        ``make_model(C, kappa)`` returns an unfitted estimator.
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
    cv : cross-validation splitter or int
    log10_C, log10_kappa : (float, float)
        The coarse grid's box.
    scoring : str
        scikit-learn scorer name (higher is better).

    Returns
    -------
    dict
        ``C``, ``kappa``, the best ``score`` and the number of grid ``points`` evaluated.
    """
    scores = {}

    def score(log_C, log_kappa):
        key = (round(log_C, 6), round(log_kappa, 6))
        if key not in scores:
            model = make_model(10.0**log_C, 10.0**log_kappa)
            with warnings.catch_warnings():
                # a solver at its iteration limit still returns its best point
                warnings.simplefilter("ignore", ConvergenceWarning)
                scores[key] = cross_val_score(model, X, y, cv=cv, scoring=scoring).mean()
        return scores[key]

    coarse = [(a, b) for a in np.linspace(*log10_C, 7) for b in np.linspace(*log10_kappa, 7)]
    best = max(coarse, key=lambda point: score(*point))
    offsets = 0.1 * np.arange(-4, 5)
    fine = [(best[0] + a, best[1] + b) for a in offsets for b in offsets]
    best = max(fine, key=lambda point: score(*point))
    return {"C": 10.0 ** best[0], "kappa": 10.0 ** best[1], "score": score(*best),
            "points": len(scores)}
