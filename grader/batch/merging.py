"""Merging the shards' outputs into one run's (which shard a student belongs to is :mod:`grader.batch.shard`'s).

``python -m grader merge OUT... [--out DIR] [--allow-partial]`` reads every shard's ``grades.csv`` and
``grades.json`` (a folder holding both, or the files) and writes the ``grades.csv`` and ``grades.json``
of an unsharded run: the same rows in the same order (students sorted by folder name, as ``grade`` sorts
them), byte for byte, and the same JSON fields. A shard's students regraded apart (``grade --student NAME
--shard K/N`` into a folder of its own: ``grader.batch.regrade``) are given beside the shard's first
output, and each student's newest grade is kept (:func:`newest`, by the record's ``graded_at``), in any
order, but check by check a decided verdict of the same file is kept over a newer deferral of it
(``grader.batch.keep``); their ``regraded`` entries are listed together. It refuses shards of different N, a student in two
shards, the same grade of a student twice (a shard given twice), a student in a shard its name does not
hash to, a missing shard (unless ``--allow-partial``), and shards whose recorded settings differ (the
exercises and their checks, ``--deferred``, ``--lang``, ``--max-noise``, ``--allow``, ``--grader-checks``,
the kit's version).

Shards graded for different exercises of the same students (the CPU exercises on CPU nodes, ``--exercises
m6`` on a GPU node) merge into one grade per student: the shards of each exercise set are merged as above,
then the sets are combined, their checks in registry order, each student's points added up. It refuses an
exercise graded in two sets (naming a shard of each), sets that hold different students, settings that
differ between sets (all but the exercises), and ``--allow-partial`` (each set must be whole). Each entry
of the merged ``shards`` then also names its ``exercises``.

What cannot be the same as one run's (``PER_RUN``) is merged and documented:

- ``elapsed_s``: the sum of the shards' (the time spent grading, as one machine would have spent it; the
  wall time is the longest shard's);
- ``sandbox``, ``limits`` (key by key), ``environment`` (key by key) and ``judged_on`` (exercise by
  exercise, key by key): the value every shard recorded, ``null`` where shards differ (graded on different
  machines); combining exercise sets, each exercise's ``judged_on`` comes from the set that graded it;
- ``shards`` (only in a merged file): every shard's own ``index``, ``count``, ``students`` (how many),
  ``elapsed_s``, ``sandbox``, ``limits``, ``environment`` and ``from`` (the file read), by K, so shards
  graded on different machines are recorded, never dropped;
- ``missing_shards`` (only in a merged file): the K of every shard left out with ``--allow-partial``.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..registry import load_exercises
from ..reports.files import csv_points, csv_text, shared_back, without_percent, write_grades
from ..reports.table import fmt_points
from ..results.outcome import shown_name
from .errors import BatchError
from .keep import record_row, with_kept
from .shard import Shard, shard_of

#: Fields of grades.json that belong to one run, merged as the module docstring says.
PER_RUN = ("elapsed_s", "sandbox", "limits", "environment", "judged_on")
#: How the fields that must agree are named in an error (the option that sets them).
SETTING_NAMES = {
    "checks": "exercises (the checks graded: --exercises, --grader-checks)",
    "deferred_policy": "--deferred",
    "lang": "--lang",
    "max_noise": "--max-noise",
    "allow": "--allow",
    "grader_checks": "--grader-checks",
    "perfkit": "kit version (perfkit)",
}


# ---------------------------------------------------------------------------------------------------
# reading the shards' outputs


@dataclass(frozen=True)
class ShardOutput:
    """One shard's grades.csv (``rows``, header first) and grades.json (``data``), and where they are."""

    csv_path: Path
    json_path: Path
    rows: list[list[str]]
    data: dict[str, Any]
    shard: Shard

    @property
    def label(self) -> str:
        where = self.json_path.parent if self.json_path.name == "grades.json" else self.json_path
        return f"{where} (shard {self.shard})"

    @property
    def students(self) -> list[str]:
        return list(self.data["students"])

    @property
    def exercises(self) -> tuple[str, ...]:
        """The exercises this shard graded, from its checks' ``exercise::check`` names."""
        return tuple(dict.fromkeys(str(c).split("::", 1)[0] for c in self.data.get("checks", [])))


