r"""Type-II maximum likelihood: the log evidence maximised over log hyperparameters.

Every Bayesian model of kmlib (GP regression and classification, the Bayesian SVR, the BTSVC)
fits its hyperparameters the same way (PRML 6.4.3): L-BFGS-B on the log evidence, in log space,
inside box bounds, from the given starting point and from seeded restarts drawn uniformly in the
box; the run with the highest evidence wins. A point where a covariance matrix cannot be
factorised counts as having no evidence at all, so the line search steps back from it.

Two outcomes are reported with a :class:`~sklearn.exceptions.ConvergenceWarning`, as
scikit-learn does: a run that stops at its iteration limit, and a best point that sits on a
bound of the box while the evidence still rises beyond it (the box, not the data, set that
hyperparameter).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import optimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ._validation import as_generator, check_bool, check_non_negative_int, check_positive_int

__all__ = ["EvidenceMixin", "check_optimizer_settings", "fit_hyperparameters", "maximise_evidence"]

#: Distance (in log units) from a bound within which a hyperparameter counts as sitting on it.
AT_BOUND = 1e-6
#: What the error suggests when no starting point can be evaluated, unless the model knows better.
HINT = "check the kernel and its bounds"


def maximise_evidence(
    log_evidence,
    theta0,
    bounds,
    names,
    *,
    model,
    n_restarts=0,
    random_state=None,
    max_iter=200,
    hint=HINT,
    stacklevel=3,
):
    """Maximise ``log_evidence`` with L-BFGS-B from ``theta0`` and seeded restarts.

    Parameters
    ----------
    log_evidence : callable
        ``log_evidence(theta) -> (value, gradient)`` at log hyperparameters ``theta``; it may
        raise :class:`numpy.linalg.LinAlgError` where a covariance cannot be factorised.
    theta0 : ndarray of shape (p,)
        First starting point (clipped into the box).
    bounds : ndarray of shape (p, 2)
        Log bounds; restarts are drawn uniformly inside them.
    names : sequence of str
        Names of the hyperparameters, for the warnings.
    model : str
        Name of the estimator, for the messages.
    n_restarts : int, default=0
        Number of extra starting points (checked by the estimator, as ``max_iter``).
    random_state : int, Generator, RandomState or None, default=None
        Seed of the restarts.
    max_iter : int, default=200
        Iteration limit of each run.
    hint : str, default=HINT
        What to try when no starting point can be evaluated.
    stacklevel : int, default=3
        Of the warnings, counted from this function (3: the caller of its caller).

    Returns
    -------
    result : scipy.optimize.OptimizeResult
        The best run: ``x`` the log hyperparameters, ``log_evidence`` the value there, ``nit``
        its iterations.
    """
    bounds = np.asarray(bounds, dtype=np.float64).reshape(-1, 2)
    rng = as_generator(random_state)
    starts = [np.clip(theta0, bounds[:, 0], bounds[:, 1])]
    starts += [rng.uniform(bounds[:, 0], bounds[:, 1]) for _ in range(n_restarts)]

    def objective(theta):
        try:
            value, gradient = log_evidence(theta)
        except np.linalg.LinAlgError:
            return np.inf, np.zeros_like(theta)
        return -value, -np.asarray(gradient)

    best = None
    for start in starts:
        result = optimize.minimize(
            objective,
            start,
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={"maxiter": max_iter},
        )
        if result.status == 1:
            warnings.warn(
                f"{model}: L-BFGS-B stopped at its iteration limit (optimizer_max_iter="
                f"{max_iter}) before the evidence converged; raise optimizer_max_iter",
                ConvergenceWarning,
                stacklevel=stacklevel,
            )
        if np.isfinite(result.fun) and (best is None or result.fun < best.fun):
            best = result
    if best is None:
        raise np.linalg.LinAlgError(
            f"{model}: the covariance matrix could not be factorised at any starting point of "
            f"the evidence maximisation; {hint}"
        )
    best.log_evidence = -float(best.fun)
    _warn_at_bounds(best, bounds, names, model, stacklevel + 1)
    return best


def check_optimizer_settings(estimator):
    """Check ``optimize``, ``n_restarts``, ``random_state`` and ``optimizer_max_iter`` of an
    estimator, the settings :func:`fit_hyperparameters` reads."""
    check_bool(estimator.optimize, "optimize")
    check_non_negative_int(estimator.n_restarts, "n_restarts")
    as_generator(estimator.random_state)
    check_positive_int(estimator.optimizer_max_iter, "optimizer_max_iter")


def fit_hyperparameters(
    estimator, log_evidence, theta0, bounds, names, *, hint=HINT, stacklevel=3
):
    """:func:`maximise_evidence` with an estimator's settings; sets its ``optimizer_n_iter_``.

    The estimator's ``n_restarts``, ``random_state`` and ``optimizer_max_iter`` (checked by
    :func:`check_optimizer_settings`) set the restarts and the iteration limit, and its class
    name heads the warnings.

    Parameters
    ----------
    estimator : estimator
        The model being fitted.
    log_evidence, theta0, bounds, names
        As for :func:`maximise_evidence`.
    hint : str, default=HINT
        What to try when no starting point can be evaluated.
    stacklevel : int, default=3
        Of the warnings, counted from this function (3: the caller of the estimator's method
        that calls it).

    Returns
    -------
    theta : ndarray of shape (p,)
        The log hyperparameters of the best run.
    """
    result = maximise_evidence(
        log_evidence,
        theta0,
        bounds,
        names,
        model=type(estimator).__name__,
        n_restarts=estimator.n_restarts,
        random_state=estimator.random_state,
        max_iter=int(estimator.optimizer_max_iter),
        hint=hint,
        stacklevel=stacklevel + 1,
    )
    estimator.optimizer_n_iter_ = int(result.nit)
    return result.x


def _warn_at_bounds(result, bounds, names, model, stacklevel):
    """Warn about hyperparameters on a bound where the evidence rises beyond it."""
    gradient = np.asarray(result.jac, dtype=np.float64)  # of the negative log evidence
    low = (result.x <= bounds[:, 0] + AT_BOUND) & (gradient > 0)
    high = (result.x >= bounds[:, 1] - AT_BOUND) & (gradient < 0)
    for index in np.flatnonzero(low | high):
        side = "lower" if low[index] else "upper"
        value = float(np.exp(bounds[index, 0 if low[index] else 1]))
        warnings.warn(
            f"{model}: the evidence is highest at the {side} bound of {names[index]} "
            f"({value:.3g}) and rises beyond it, so the bound set its value; widen the bound "
            "(the kernel's limits, or the model's bounds) or rescale the data",
            ConvergenceWarning,
            stacklevel=stacklevel,
        )


class EvidenceMixin:
    """``log_marginal_likelihood`` for a fitted model with ``theta_`` and ``_log_evidence_at``.

    ``_log_evidence_at(theta, eval_gradient)`` returns ``(value, gradient or None)`` at log
    hyperparameters ``theta`` laid out as ``theta_``.
    """

    def log_marginal_likelihood(self, theta=None, eval_gradient=False):
        """Log evidence of the training data, and optionally its gradient.

        Parameters
        ----------
        theta : array_like of shape (n_theta,), default=None
            Log hyperparameters, laid out as ``theta_``; ``None`` gives the value at the
            fitted ones.
        eval_gradient : bool, default=False
            Also return the gradient with respect to ``theta``.

        Returns
        -------
        value : float
        gradient : ndarray of shape (n_theta,)
            Only with ``eval_gradient=True``.
        """
        check_is_fitted(self)
        if theta is None:
            if not eval_gradient:
                return self.log_marginal_likelihood_
            theta = self.theta_
        theta = np.asarray(theta, dtype=np.float64)
        if theta.shape != self.theta_.shape:
            raise ValueError(
                f"theta must have {self.theta_.size} entries ({', '.join(self.theta_names_)}); "
                f"got shape {theta.shape}"
            )
        value, gradient = self._log_evidence_at(theta, eval_gradient)
        return (value, gradient) if eval_gradient else value
