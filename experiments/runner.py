"""Run an experiment's tasks in parallel, keep every result as it arrives, resume after a stop.

An experiment is a list of phases; each phase is a function that, given the options and the
results of the earlier phases, returns the tasks to run (one task per partition, usually). The
tasks of a phase run in parallel through joblib: in this process (``n_jobs=1``), in ``n_jobs``
local worker processes (loky), or on a Dask cluster through joblib's Dask backend. Every task
seeds its own random generator from its arguments and runs with one BLAS thread, so a result does
not depend on where or in which order it was computed: the serial, local-parallel and cluster
runs of the same options give the same numbers, timings aside (a task stores its timings under
keys named ``seconds``).

The results file (JSON) is rewritten, atomically, after every finished task. It holds one record
per task (its arguments, its result, its time and the worker that ran it) and one entry per run
(options, commit, date, machine, backend, the fingerprint of the code that computes the results
and the numerical environment: :mod:`experiments.fingerprint`), so a run started again with the
same ``--out`` skips the finished tasks: after an interruption, or with more splits or data sets
than before. A stored task whose arguments differ from the new run's is an error, never silently
reused, and so is a file whose results other code computed.
"""

import datetime
import json
import os
import platform
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed, parallel_config
from threadpoolctl import threadpool_limits

from experiments.fingerprint import code_fingerprint, experiment_module, numerics, stale_runs

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Task:
    """One unit of work: ``function(**kwargs)`` returns a dict of JSON-friendly results.

    ``key`` names the task within its experiment (for example ``"boston/split-007"``); a
    results file that already holds the key is not recomputed.
    """

    key: str
    function: object
    kwargs: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Experiment:
    """A table or figure of a paper, as phases of tasks and a summary of their results.

    Parameters
    ----------
    name : str
        Command-line name, for example ``"table-4.7"``.
    caption : str
        One line: what is reproduced, from which source.
    default_splits : int
        The source's number of partitions (or repetitions): the full protocol.
    phases : tuple of callables
        ``phase(options, results) -> list[Task]``; ``results`` maps the keys of the earlier
        phases' tasks to their records.
    summarise : callable
        ``summarise(options, results) -> str``: the table printed at the end of a run.
    options : dict
        Extra command-line options, ``{name: (type, default, help)}``; ``type`` parses one
        comma-separated item, and the option's value is the list of the parsed items.
    """

    name: str
    caption: str
    default_splits: int
    phases: tuple
    summarise: object
    options: dict = field(default_factory=dict)


def training_size(text):
    """A ``--sizes`` item: a number of training points, at least 10."""
    value = int(text)
    if value < 10:
        raise ValueError(f"a training set needs at least 10 points, got {value}")
    return value


def data_set_names(allowed):
    """The parser of a ``--sets`` item: one of the names in ``allowed``."""
    def data_set_name(text):
        if text not in allowed:
            raise ValueError(f"unknown data set {text!r}; choose from {', '.join(allowed)}")
        return text
    return data_set_name


class RunnerError(ValueError):
    """An option or a results file that the runner cannot use (the message says why)."""


def to_json(value):
    """Numbers and arrays as plain Python, so that ``json`` can write them."""
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_json(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def _run_task(task):
    """Run one task with one BLAS thread; its result, the seconds it took and the worker."""
    start = time.perf_counter()
    with threadpool_limits(limits=1):
        result = task.function(**task.kwargs)
    return task.key, {
        "kwargs": to_json(task.kwargs),
        "result": to_json(result),
        "seconds": time.perf_counter() - start,
        "worker": f"{socket.gethostname()}:{os.getpid()}",
    }


def _git(*args):
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def _cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def provenance(backend, module):
    """Where and with what this run was made: commit, date, machine, library versions, and the
    fingerprint of ``module``'s code and the numerical environment (:mod:`experiments.fingerprint`).
    """
    import scipy
    import sklearn

    changed = _git("status", "--porcelain", "--", "kmlib", "experiments")
    return {
        "commit": _git("rev-parse", "HEAD"),
        "uncommitted_changes": bool(changed) if changed is not None else None,
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"host": socket.gethostname(), "platform": platform.platform(),
                    "cpu": _cpu_model(), "cores": os.cpu_count()},
        "python": sys.version.split()[0],
        "versions": {"numpy": np.__version__, "scipy": scipy.__version__,
                     "scikit-learn": sklearn.__version__},
        "numerics": numerics(),
        "code": code_fingerprint(module),
        "backend": backend,
    }


