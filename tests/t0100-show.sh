#!/bin/sh
# `frtrace show`: a user decodes dumps and sees exactly what Python's json.dumps(pickle.load(f))
# shows — for the real 2.9 dumps, the synthetic 2.0/2.4/2.10 pickles and JSON, and for random
# values pickled by Python with every protocol 0..5.
. "$(dirname "$0")/lib.sh"

have_python() { command -v python3 >/dev/null 2>&1; }
TOOLS="$TOP/tests/tools"

test_expect_success 'show --help explains the command and exits 0' '
    "$FRTRACE" show --help >out &&
    grep -q "usage: frtrace show" out
'

test_expect_success 'show without a file is a usage error (exit 2)' '
    test_expect_code 2 "$FRTRACE" show 2>err &&
    grep -q "no FILE" err
'

test_expect_success 'show with an unknown option is a usage error (exit 2)' '
    test_expect_code 2 "$FRTRACE" show --bogus x 2>err &&
    grep -q "unknown option --bogus" err
'

if have_shared && have_python; then
    list_shared() {
        ls "$REAL_DUMPS"/*/_dump_* "$SYNTH_DUMPS"/v2.0_pickle_rank_0 "$SYNTH_DUMPS"/v2.4_pickle_rank_0 \
           "$SYNTH_DUMPS"/v2.10_pickle_rank_0 "$SYNTH_DUMPS"/v2.10_json_rank_0.json
    }
    test_expect_success 'all 64 real dumps and the synthetic 2.0/2.4/2.10 pickles + JSON show as Python does' '
        files=$(list_shared) &&
        test "$(echo "$files" | wc -l)" = 68 &&
        "$FRTRACE" show $files >got &&
        python3 "$TOOLS/pyshow.py" $files >want &&
        test "$(wc -l <got)" = 68 &&
        cmp got want
    '
    test_expect_success 'the same with --pretty equals json.dumps(indent=2)' '
        files=$(list_shared) &&
        "$FRTRACE" show --pretty $files >got &&
        python3 "$TOOLS/pyshow.py" --pretty $files >want &&
        cmp got want
    '
    test_expect_success 'a real dump rewritten by Python with every protocol shows the same' '
        for p in 0 1 2 3 4 5; do
            python3 -c "import pickle,sys; v=pickle.load(open(sys.argv[1],\"rb\")); pickle.dump(v, open(\"p$p\",\"wb\"), protocol=$p)" \
                "$REAL_DUMPS/gpu_error_1st/_dump_0" || exit 1
        done &&
        "$FRTRACE" show p0 p1 p2 p3 p4 p5 >got &&
        "$FRTRACE" show "$REAL_DUMPS/gpu_error_1st/_dump_0" >one &&
        for i in 1 2 3 4 5 6; do cat one || exit 1; done >want &&
        cmp got want
    '
else
    test_skip 'no ../shared or no python3' 'real and synthetic dumps show as Python does'
    test_skip 'no ../shared or no python3' 'the same with --pretty'
    test_skip 'no ../shared or no python3' 'real dump rewritten with every protocol'
fi

if have_python; then
    test_expect_success '200 random values x protocols 0-5 show exactly as json.dumps' '
        python3 "$TOOLS/gen_values.py" vals 200 20240901 &&
        (cd vals && "$FRTRACE" show $(cat files.txt)) >got &&
        cmp got vals/expected.json
    '
    test_expect_success 'the same random values with --pretty equal json.dumps(indent=2)' '
        python3 "$TOOLS/gen_values.py" vals 200 20240901 &&
        (cd vals && "$FRTRACE" show --pretty $(cat files.txt)) >got &&
        cmp got vals/expected-pretty.json
    '
    test_expect_success 'JSON round trip: show of its own output reads back as Python json.load reads it' '
        python3 "$TOOLS/gen_values.py" vals 60 7 &&
        (cd vals && "$FRTRACE" show $(grep "p2\$" files.txt)) | grep "^[[{]" >first &&
        i=0 && files="" &&
        while IFS= read -r line; do
            i=$((i + 1)) && printf "%s\n" "$line" >doc$i.json && files="$files doc$i.json" || exit 1
        done <first &&
        test "$i" -gt 20 &&
        "$FRTRACE" show $files >second &&
        python3 "$TOOLS/pyshow.py" $files >want &&
        cmp second want
    '
else
    test_skip 'no python3' 'random values round trip'
    test_skip 'no python3' 'random values round trip, pretty'
    test_skip 'no python3' 'JSON round trip'
fi

test_expect_success 'JSON keeps 64-bit integers exact and 1 apart from 1.0' '
    printf "{\"t\": 9223372036854775807, \"m\": -9223372036854775808, \"i\": 1, \"f\": 1.0, \"e\": 1e16, \"n\": NaN, \"z\": -0.0}" >d.json &&
    "$FRTRACE" show d.json >got &&
    echo "{\"t\": 9223372036854775807, \"m\": -9223372036854775808, \"i\": 1, \"f\": 1.0, \"e\": 1e+16, \"n\": NaN, \"z\": -0.0}" >want &&
    cmp got want
'

test_expect_success 'one unreadable file among good ones: the others are shown, exit 2' '
    printf "\200\002K\001." >good.pkl && : >empty &&
    test_expect_code 2 "$FRTRACE" show good.pkl empty good.pkl >out 2>err &&
    test "$(cat out)" = "1
1" &&
    grep -q "^frtrace show: empty: empty file" err
'

test_expect_success 'a missing file is reported with its path' '
    test_expect_code 2 "$FRTRACE" show nosuch 2>err &&
    grep -q "^frtrace show: nosuch: No such file" err
'

test_done
