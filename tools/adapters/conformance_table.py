#!/usr/bin/env python3
"""The framework x operation x dtype table of docs/conformance/README.md,
from the gate's -json reports given on the command line (plain Python 3).

    python3 tools/adapters/conformance_table.py docs/conformance/*.json

A cell is "ok" (every case run passed), "ok, part" (passed, but some
calls were answered unsupported: a reduction or a dtype the framework
lacks), "differs" (some failed as the framework's -xfail file expects:
by-design differences or known bugs), "FAIL" (a failure no xfail entry
explains), or "—" (nothing run: the adapter does not claim it, or every
call was answered unsupported).
"""

import json
import re
import sys

ALL_UNSUP = re.compile(r"(\d+) of (\d+) calls answered unsupported")

OPS = ["scatter", "scatter_add", "scatter_reduce", "index_reduce", "gather",
       "torch_scatter.scatter_add", "torch_scatter.scatter", "tensor.scatter", "tensor.gather"]
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
SHORT = {"conforms": "ok", "part": "ok, part", "differs": "differs", "FAIL": "FAIL", "unsupported": "—"}


def status(c):
    """A case's status, with "notoffered" for a case, or a random pair
    whose every call was, answered unsupported."""
    reason = c.get("reason", "")
    if c["status"] == "skip" and reason.startswith("not offered"):
        # an index PyTorch rejects, answered unsupported by design, is a
        # difference of its own (the README's list), not a gap
        return "badindex" if "PyTorch raises" in reason else "notoffered"
    m = ALL_UNSUP.search(c.get("note", ""))
    if c["status"] == "pass" and m and m.group(1) == m.group(2):
        return "notoffered"
    return c["status"]


def cell(counts):
    if counts.get("fail", 0) or counts.get("unsupported", 0):
        return "FAIL"
    if counts.get("xfail", 0):
        return "differs"
    if counts.get("pass", 0) or counts.get("xpass", 0):
        return "part" if counts.get("notoffered", 0) else "conforms"
    return "unsupported"


def main(paths):
    rows = []
    for path in paths:
        rep = json.load(open(path))
        for run in rep["runs"]:
            impl = run["implementation"]
            cells = {}
            for c in run["cases"]:
                if c.get("op") and c.get("dtype"):
                    k = (c["op"], c["dtype"])
                    cells.setdefault(k, {})
                    st = status(c)
                    cells[k][st] = cells[k].get(st, 0) + 1
            ops = [op for op in OPS if op in impl["ops"] or impl["ops"] == ["(all)"]]
            rows.append((impl, run, ops, cells, path))
    print("| framework | version | operation | " + " | ".join(DTYPES) + " |")
    print("|---|---|---|" + "---|" * len(DTYPES))
    for impl, run, ops, cells, path in rows:
        first = True
        for op in OPS:
            vals = [SHORT[cell(cells.get((op, dt), {})) if op in ops else "unsupported"] for dt in DTYPES]
            name = "%s ([report](%s))" % (impl["name"], path.split("/")[-1]) if first else ""
            print("| %s | %s | `%s` | %s |" % (name, impl["version"] if first else "", op, " | ".join(vals)))
            first = False
    print()
    for impl, run, ops, cells, path in rows:
        s = run["summary"]
        print("- %s %s (%s, %s, seed %d, %d checks): %d passed, %d expected failures, %d failed, %d skipped of %d cases"
              % (impl["name"], impl["version"], run["profile"], run["level"], run["seed"], run["checks"],
                 s.get("pass", 0), s.get("xfail", 0), s.get("fail", 0) + s.get("unsupported", 0), s.get("skip", 0),
                 s.get("total", 0)))


if __name__ == "__main__":
    main(sys.argv[1:])
