"""Tables printed in Chu (2003), typed once as CSV files, for the pages that set ours beside them.

Each file here is one table of the thesis (``table-4.7.csv`` is its Table 4.7): a first comment
line (``#``) that names the table and what its columns hold, then a header row and one row per
printed row, with the thesis's digits and an empty field where it prints nothing.
"""

import csv
from pathlib import Path

FOLDER = Path(__file__).resolve().parent


def thesis_table(name):
    """The rows of one table of the thesis.

    Parameters
    ----------
    name : str
        The file's name without ``.csv``, for example ``"table-4.7"``.

    Returns
    -------
    list of dict
        One dict per row, from column name to the printed text (a string; empty where the
        thesis prints nothing).
    """
    path = FOLDER / f"{name}.csv"
    if not path.is_file():
        known = sorted(p.stem for p in FOLDER.glob("*.csv"))
        raise FileNotFoundError(f"no thesis table {name!r}; the tables are {known}")
    with open(path, newline="", encoding="utf-8") as file:
        return list(csv.DictReader(line for line in file if not line.startswith("#")))
