"""Grading with the student's code in a sandbox and the verdicts decided outside it.

* :mod:`grading.sandbox` starts the student's process under bubblewrap: its own PID, network
  and IPC namespaces, the Python environment read-only, a private ``/tmp``, nothing of the
  course, a user of its own, and limits on memory, CPU time, processes and file size;
* :mod:`grading.answers` runs there: it executes the setup and the student's answer cells and
  answers requests about what they defined;
* :mod:`grading.checks` runs the instructors' setup and checks in a clean process of its own,
  with the student's names bound to plain data or to references into the sandbox
  (:mod:`grading.protocol`), and returns, per cell, its outputs and its verdict;
  :mod:`grading.cells` runs a cell on either side, :mod:`grading.review` reads an answer's
  code for the names it may bring in and for what deserves the instructor's eye;
* :mod:`grading.autograde` puts those verdicts into nbgrader's autograding, and
  ``tools/grade.py`` into its own report.
"""
