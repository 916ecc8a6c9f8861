#!/usr/bin/env python3
"""check.py DB.json STATUS CULPRITS [KIND[:RANKS]]... — asserts a frtrace database.

CULPRITS is "-" for none or a comma list; each KIND must appear among the findings, and with
":RANKS" a finding of that kind must name exactly those ranks. The database must also be valid
against the project's JSON Schema (tests/tools/validate_db.py)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from validate_db import validate  # noqa: E402  (every database checked is also schema-valid)

db = json.load(open(sys.argv[1]))
validate(db)
v = db["verdict"]
want = [] if sys.argv[3] == "-" else [int(x) for x in sys.argv[3].split(",")]
assert v["status"] == sys.argv[2], "status %s, expected %s (%s)" % (v["status"], sys.argv[2], v["summary"])
assert v["culprit_ranks"] == want, "culprits %s, expected %s (%s)" % (v["culprit_ranks"], want, v["summary"])
for spec in sys.argv[4:]:
    kind, _, ranks = spec.partition(":")
    found = [f for f in db["findings"] if f["kind"] == kind]
    assert found, "no %s finding in %s" % (kind, [f["kind"] for f in db["findings"]])
    if ranks:
        r = [int(x) for x in ranks.split(",")]
        assert any(f["ranks"] == r for f in found), "%s findings name %s, expected %s" % (kind, [f["ranks"] for f in found], r)
