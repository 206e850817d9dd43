"""PRML chapter 6 exercises through nbgrader: full marks, zero, partial credit, tamper-proof.

For each exercise, ``nbgrader_course.run_course`` generates the assignment and autogrades four
submissions (see that module). The mistake of the wrong submission is written here: a plausible
slip (a sign, a missing factor, a transposed matrix) in one part of the answer, with the checks
it must fail; the others must pass, so that the parts that are right keep their marks.
"""

from nbgrader_course import Mistake, course_test

MISTAKES = {
    "ex-6-21": Mistake(  # the prior variance 1/alpha left out of the kernel (6.54)
        "answer-3",
        "Linear(variance=1 / alpha)",
        "Linear(variance=1.0)",
        frozenset({"check-3", "check-4"}),
    ),
}

test_exercise_through_nbgrader = course_test(MISTAKES)
