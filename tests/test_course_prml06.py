"""PRML chapter 6 exercises through nbgrader: full marks, zero, partial credit, tamper-proof.

For each exercise, ``nbgrader_course.run_course`` generates the assignment and autogrades four
submissions (see that module). The mistake of the wrong submission is written here: a plausible
slip (a sign, a missing factor, a transposed matrix) in one part of the answer, with the checks
it must fail; the others must pass, so that the parts that are right keep their marks.
"""

from nbgrader_course import Mistake, course_test

MISTAKES = {
    "ex-6-01": Mistake(  # the coefficients u taken as the primal weights (w = u, no Phi^T Phi)
        "answer-3",
        "return Phi.T @ Phi @ u",
        "return u",
        frozenset({"check-3", "check-4"}),
    ),
    "ex-6-02": Mistake(  # the targets t_n left out of the dual prediction
        "answer-2",
        "return K_new @ (alpha * t)",
        "return K_new @ alpha",
        frozenset({"check-3", "check-4"}),
    ),
    "ex-6-03": Mistake(  # k(x_n, x_n) dropped along with k(x, x), as if it were constant too
        "answer-2",
        "np.argmin(k_train[None, :] - 2 * K_new, axis=1)",
        "np.argmin(-2 * K_new, axis=1)",
        frozenset({"check-4"}),
    ),
    "ex-6-04": Mistake(  # off-diagonal entry larger in size than the diagonal: |e| > d
        "answer-1",
        "[[2.0, -1.0], [-1.0, 2.0]]",
        "[[1.0, -2.0], [-2.0, 1.0]]",
        frozenset({"check-2", "check-4"}),
    ),
    "ex-6-05": Mistake(  # features scaled by c instead of its square root
        "answer-1",
        "return np.sqrt(c) * Phi1",
        "return c * Phi1",
        frozenset({"check-1", "check-3"}),
    ),
    "ex-6-06": Mistake(  # the weights put on the features without their square root
        "answer-2",
        "np.sqrt(w) * B",
        "w * B",
        frozenset({"check-2", "check-3", "check-4"}),
    ),
    "ex-6-07": Mistake(  # a wrong index: the second factor summed over all points
        "answer-2",
        '"ni,nj->nij"',
        '"ni,mj->nij"',
        frozenset({"check-2", "check-3", "check-4"}),
    ),
    "ex-6-08": Mistake(  # the factor transposed: rows x_n^T L^T instead of x_n^T L
        "answer-2",
        "return X @ factor(A)",
        "return X @ factor(A).T",
        frozenset({"check-3"}),
    ),
    "ex-6-09": Mistake(  # k_b's features evaluated on the wrong part, x_a instead of x_b
        "answer-2",
        "chi(X[:, dims_b])",
        "chi(X[:, dims_a])",
        frozenset({"check-2", "check-3"}),
    ),
    "ex-6-10": Mistake(  # the regulariser lambda left out of the denominator of c
        "answer-3",
        "(f_train @ f_train + lam)",
        "(f_train @ f_train)",
        frozenset({"check-3", "check-4"}),
    ),
    "ex-6-11": Mistake(  # 2-D features divided by sqrt(|alpha|!) instead of sqrt(alpha_1! alpha_2!)
        "answer-2",
        "np.sqrt(factorial(a1) * factorial(a2))",
        "np.sqrt(factorial(a1 + a2))",
        frozenset({"check-3", "check-4"}),
    ),
    "ex-6-12": Mistake(  # the coordinates stop at size |D| - 1: the full set D itself is left out
        "answer-1",
        "range(len(D) + 1)",
        "range(len(D))",
        frozenset({"check-1", "check-5"}),
    ),
    "ex-6-13": Mistake(  # the Jacobian taken the wrong way round: d(ln sigma)/d sigma = 1/sigma
        "answer-3",
        "np.diag([1.0, sigma])",
        "np.diag([1.0, 1 / sigma])",
        frozenset({"check-2", "check-5"}),
    ),
    "ex-6-14": Mistake(  # the information taken as the covariance S instead of its inverse
        "answer-2",
        "cho_solve(cho_factor(S), np.eye(D))",
        "S.copy()",
        frozenset({"check-2", "check-4"}),
    ),
    "ex-6-15": Mistake(  # the cosine divided by k_ii k_jj instead of its square root
        "answer-2",
        "norms = np.sqrt(np.diag(K))",
        "norms = np.diag(K)",
        frozenset({"check-4", "check-5"}),
    ),
    "ex-6-16": Mistake(  # alpha_n = phi_n^T w, as if the phi_n were orthonormal (no linear solve)
        "answer-1",
        "np.linalg.lstsq(Phi.T, w, rcond=None)[0]",
        "Phi @ w",
        frozenset({"check-1", "check-2", "check-3"}),
    ),
    "ex-6-17": Mistake(  # the noise density mirrored: nu(x_n - z) instead of nu(z - x_n)
        "answer-2",
        "density(z[:, np.newaxis] - x_data[np.newaxis, :])",
        "density(x_data[np.newaxis, :] - z[:, np.newaxis])",
        frozenset({"check-4", "check-5"}),
    ),
    "ex-6-18": Mistake(  # the spread sigma^2 within each component left out of var[t | x]
        "answer-3",
        "var = sigma**2 + k @ t_train**2 - mean**2",
        "var = k @ t_train**2 - mean**2",
        frozenset({"check-3", "check-4"}),
    ),
    "ex-6-19": Mistake(  # the kernel of Exercise 6.17: g(z - x_n) instead of g(x_n - z)
        "answer-2",
        "density(x_data[np.newaxis, :] - z[:, np.newaxis])",
        "density(z[:, np.newaxis] - x_data[np.newaxis, :])",
        frozenset({"check-4", "check-5"}),
    ),
    "ex-6-20": Mistake(  # the noise 1/beta left out of c: the variance of y(x), not of the target t
        "answer-2",
        "c = kernel.diag(x_query) + 1 / beta",
        "c = kernel.diag(x_query)",
        frozenset({"check-2", "check-3", "check-4"}),
    ),
    "ex-6-21": Mistake(  # the prior variance 1/alpha left out of the kernel (6.54)
        "answer-3",
        "Linear(variance=1 / alpha)",
        "Linear(variance=1.0)",
        frozenset({"check-3", "check-4"}),
    ),
    "ex-6-22": Mistake(  # the noise variance 1/beta left off the test-test block of the covariance
        "answer-2",
        "C_star = kernel(x_star) + np.eye(len(x_star)) / beta",
        "C_star = kernel(x_star)",
        frozenset({"check-2", "check-3", "check-5"}),
    ),
    "ex-6-23": Mistake(  # sign slip: the explained variance added to c instead of subtracted
        "answer-2",
        "variance = c - k @",
        "variance = c + k @",
        frozenset({"check-2", "check-3", "check-4"}),
    ),
    "ex-6-24": Mistake(  # factors added instead of placed side by side
        "answer-2",
        "np.hstack([G_A, G_B])",
        "G_A + G_B",
        frozenset({"check-2", "check-3"}),
    ),
    "ex-6-25": Mistake(  # (1 - sigma) dropped from W: same fixed point, not the Newton step
        "answer-1",
        "W = np.diag(sigma * (1 - sigma))",
        "W = np.diag(sigma)",
        frozenset({"check-1", "check-2", "check-4"}),
    ),
    "ex-6-26": Mistake(  # W_N used where (6.88) has its inverse
        "answer-2",
        "W_inv = np.diag(1 / (sigma * (1 - sigma)))",
        "W_inv = np.diag(sigma * (1 - sigma))",
        frozenset({"check-2", "check-3"}),
    ),
    "ex-6-27": Mistake(  # (6.94) as PRML prints it: (I + W C)^{-1} instead of (I + C W)^{-1}
        "answer-3",
        "np.eye(len(t)) + C @ W, dC_residual",
        "np.eye(len(t)) + W @ C, dC_residual",
        frozenset({"check-3", "check-5"}),
    ),
}

test_exercise_through_nbgrader = course_test(MISTAKES)