class ResultsFile:
    """The JSON results of one experiment, rewritten atomically after every task."""

    def __init__(self, path, experiment, options):
        self.path = Path(path)
        self.module = experiment_module(experiment)
        self.data = {"experiment": experiment.name, "caption": experiment.caption,
                     "options": options, "runs": [], "tasks": {}}
        if self.path.exists():
            stored = json.loads(self.path.read_text())
            if stored.get("experiment") != experiment.name:
                raise RunnerError(
                    f"{self.path} holds the results of {stored.get('experiment')!r}, not of "
                    f"{experiment.name!r}: choose another --out"
                )
            stale = stale_runs(stored, self.module)
            if stale:
                raise RunnerError(
                    f"{self.path} was computed by other code than the repository's now (run "
                    f"{stale[0][0]}: {stale[0][1]}), so its tasks cannot be reused: remove the "
                    "file to compute it again, or choose another --out"
                )
            # other options (more splits, another data set) reuse the finished tasks: a task's
            # result depends on its own arguments only, which check_arguments compares
            stored["options"] = options
            self.data = stored

    def check_arguments(self, tasks):
        """Refuse to resume when a stored task was run with other arguments than asked now."""
        for task in tasks:
            stored = self.results.get(task.key)
            if stored is not None and stored["kwargs"] != to_json(task.kwargs):
                raise RunnerError(
                    f"{self.path} holds task {task.key} run with {stored['kwargs']}, not "
                    f"{to_json(task.kwargs)}: choose another --out"
                )

    @property
    def results(self):
        return self.data["tasks"]

    def start_run(self, backend):
        self.data["runs"].append({**provenance(backend, self.module),
                                  "options": self.data["options"]})
        self.save()

    def add(self, key, record):
        self.data["tasks"][key] = record
        self.save()

    def finish_run(self):
        run = self.data["runs"][-1]
        run["finished"] = datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds")
        self.save()

    def save(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(self.path.name + ".partial")
        partial.write_text(json.dumps(self.data, indent=1, sort_keys=True) + "\n")
        os.replace(partial, self.path)


def _clock(seconds):
    minutes, seconds = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}"


def run_experiment(experiment, options, out, n_jobs=1, dask_address=None, log=sys.stderr):
    """Run the tasks of every phase that ``out`` does not hold yet; return the results.

    Parameters
    ----------
    experiment : Experiment
    options : dict
        ``{"splits": int, **experiment options}``, already validated.
    out : path
        The results file; created, or resumed when it exists.
    n_jobs : int
        Local worker processes (joblib's loky backend); 1 runs in this process, -1 on every
        core. Ignored when ``dask_address`` is given.
    dask_address : str, optional
        Scheduler address of a running Dask cluster (``tcp://host:8786``): the tasks run on its
        workers through joblib's Dask backend.
    log : file
        Progress lines go here.

    Returns
    -------
    dict
        Task key -> record (``kwargs``, ``result``, ``seconds``, ``worker``).
    """
    results_file = ResultsFile(out, experiment, options)
    if dask_address:
        try:
            from dask.distributed import Client
        except ImportError as error:
            raise RunnerError("--dask needs dask.distributed: pip install 'kmlib[cluster]'") \
                from error
        try:
            client = Client(dask_address, timeout="10s")
        except OSError as error:
            raise RunnerError(f"no Dask scheduler answered at {dask_address} within 10 s: "
                              "start one with `dask scheduler` (and workers with "
                              "`dask worker ADDRESS`), or run locally with --n-jobs") from error
        backend, config = f"dask {dask_address}", parallel_config(backend="dask")
        n_jobs = -1
    else:
        client = None
        backend = "serial" if n_jobs == 1 else f"loky n_jobs={n_jobs}"
        config = parallel_config(backend="loky")
    results_file.start_run(backend)
    start = time.perf_counter()
    try:
        with config:
            for number, phase in enumerate(experiment.phases, 1):
                tasks = phase(options, results_file.results)
                results_file.check_arguments(tasks)
                todo = [task for task in tasks if task.key not in results_file.results]
                print(f"{experiment.name} phase {number}/{len(experiment.phases)}: "
                      f"{len(tasks) - len(todo)} of {len(tasks)} tasks already done, "
                      f"running {len(todo)} ({backend})", file=log, flush=True)
                phase_start = time.perf_counter()
                jobs = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
                    delayed(_run_task)(task) for task in todo)
                for done, (key, record) in enumerate(jobs, 1):
                    results_file.add(key, record)
                    elapsed = time.perf_counter() - phase_start
                    left = elapsed / done * (len(todo) - done)
                    print(f"  [{done}/{len(todo)}] {key}: {record['seconds']:.1f} s "
                          f"(elapsed {_clock(elapsed)}, about {_clock(left)} left)",
                          file=log, flush=True)
    finally:
        if client is not None:
            client.close()
    results_file.finish_run()
    print(f"{experiment.name}: done in {_clock(time.perf_counter() - start)}; results in {out}",
          file=log, flush=True)
    return results_file.results


