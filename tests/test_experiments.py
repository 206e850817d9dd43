"""The experiment runner: the same numbers serially, on local workers and on a Dask cluster;
resuming after an interruption; clear errors for bad options."""

import json
import subprocess
import sys

import pytest
from dask.distributed import LocalCluster  # kmlib[cluster], installed by kmlib[test]

from experiments import EXPERIMENTS
from experiments.__main__ import main
from experiments.runner import load_results

# small configurations of two experiments: one with two phases (the second uses the first's
# results), one whose tasks fit BSVR by SMO and L-BFGS-B
SMALL = {
    "table-5.3": ["--sets", "heart", "--splits", "3"],
    "table-4.3": ["--sizes", "50,100", "--betas", "0.3", "--splits", "2"],
}


def without_times(value):
    """A task's result without its timings (stored under keys named "seconds")."""
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k != "seconds"}
    return value


def numbers(path):
    """Each task's arguments and results but its timings: what must not depend on where a task
    ran."""
    tasks = load_results(path)["tasks"]
    return {key: (record["kwargs"], without_times(record["result"]))
            for key, record in tasks.items()}


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serial")
    paths = {}
    for name, args in SMALL.items():
        paths[name] = folder / f"{name}.json"
        main([name, *args, "--out", str(paths[name])])
    return paths


@pytest.mark.parametrize("name", SMALL)
def test_local_workers_give_the_serial_numbers(name, serial, tmp_path):
    out = tmp_path / "parallel.json"
    main([name, *SMALL[name], "--n-jobs", "2", "--out", str(out)])
    stored = load_results(out)
    assert stored["runs"][-1]["backend"] == "loky n_jobs=2"
    workers = {record["worker"] for record in stored["tasks"].values()}
    assert len(workers) == 2  # the tasks really ran in two processes
    assert numbers(out) == numbers(serial[name])


def test_a_dask_cluster_gives_the_serial_numbers(serial, tmp_path):
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        for name, args in SMALL.items():
            out = tmp_path / f"{name}.json"
            main([name, *args, "--dask", cluster.scheduler_address, "--out", str(out)])
            stored = load_results(out)
            assert stored["runs"][-1]["backend"].startswith("dask tcp://")
            assert numbers(out) == numbers(serial[name])


def test_the_results_file_records_provenance(serial):
    stored = load_results(serial["table-5.3"])
    run = stored["runs"][-1]
    assert len(run["commit"]) == 40 and run["finished"] >= run["started"]
    assert run["machine"]["cores"] >= 1 and run["versions"]["numpy"]
    assert run["options"] == {"splits": 3, "sets": ["heart"]}
    # five tuning partitions, then three test partitions at the fitted and at the thesis's
    # hyperparameters, each with its seconds and worker
    assert sorted(stored["tasks"]) == [f"heart/split-00{i}" for i in range(3)] + [
        f"heart/thesis-00{i}" for i in range(3)] + [f"heart/tune-{i}" for i in range(5)]
    for record in stored["tasks"].values():
        assert record["seconds"] > 0 and ":" in record["worker"]


# the command line, run in a process that sends itself SIGINT (Ctrl-C) as soon as the results
# file first holds a finished task: a real interruption, at a moment that does not depend on
# how busy the machine is. Python's own Ctrl-C handler is installed first, as in a terminal: a
# test run started in the background inherits SIGINT ignored
INTERRUPT_AFTER_FIRST_TASK = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
from experiments import __main__ as command, runner
save = runner.ResultsFile.save
def save_then_interrupt(self):
    save(self)
    if self.data["tasks"]:
        os.kill(os.getpid(), signal.SIGINT)
