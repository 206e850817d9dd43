"""Full-protocol runs of the papers' tables and figures (Chu 2003, chapters 4 and 5; MLAPP
Table 14.1).

``python -m experiments --help`` lists the experiments; ``python -m experiments NAME --help`` its
options. Each run stores its results, with their provenance, in ``results/NAME.json`` (or the
``--out`` file), which the book's pages read. The protocols live in the modules below; the
runner (parallel execution, results files, resuming) in :mod:`experiments.runner`.
"""

from experiments import (
    chu_benchmarks,
    chu_laser,
    chu_raetsch,
    chu_robot_arm,
    chu_simulated,
    chu_sinc,
    mlapp_kernel_machines,
)

#: name -> Experiment, in the order of the thesis, then MLAPP's
EXPERIMENTS = {
    experiment.name: experiment
    for module in (chu_sinc, chu_robot_arm, chu_laser, chu_benchmarks, chu_simulated, chu_raetsch,
                   mlapp_kernel_machines)
    for experiment in module.EXPERIMENTS
}
