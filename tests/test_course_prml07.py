"""PRML chapter 7 exercises through nbgrader: full marks, zero, partial credit, tamper-proof.

For each exercise, ``nbgrader_course.run_course`` generates the assignment and autogrades four
submissions (see that module). The mistake of the wrong submission is written here: a plausible
slip (a sign, a missing factor, a transposed matrix) in one part of the answer, with the checks
it must fail; the others must pass, so that the parts that are right keep their marks.
"""

from nbgrader_course import Mistake, course_test

MISTAKES = {
}

test_exercise_through_nbgrader = course_test(MISTAKES)
