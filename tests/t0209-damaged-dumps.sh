#!/bin/sh
# A real run whose dumps were damaged on the way (one empty, one cut in half): the engineer on
# call still gets the real culprits, and the damaged ranks are called what they are, unreadable,
# never "wrote no dump"; nothing says they stopped (they may wait like the others), so they are
# no culprits.
. "$(dirname "$0")/lib.sh"

if ! have_shared; then
    test_skip 'no ../shared' 'damaged copies of a real run'
    test_done
    exit 0
fi

test_expect_success 'an empty and a truncated dump: culprits 9,14, and 3 and 5 unreadable' '
    mkdir dmg &&
    cp "$REAL_DUMPS/lock_gil_1st"/_dump_* dmg/ &&
    : >dmg/_dump_3 &&
    head -c 757 "$REAL_DUMPS/lock_gil_1st/_dump_5" >dmg/_dump_5 &&
    test_expect_code 1 "$FRTRACE" -o db.json dmg >out 2>err &&
    grep "^frtrace: dmg/_dump_3: empty file$" err &&
    grep "^frtrace: dmg/_dump_5: truncated pickle at byte 757" err &&
    head -n 1 out | grep "^hang: ranks 9,14 never joined .*; ranks 3,5 left unreadable dumps$" &&
    test "$(head -n 1 out | wc -c)" -le 101 &&
    ! grep -q "wrote no dump" out &&
    python3 -c "
import json; d = json.load(open(\"db.json\"))
assert d[\"verdict\"][\"culprit_ranks\"] == [9, 14], d[\"verdict\"]
assert d[\"findings\"][0][\"kind\"] == \"missing_ranks\" and d[\"findings\"][0][\"ranks\"] == [9, 14]
rejected = sorted(f[\"ranks\"][0] for f in d[\"findings\"] if f[\"kind\"] == \"rejected_file\")
assert rejected == [3, 5], rejected
assert sorted(r[\"path\"] for r in d[\"input\"][\"files_rejected\"]) == [\"dmg/_dump_3\", \"dmg/_dump_5\"]"
'
test_done