runner.ResultsFile.save = save_then_interrupt
command.main(sys.argv[1:])
"""


def test_an_interrupted_run_resumes_without_redoing_finished_tasks(serial, tmp_path):
    out = tmp_path / "interrupted.json"
    options = ["table-4.3", *SMALL["table-4.3"], "--out", str(out)]
    interrupted = subprocess.run([sys.executable, "-c", INTERRUPT_AFTER_FIRST_TASK, *options],
                                 capture_output=True, text=True, timeout=300)
    assert interrupted.returncode == 130  # stopped by the interruption, not finished
    assert "the same command resumes" in interrupted.stderr
    done = load_results(out)["tasks"]
    total = len(numbers(serial["table-4.3"]))
    assert 1 <= len(done) < total, "the run was not interrupted before its end"

    resumed = subprocess.run([sys.executable, "-m", "experiments", *options],
                             capture_output=True, text=True, check=True)
    assert f"{len(done)} of {total} tasks already done" in resumed.stderr
    stored = load_results(out)
    for key, record in done.items():  # kept as they were, not recomputed
        assert stored["tasks"][key] == record
    assert len(stored["runs"]) == 2
    assert numbers(out) == numbers(serial["table-4.3"])


def test_more_splits_extend_a_finished_run(serial, tmp_path):
    out = tmp_path / "extended.json"
    out.write_text(serial["table-4.3"].read_text())
    before = load_results(out)["tasks"]
    main(["table-4.3", "--sizes", "50,100", "--betas", "0.3", "--splits", "3", "--out", str(out)])
    after = load_results(out)["tasks"]
    assert len(after) == 6 and all(after[key] == record for key, record in before.items())


@pytest.mark.parametrize("args, message", [
    (["table-4.7", "--splits", "0"], "must be at least 1"),
    (["table-4.7", "--splits", "many"], "is not a whole number"),
    (["table-4.7", "--n-jobs", "0"], "-1 for every core"),
    (["table-4.7", "--dask", "my cluster"], "is not a Dask scheduler address"),
    (["table-4.7", "--n-jobs", "2", "--dask", "tcp://127.0.0.1:8786"], "not allowed with"),
    (["table-4.7", "--sets", "mars"], "unknown data set 'mars'"),
    (["table-4.3", "--betas", "2"], "beta must lie in (0, 1]"),
    (["figure-4.3", "--windows", "5"], "a number of windows from 10 to 992, got 5"),
    (["table-9.9"], "invalid choice: 'table-9.9'"),
])
def test_a_bad_option_gets_a_clear_error(args, message, capsys):
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_an_unreachable_scheduler_gets_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="no Dask scheduler answered at tcp://127.0.0.1:9"):
        main(["table-4.3", "--sizes", "50", "--splits", "1", "--dask", "tcp://127.0.0.1:9",
              "--out", str(tmp_path / "unreachable.json")])


def test_a_results_file_of_other_arguments_is_not_mixed_in(serial, tmp_path):
    out = tmp_path / "other.json"
    stored = load_results(serial["table-4.3"])
    stored["tasks"]["beta-0.3/n-50/draw-0"]["kwargs"]["n"] = 60  # as if made by other code
    out.write_text(json.dumps(stored))
    with pytest.raises(SystemExit, match="holds task beta-0.3/n-50/draw-0 run with"):
        main(["table-4.3", "--sizes", "50", "--betas", "0.3", "--out", str(out)])
    with pytest.raises(SystemExit, match="holds the results of 'table-4.3'"):
        main(["table-5.3", "--sets", "heart", "--out", str(out)])


def test_another_data_set_joins_the_same_results_file(serial, tmp_path):
    out = tmp_path / "joined.json"
    out.write_text(serial["table-5.3"].read_text())
    main(["table-5.3", "--sets", "heart,breast", "--splits", "2", "--out", str(out)])
    stored = load_results(out)
    assert len(stored["tasks"]) == 11 + 5 + 2 + 2  # heart's kept, breast's added
    assert stored["runs"][-1]["options"] == {"splits": 2, "sets": ["heart", "breast"]}


def test_every_experiment_has_a_caption_and_a_full_protocol():
    for experiment in EXPERIMENTS.values():
        assert experiment.caption.startswith(("Chu (2003)", "MLAPP")) and experiment.default_splits >= 1


def test_status_lists_each_results_file_with_its_times(serial):
    from experiments.runner import status_table

    table = status_table(serial["table-5.3"].parent).splitlines()
    assert table[0].startswith("| results file | tasks | runs |")
    rows = {line.split("|")[1].strip(): line.split("|") for line in table[2:]}
    assert rows["`table-5.3.json`"][2].strip() == "11"  # 5 tuning + 3 + 3 partitions
    assert rows["`table-4.3.json`"][3].strip() == "1"


def test_every_thesis_table_names_its_source_and_has_full_rows():
    from experiments.thesis_tables import FOLDER, thesis_table

    files = sorted(FOLDER.glob("*.csv"))
    assert files
    for path in files:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# source: Chu (2003), Table"), f"{path.name}: {first}"
        rows = thesis_table(path.stem)
        assert rows and all(None not in row and None not in row.values() for row in rows), (
            f"{path.name}: a row with more or fewer fields than the header"
        )