def load_results(path):
    """A results file: ``{"experiment", "options", "runs", "tasks"}`` as written by a run."""
    return json.loads(Path(path).read_text())


#: results files whose staleness :func:`stored_results` has already reported in this process
_REPORTED_STALE = set()


def stored_results(name):
    """The full-protocol results shipped in the repository's ``results/NAME.json``.

    A page reads its stored results through this function, so a reader learns here when they
    were computed by an earlier version of the code (:func:`staleness`): a line says so once per
    file and process, on standard output (the website shows it under the cell).
    """
    stored = load_results(ROOT / "results" / f"{name}.json")
    if name not in _REPORTED_STALE:
        _REPORTED_STALE.add(name)
        stale = staleness(stored)
        if stale:
            print(f"Note: results/{name}.json was computed by an earlier version of the code and "
                  "is due to be run again (python -m experiments status says what changed).")
    return stored


def wall_seconds(stored):
    """Wall time of the finished runs of a results file, in seconds."""
    return sum((datetime.datetime.fromisoformat(run["finished"])
                - datetime.datetime.fromisoformat(run["started"])).total_seconds()
               for run in stored["runs"] if run.get("finished"))


def staleness(stored):
    """Why a results file no longer matches the repository's code: a list of reasons, one per
    stale run (no code fingerprint, or the files whose code changed since); empty if current."""
    from experiments import EXPERIMENTS  # the registry imports this module

    module = experiment_module(EXPERIMENTS[stored["experiment"]])
    return [f"run {index}: {reason}" for index, reason in stale_runs(stored, module)]


def status_table(folder=ROOT / "results"):
    """A Markdown table of the results files in ``folder``: tasks, runs, times, machines, and
    whether the code that computed them is still the repository's."""
    lines = ["| results file | tasks | runs | wall time | time in tasks | machine | code |",
             "|---|---|---|---|---|---|---|"]
    for path in sorted(Path(folder).glob("*.json")):
        stored = load_results(path)
        finished = [run for run in stored["runs"] if run.get("finished")]
        wall = wall_seconds(stored)
        in_tasks = sum(record["seconds"] for record in stored["tasks"].values())
        machines = sorted({f"{run['machine']['cpu']}, {run['machine']['cores']} cores"
                           for run in stored["runs"]})
        unfinished = len(stored["runs"]) - len(finished)
        runs = f"{len(stored['runs'])}" + (f" ({unfinished} not finished)" if unfinished else "")
        stale = staleness(stored)
        code = f"stale ({len(stale)} of {len(stored['runs'])} runs)" if stale else "current"
        lines.append(f"| `{path.name}` | {len(stored['tasks'])} | {runs} | {_clock(wall)} | "
                     f"{_clock(in_tasks)} | {'; '.join(machines)} | {code} |")
    return "\n".join(lines)