def output_files(paths: Iterable[str | os.PathLike[str]]) -> list[tuple[Path, Path]]:
    """``(grades.csv, grades.json)`` of every shard named: a folder holding both, or either file (its
    partner is the file beside it with the same name and the other suffix), in the order given."""
    pairs: list[tuple[Path, Path]] = []
    for given in paths:
        path = Path(given)
        if not path.exists():
            raise BatchError(f"{os.fspath(given)!r} not found")
        if path.is_dir():
            pair = (path / "grades.csv", path / "grades.json")
        elif path.suffix in (".csv", ".json"):
            pair = (path.with_suffix(".csv"), path.with_suffix(".json"))
        else:
            raise BatchError(f"{os.fspath(given)!r} is neither a folder nor a grades.csv or grades.json file")
        for file in pair:
            if not file.is_file():
                raise BatchError(f"{os.fspath(given)!r}: {file} not found (run python -m grader grade first)")
        if all(os.path.realpath(p) != os.path.realpath(pair[1]) for _, p in pairs):
            pairs.append(pair)  # a folder and its files, named both: one shard
    if not pairs:
        raise BatchError("no shard outputs given")
    return pairs


def read_output(csv_path: Path, json_path: Path) -> tuple[list[list[str]], dict[str, Any]]:
    """The rows (header first) and the data of one run's grades.csv and grades.json (a shard's, a merged
    one's or a whole run's), checked against each other; a BatchError says what is wrong."""
    try:
        with open(csv_path, encoding="utf-8", newline="") as fh:
            rows = without_percent(list(csv.reader(fh)))  # a column of the file, not of the rows
        data = json.loads(json_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, csv.Error) as exc:
        raise BatchError(f"cannot read {csv_path} and {json_path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("students"), dict):
        raise BatchError(f"{json_path} is not a grades.json written by python -m grader grade")
    if not all(isinstance(record, dict) for record in data["students"].values()):
        raise BatchError(f"{json_path} holds a student record that is no object: not a grades.json of grade")
    data["students"] = {name: shared_back(record) for name, record in data["students"].items()}
    header = ["student", "score", "max_score", "deferred_points", *data.get("checks", [])]
    if not rows or rows[0] != header:
        raise BatchError(f"{csv_path}'s columns are not the checks {json_path} records")
    for name in data["students"]:
        if name != shown_name(
            name
        ):  # an edited file, or an older kit's: its rows cannot be written back as they are
            raise BatchError(
                f"{json_path}: the student name {name!r} is not one python -m grader grade writes"
            )
    if [row[0] for row in rows[1:]] != [csv_text(name) for name in data["students"]]:
        raise BatchError(f"{csv_path} and {json_path} list different students: not one run's output")
    return rows, data


def read_shard_output(csv_path: Path, json_path: Path) -> ShardOutput:
    """One shard's two files, checked against each other; a BatchError says what is wrong."""
    rows, data = read_output(csv_path, json_path)
    record = data.get("shard")
    if not isinstance(record, dict):
        raise BatchError(
            f"{json_path} was not graded with --shard (it has no shard record; an unsharded or merged "
            "run's output): nothing to merge"
        )
    try:
        shard = Shard(int(record["index"]), int(record["count"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise BatchError(f"{json_path}: a broken shard record {record!r} ({exc})") from None
    return ShardOutput(csv_path, json_path, rows, data, shard)


# ---------------------------------------------------------------------------------------------------
# merging


def agreed(values: Sequence[Any]) -> Any:
    """The value all of ``values`` share; for dicts, key by key; None where they differ."""
    if all(isinstance(v, dict) for v in values):
        keys = list(dict.fromkeys(k for v in values for k in v))
        return {k: agreed([v.get(k) for v in values]) for k in keys}
    return values[0] if all(v == values[0] for v in values) else None


def _settings(output: ShardOutput) -> dict[str, Any]:
    """What must be the same in every shard: every field but the per-run ones and the students, the
    shard's recorded settings, and the kit's version."""
    data = output.data
    fields = {k: v for k, v in data.items() if k not in (*PER_RUN, "students", "shard", "regraded")}
    fields.update(data["shard"].get("settings", {}))
    environment = data.get("environment")
    fields["perfkit"] = environment.get("perfkit") if isinstance(environment, dict) else None
    return fields


def _check_alike(outputs: Sequence[ShardOutput]) -> None:
    first = outputs[0]
    for other in outputs[1:]:
        if other.shard.count != first.shard.count:
            raise BatchError(
                f"shards of different N: {first.label} and {other.label}; "
                "merge the shards of one sharding of the students"
            )
    expected = _settings(first)
    for other in outputs[1:]:
        settings = _settings(other)
        for key in dict.fromkeys([*expected, *settings]):
            if expected.get(key) != settings.get(key):
                name = SETTING_NAMES.get(key, key)
                raise BatchError(
                    f"{first.label} and {other.label} were graded with different {name}: "
                    f"{expected.get(key)!r} and {settings.get(key)!r}; grade every shard with the same settings"
                )


def graded_at(output: ShardOutput, name: str) -> str:
    """When the run that graded ``name`` in ``output`` started ("" in a kit's output from before it said)."""
    return str(output.data["students"][name].get("graded_at") or "")


def newest(outputs: Sequence[ShardOutput]) -> dict[str, ShardOutput]:
    """For every student, the output whose grade of them is the newest: a shard regraded in part
    (``grade --student NAME --shard K/N``) is given beside the shard's first output, and its students'
    newer grades replace the older ones. The same grade of a student twice (a shard given twice) is
    refused, as is a student in two shards."""
    chosen: dict[str, ShardOutput] = {}
    for output in outputs:
        for name in output.students:
            other = chosen.get(name)
            if other is None:
                chosen[name] = output
                continue
            when, before = graded_at(output, name), graded_at(other, name)
            if other.shard.index != output.shard.index or not when or not before or when == before:
                raise BatchError(f"student {name!r} is in both {other.label} and {output.label}")
            if when > before:
                chosen[name] = output
    return chosen


def _check_students(outputs: Sequence[ShardOutput]) -> None:
    newest(outputs)  # refuses a student graded in two shards, or the same grade twice
    for output in outputs:
        for name in output.students:
            if not output.shard.holds(name):
                raise BatchError(
                    f"student {name!r} of {output.label} belongs to shard "
                    f"{shard_of(name, output.shard.count)}/{output.shard.count}: not graded by this kit's "
                    "--shard (a different kit version, or an edited file)"
                )
    by_index: dict[int, ShardOutput] = {}
    for output in outputs:
        first = by_index.setdefault(output.shard.index, output)
        if first is not output and not output.students:  # a regrade holds its students; this, none
            raise BatchError(f"shard {output.shard} is given twice: {first.json_path} and {output.json_path}")


def missing_shards(outputs: Sequence[ShardOutput]) -> list[int]:
    """The K of every shard of N that is not among ``outputs``."""
    present = {o.shard.index for o in outputs}
    return [k for k in range(1, outputs[0].shard.count + 1) if k not in present]


def merged_grades(
    outputs: Sequence[ShardOutput], allow_partial: bool = False
) -> tuple[list[list[str]], dict[str, Any]]:
    """The rows of the merged grades.csv (header first) and the merged grades.json (see the module
    docstring); a BatchError says why the shards cannot be merged."""
    if not outputs:
        raise BatchError("no shard outputs given")
    sets: dict[tuple[str, ...], list[ShardOutput]] = {}
    for output in outputs:
        sets.setdefault(output.exercises, []).append(output)
    if len(sets) == 1:
        return _merged_set(outputs, allow_partial)
    return _combined_sets(list(sets.values()), allow_partial)


def _merged_set(
    outputs: Sequence[ShardOutput], allow_partial: bool
) -> tuple[list[list[str]], dict[str, Any]]:
    """The shards of one exercise set merged into one run's files."""
    outputs = sorted(outputs, key=lambda o: o.shard.index)
    _check_alike(outputs)
    _check_students(outputs)
    missing = missing_shards(outputs)
    if missing and not allow_partial:
        count = outputs[0].shard.count
        raise BatchError(
            f"shard{'s' if len(missing) > 1 else ''} {', '.join(f'{k}/{count}' for k in missing)} missing "
            f"(got {', '.join(str(o.shard) for o in outputs)}); merge every shard, or pass --allow-partial"
        )
    # the JSON's names: the CSV's first cells may carry the apostrophe that keeps a name from being a formula
    chosen = newest(outputs)  # a student regraded apart: the newest grade
    rows_by_name = {
        name: row
        for o in outputs
        for name, row in zip(o.data["students"], o.rows[1:], strict=True)
        if chosen[name] is o
    }
    students_by_name = {
        name: s for o in outputs for name, s in o.data["students"].items() if chosen[name] is o
    }
    policy = outputs[0].data.get("deferred_policy", "defer")
    for name, record in students_by_name.items():  # a check's decided grade over a newer deferral of it
        older = sorted(
            (o for o in outputs if name in o.data["students"] and o is not chosen[name]),
            key=lambda o: graded_at(o, name),
            reverse=True,
        )
        kept_record = with_kept(record, [o.data["students"][name] for o in older], policy)
        if kept_record is not record:
            students_by_name[name] = kept_record
            rows_by_name[name] = record_row(name, kept_record, outputs[0].rows[0][4:])
    order = sorted(rows_by_name)  # as grade sorts the folders
    rows = [outputs[0].rows[0], *(rows_by_name[name] for name in order)]
    merged: dict[str, Any] = {}
    for key, value in outputs[0].data.items():
        if key == "students":
            merged[key] = {name: students_by_name[name] for name in order}
        elif key == "elapsed_s":
            merged[key] = round(sum(float(o.data.get(key) or 0) for o in outputs), 3)
        elif key in PER_RUN:
            merged[key] = agreed([o.data.get(key) for o in outputs])
        elif key in ("regraded", "html"):  # a run's pages are no merged output's
            continue
        elif key != "shard":
            merged[key] = value
    regraded = [entry for o in outputs for entry in o.data.get("regraded", [])]
    if regraded:
        merged["regraded"] = regraded
    merged["shards"] = [
        {
            "index": o.shard.index,
            "count": o.shard.count,
            "students": len(o.students),
            **{key: o.data.get(key) for key in PER_RUN},
            "from": str(o.json_path),
        }
        for o in outputs
    ]
    merged["missing_shards"] = missing
    return rows, merged


def _exercise_owners(sets: Sequence[Sequence[ShardOutput]], allow_partial: bool) -> None:
    """Refuse exercise sets that share an exercise (naming a shard of each), and ``--allow-partial``."""
    graded_by: dict[str, ShardOutput] = {}
    for outputs in sets:
        for exercise in outputs[0].exercises:
            if exercise in graded_by:
                raise BatchError(
                    f"exercise {exercise} is graded in both {graded_by[exercise].label} and {outputs[0].label}: "
                    "shards graded for different exercises must not share one; merge one grading of each"
                )
            graded_by[exercise] = outputs[0]
    if allow_partial:
        raise BatchError(
            "--allow-partial cannot combine shards graded for different exercises: every student needs a "
            "grade for each; merge each exercise set's shards whole"
        )


def registry_order(grader_checks: Sequence[str]) -> Callable[[str], tuple[int, str]]:
    """The sort key of an exercise id: its place in the registry (with ``grader_checks``' exercises), then
    its name; an exercise the registry does not know comes last."""
    rank = {e: i for i, e in enumerate(load_exercises(grader_checks))}

    def order(exercise: str) -> tuple[int, str]:
        return (rank.get(exercise, len(rank)), exercise)

    return order


def _check_sets_alike(merged: Sequence[dict[str, Any]], sets: Sequence[Sequence[ShardOutput]]) -> None:
    """Refuse merged exercise sets graded with different settings (all but the exercises) or for
    different students, naming a shard of the first set and of the other."""
    first, first_label = merged[0], sets[0][0].label
    for other, outputs in zip(merged[1:], sets[1:], strict=True):
        for key in dict.fromkeys([*first, *other]):
            if key in (*PER_RUN, "students", "checks", "shards", "missing_shards", "regraded"):
                continue
            if first.get(key) != other.get(key):
                raise BatchError(
                    f"{first_label} and {outputs[0].label} were graded with different "
                    f"{SETTING_NAMES.get(key, key)}: {first.get(key)!r} and {other.get(key)!r}"
                )
        if list(other["students"]) != list(first["students"]):
            extra = sorted(set(other["students"]) ^ set(first["students"]))
            raise BatchError(
                f"{first_label} and {outputs[0].label} hold different students ({', '.join(map(repr, extra[:5]))}"
                f"{', ...' if len(extra) > 5 else ''}): grade every exercise set for the same submissions"
            )


def combined_record(records: Sequence[dict[str, Any]], column: dict[str, int], policy: str) -> dict[str, Any]:
    """One student's grades.json record from their ``records`` of each exercise set: the outcomes in the
    checks' order (``column``: each ``exercise::check``'s place), the points added up as one run adds them
    under the deferred ``policy``."""
    outcomes = sorted(
        (o for r in records for o in r["outcomes"]),
        key=lambda o: column[f"{o['exercise']}::{o['check_id']}"],
    )
    return {
        "score": float(sum(o["points"] for o in outcomes)),  # as totals() adds them, in check order
        "max_score": float(
            sum(0.0 if o["deferred"] and policy == "defer" else float(o["max_points"]) for o in outcomes)
        ),
        "deferred_points": float(sum(o["max_points"] for o in outcomes if o["deferred"])),
        "notes": list(dict.fromkeys(n for r in records for n in r.get("notes", []))),
        "graded_at": max((str(r.get("graded_at") or "") for r in records), default=""),
        "files": {e: key for r in records for e, key in (r.get("files") or {}).items()},
        "notebooks": list(dict.fromkeys(n for r in records for n in r.get("notebooks") or [])),
        "outcomes": outcomes,
    }


def _combined_data(
    merged: Sequence[dict[str, Any]],
    sets: Sequence[Sequence[ShardOutput]],
    students: dict[str, Any],
    checks: list[str],
) -> dict[str, Any]:
    """The combined grades.json: the first set's fields in its order, the per-run ones merged over every
    set (each exercise's ``judged_on`` from the set that graded it), each ``shards`` entry naming its
    set's exercises."""
    data: dict[str, Any] = {}
    for key, value in merged[0].items():
        if key == "students":
            data[key] = students
        elif key == "checks":
            data[key] = checks
        elif key == "elapsed_s":
            data[key] = round(sum(float(d.get(key) or 0) for d in merged), 3)
        elif key == "judged_on":  # each exercise's record from the set that graded it
            data[key] = {e: r for d in merged for e, r in (d.get(key) or {}).items()}
        elif key in PER_RUN:
            data[key] = agreed([d.get(key) for d in merged])
        elif key in ("regraded", "html"):  # a run's pages are no merged output's
            continue
        elif key == "shards":
            data[key] = [
                {**entry, "exercises": list(outputs[0].exercises)}
                for d, outputs in zip(merged, sets, strict=True)
                for entry in d["shards"]
            ]
        else:
            data[key] = value
    regraded = [entry for d in merged for entry in d.get("regraded", [])]
    if regraded:
        data["regraded"] = regraded
    return data


def combined_rows(students: dict[str, Any], checks: list[str]) -> list[list[str]]:
    """The combined grades.csv, header first: one row per student, a cell per check of ``checks``."""
    rows = [["student", "score", "max_score", "deferred_points", *checks]]
    for name, record in students.items():
        points = {
            f"{o['exercise']}::{o['check_id']}": csv_points(o["points"], bool(o["deferred"]))
            for o in record["outcomes"]
        }
        rows.append(
            [
                csv_text(name),
                fmt_points(record["score"]),
                fmt_points(record["max_score"]),
                fmt_points(record["deferred_points"]),
                *(points.get(c, "") for c in checks),
            ]
        )
    return rows


def _combined_sets(
    sets: list[list[ShardOutput]], allow_partial: bool
) -> tuple[list[list[str]], dict[str, Any]]:
    """Shards graded for different exercises of the same students, one grade per student."""
    _exercise_owners(sets, allow_partial)
    order = registry_order(sets[0][0].data["shard"].get("settings", {}).get("grader_checks", ()))
    sets = sorted(sets, key=lambda outputs: order(outputs[0].exercises[0]))
    merged = [_merged_set(outputs, False)[1] for outputs in sets]
    _check_sets_alike(merged, sets)
    checks = sorted((c for data in merged for c in data["checks"]), key=lambda c: order(c.split("::", 1)[0]))
    column = {c: i for i, c in enumerate(checks)}
    policy = merged[0].get("deferred_policy", "defer")
    students = {
        name: combined_record([data["students"][name] for data in merged], column, policy)
        for name in merged[0]["students"]
    }
    return combined_rows(students, checks), _combined_data(merged, sets, students, checks)


def write_merged(
    rows: list[list[str]],
    data: dict[str, Any],
    out: str | os.PathLike[str],
    inputs: Sequence[ShardOutput] = (),
) -> list[Path]:
    """Write the merged grades.csv and grades.json under ``out`` (each replaced whole, never half
    written); refuse to overwrite a shard's own files. Returns the paths."""
    folder = Path(out)
    csv_path, json_path = folder / "grades.csv", folder / "grades.json"
    read = {os.path.realpath(p) for o in inputs for p in (o.csv_path, o.json_path)}
    for path in (csv_path, json_path):
        if os.path.realpath(path) in read:
            raise BatchError(f"--out {os.fspath(out)!r} would overwrite the shard output {path}")
    return write_grades(folder, rows, data)


def merge_notes(data: dict[str, Any]) -> list[str]:
    """What a merged grades.json says differed between its shards, or was left out: lines to print."""
    notes = []
    shards = data.get("shards", [])
    for key in ("sandbox", "limits", "environment"):
        values = [s.get(key) for s in shards]
        if all(isinstance(v, dict) for v in values):
            keys = dict.fromkeys(k for v in values for k in v)
            differ = [k for k in keys if len({json.dumps(v.get(k), sort_keys=True) for v in values}) > 1]
            if differ:
                notes.append(
                    f"the shards differ in {key} ({', '.join(differ)}): grades.json's shards has each shard's own"
                )
        elif len({json.dumps(v, sort_keys=True) for v in values}) > 1:
            which: dict[str, list[str]] = {}
            for shard, value in zip(shards, values, strict=True):
                which.setdefault(str(value), []).append(f"{shard['index']}/{shard['count']}")
            each = "; ".join(f"{', '.join(ks)}: {value}" for value, ks in which.items())
            notes.append(f"the shards differ in {key} ({each}): grades.json's shards has each shard's own")
    missing = data.get("missing_shards") or []
    if missing and shards:
        count = shards[0]["count"]
        notes.append(
            f"partial merge: shard{'s' if len(missing) > 1 else ''} {', '.join(f'{k}/{count}' for k in missing)} "
            "missing; their students are not in the grades"
        )
    return notes
