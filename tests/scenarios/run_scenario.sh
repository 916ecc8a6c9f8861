#!/bin/sh
# run_scenario.sh SCENARIO DIR [VERSION]: writes the scenario's dumps as pickles of VERSION
# (default 2.9) into DIR with our own writer, ready for frtrace.
set -e
here=$(cd "$(dirname "$0")" && pwd)
python3 "$here/gen.py" "$1" "$2.json"
mkdir -p "$2"
for f in "$2.json"/*.json; do
    b=$(basename "$f" .json)
    v=${3:-$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['version'])" "$f")}
    "$TOP/$BUILD/tests/mkdump" --version "$v" "$f" "$2/$b"
done
rm -rf "$2.json"
