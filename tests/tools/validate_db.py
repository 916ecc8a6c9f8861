#!/usr/bin/env python3
"""validate_db.py DB.json... — checks frtrace databases against the JSON Schema the project ships
(man/frtrace-db.schema.json), plus what a schema cannot say: culprit_ranks sorted ascending,
findings ordered root causes, then victims' evidence, then warnings. Exits 1 naming the first
problem of each file. Also importable: validate(db) raises AssertionError.
"""
import json
import os
import sys

import jsonschema

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "man",
                           "frtrace-db.schema.json")
ROOT_CAUSES = {"missing_ranks", "type_mismatch", "size_mismatch", "dtype_mismatch", "state_mismatch",
               "alltoall_size_mismatch", "stuck_collective", "missing_dump", "mixed_jobs"}


def order_class(finding):
    if finding.get("warning"):
        return 2
    return 0 if finding["kind"] in ROOT_CAUSES else 1


def validate(db):
    with open(SCHEMA_PATH) as f:
        schema = json.load(f)
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(db), key=lambda e: list(e.path))
    assert not errors, "%s: %s" % ("/".join(map(str, errors[0].path)), errors[0].message[:300])
    culprits = db["verdict"]["culprit_ranks"]
    assert culprits == sorted(set(culprits)), "culprit_ranks not sorted and unique: %s" % culprits
    classes = [order_class(f) for f in db["findings"]]
    assert classes == sorted(classes), "findings not ordered root causes, evidence, warnings: %s" % (
        [f["kind"] for f in db["findings"]])


def main():
    bad = 0
    for path in sys.argv[1:]:
        try:
            with open(path) as f:
                validate(json.load(f))
        except (AssertionError, ValueError) as e:
            print("%s: %s" % (path, e))
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
