"""PRML chapter 7 exercises through nbgrader: full marks, zero, partial credit, tamper-proof.

For each exercise, ``nbgrader_course.run_course`` generates the assignment and autogrades four
submissions (see that module). The mistake of the wrong submission is written here: a plausible
slip (a sign, a missing factor, a transposed matrix) in one part of the answer, with the checks
it must fail; the others must pass, so that the parts that are right keep their marks.
"""

from nbgrader_course import Mistake, course_test

MISTAKES = {
    "ex-7-01": Mistake(  # kernel sums, not means: the 1/N_+- of the Parzen estimates left out
        "answer-1",
        "return K[:, t > 0].mean(axis=1) - K[:, t < 0].mean(axis=1)",
        "return K[:, t > 0].sum(axis=1) - K[:, t < 0].sum(axis=1)",
        frozenset({"check-1"}),
    ),
    "ex-7-02": Mistake(  # multipliers scaled by gamma^2, the factor of the dual objective
        "answer-2",
        "return gamma * a1",
        "return gamma**2 * a1",
        frozenset({"check-2", "check-3"}),
    ),
    "ex-7-03": Mistake(  # sign slip in the bias: k_++ - k_-- in place of k_-- - k_++
        "answer-2",
        "return (k_mm - k_pp) /",
        "return (k_pp - k_mm) /",
        frozenset({"check-2", "check-4"}),
    ),
    "ex-7-04": Mistake(  # bias (7.18) averaged over all points instead of the support vectors
        "answer-2",
        "np.mean(t[sv] - X[sv] @ w)",
        "np.mean(t - X @ w)",
        frozenset({"check-2", "check-3"}),
    ),
    "ex-7-05": Mistake(  # the factor 1/2 of the double sum in (7.10) left out
        "answer-2",
        "a.sum() - 0.5 * at @ K @ at",
        "a.sum() - at @ K @ at",
        frozenset({"check-2", "check-3"}),
    ),
    "ex-7-06": Mistake(  # penalty written as (lambda/2)|w|^2 instead of lambda |w|^2
        "answer-2",
        "+ lam * w @ w",
        "+ 0.5 * lam * w @ w",
        frozenset({"check-2", "check-3"}),
    ),
    "ex-7-07": Mistake(  # the factor 1/2 of the quadratic term of (7.61) left out
        "answer-2",
        "-0.5 * d @ K @ d",
        "-d @ K @ d",
        frozenset({"check-2", "check-3", "check-5"}),
    ),
    "ex-7-08": Mistake(  # the tube half-width added instead of subtracted in xi
        "answer-2",
        "t - y - eps",
        "t - y + eps",
        frozenset({"check-2", "check-3", "check-4"}),
    ),
    "ex-7-09": Mistake(  # the prior variances 1/alpha put in the precision matrix
        "answer-1",
        "np.diag(alpha)",
        "np.diag(1 / alpha)",
        frozenset({"check-1", "check-3"}),
    ),
    "ex-7-10": Mistake(  # the factor 1/2 of the prior's quadratic form left out of E(w)
        "answer-1",
        "0.5 * w @ (alpha * w)",
        "w @ (alpha * w)",
        frozenset({"check-1", "check-4"}),
    ),
    "ex-7-11": Mistake(  # the prior precision A used as the prior covariance
        "answer-1",
        "np.diag(1 / alpha)",
        "np.diag(alpha)",
        frozenset({"check-1", "check-3"}),
    ),
    "ex-7-12": Mistake(  # the noise re-estimate without the sum of the gamma_i (ML value)
        "answer-2",
        "(len(t) - gamma.sum()) / (residual @ residual)",
        "len(t) / (residual @ residual)",
        frozenset({"check-3", "check-4", "check-5"}),
    ),
    "ex-7-13": Mistake(  # the alpha update of a gamma prior on ln(alpha): 2a instead of 2a - 2
        "answer-1",
        "2 * a - 2",
        "2 * a",
        frozenset({"check-1", "check-3", "check-4"}),
    ),
    "ex-7-14": Mistake(  # the noise variance 1/beta of the new target left out
        "answer-2",
        "1 / beta + ",
        "",
        frozenset({"check-2", "check-3"}),
    ),
    "ex-7-15": Mistake(  # the sign of the ln(alpha_i + s_i) term of lambda flipped
        "answer-2",
        "np.log(alpha_i) - np.log(alpha_i + s_i)",
        "np.log(alpha_i) + np.log(alpha_i + s_i)",
        frozenset({"check-2", "check-3", "check-4"}),
    ),
    "ex-7-16": Mistake(  # the factor 1/2 of lambda lost in the second derivative
        "answer-2",
        "(2 * a**2 * (a + s) ** 2)",
        "(a**2 * (a + s) ** 2)",
        frozenset({"check-2", "check-3"}),
    ),
    "ex-7-17": Mistake(  # alpha_i + S_i instead of alpha_i - S_i in the conversion
        "answer-2",
        "alpha[finite] / (alpha[finite] - S[finite])",
        "alpha[finite] / (alpha[finite] + S[finite])",
        frozenset({"check-3", "check-4"}),
    ),
    "ex-7-18": Mistake(  # the prior precision A left out of the Hessian
        "answer-2",
        "-(Phi.T @ B @ Phi + A)",
        "-(Phi.T @ B @ Phi)",
        frozenset({"check-2", "check-3", "check-4"}),
    ),
    "ex-7-19": Mistake(  # gamma_i = 1 - Sigma_ii, the factor alpha_i dropped
        "answer-2",
        "1 - alpha * np.diag(Sigma)",
        "1 - np.diag(Sigma)",
        frozenset({"check-3", "check-4", "check-5"}),
    ),
}

test_exercise_through_nbgrader = course_test(MISTAKES)
