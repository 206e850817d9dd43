"""Command line: ``python -m experiments NAME [--splits N] [--n-jobs J | --dask A] [--out F]``."""

import argparse
import re
import sys
from pathlib import Path

from experiments import EXPERIMENTS
from experiments.runner import ROOT, RunnerError, run_experiment, status_table


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def n_jobs(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value == 0 or value < -1:
        raise argparse.ArgumentTypeError(
            f"must be a number of processes (1, 2, ...) or -1 for every core, got {value}")
    return value


def scheduler_address(text):
    if not re.fullmatch(r"(tcp|tls|inproc|ucx)://[^\s/]+(:\d+)?|[A-Za-z0-9_.\-]+:\d+", text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a Dask scheduler address such as tcp://10.0.0.5:8786")
    return text


def list_of(parse, name):
    def parse_list(text):
        items = [item.strip() for item in text.split(",") if item.strip()]
        if not items:
            raise argparse.ArgumentTypeError(f"--{name} needs at least one value")
        try:
            return [parse(item) for item in items]
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return parse_list


def parser():
    top = argparse.ArgumentParser(
        prog="python -m experiments",
        description="Run a table or figure of Chu (2003) at the thesis's protocol, or MLAPP's "
                    "Table 14.1 at the full protocol of its page.")
    commands = top.add_subparsers(dest="name", required=True, metavar="NAME",
                                  title="experiments")
    commands.add_parser("status", help="list the stored results files, their tasks and times")
    for experiment in EXPERIMENTS.values():
        command = commands.add_parser(experiment.name, help=experiment.caption,
                                      description=experiment.caption)
        command.add_argument("--splits", type=positive_int, default=experiment.default_splits,
                             help="partitions or repetitions (default: the full protocol's, "
                                  f"{experiment.default_splits})")
        where = command.add_mutually_exclusive_group()
        where.add_argument("--n-jobs", type=n_jobs, default=1,
                           help="local worker processes, -1 for every core (default 1)")
        where.add_argument("--dask", type=scheduler_address, metavar="SCHEDULER_ADDRESS",
                           help="run on this Dask cluster (needs kmlib[cluster])")
        command.add_argument("--out", type=Path,
                             help=f"results file (default results/{experiment.name}.json); "
                                  "an existing file is resumed")
        for option, (parse, default, text) in experiment.options.items():
            command.add_argument(f"--{option}", type=list_of(parse, option), default=default,
                                 help=f"{text} (comma-separated; default "
                                      f"{','.join(map(str, default))})")
    return top


def main(argv=None):
    args = parser().parse_args(argv)
    if args.name == "status":
        print(status_table())
        return
    experiment = EXPERIMENTS[args.name]
    options = {"splits": args.splits}
    options.update({name: getattr(args, name) for name in experiment.options})
    out = args.out or ROOT / "results" / f"{experiment.name}.json"
    try:
        results = run_experiment(experiment, options, out, n_jobs=args.n_jobs,
                                 dask_address=args.dask)
    except RunnerError as error:
        sys.exit(f"python -m experiments {experiment.name}: {error}")
    except KeyboardInterrupt:
        # every finished task is already in the file; the same command resumes from it
        print(f"\ninterrupted; the finished tasks are saved in {out}, and the same command "
              "resumes from them", file=sys.stderr)
        sys.exit(130)
    print(experiment.summarise(options, results))


if __name__ == "__main__":
    main()
