# paths.sh — where the build and the shared test data are, named once for the story library
# (tests/lib.sh) and the benchmarks (tests/bench/*.sh). Source it with TOP set to the project's
# root; BUILD may name another build directory (build-san for `make check SANITIZE=1`).
BUILD=${BUILD:-build}
FRTRACE="$TOP/$BUILD/frtrace"
SHARED="$TOP/../shared"
REAL_DUMPS="$SHARED/testdata/torch-fr-2.9-nvrx"
SYNTH_DUMPS="$SHARED/testdata/torch-fr-synthetic"
