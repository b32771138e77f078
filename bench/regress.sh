#!/usr/bin/env bash
# The CI step of issue 47: a short run of the load benchmark (bench/run.sh
# --quick, the maximum only, no peer, no scale section) over a read and
# the three writes on both engines, then each workload's CPU per request
# divided by the ceiling's in the same run, against bench/baseline.json.
# Fails, naming the workloads, when one costs more than the baseline's
# tolerance (1.5×) times its ratio. The machine's load slows our server and
# the ceiling alike, so the ratio holds on a busy machine where plain
# throughput does not.
#
#   bench/regress.sh             # compare with bench/baseline.json
#   bench/regress.sh --write     # measure and write the baselines (commit them, saying why)
#
# SERVER_SRC=<worktree> measures another tree's server against this
# harness (bench/run.sh); RESULTS_OUT=<file> keeps the run's results.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

write=()
for arg in "$@"; do
  case "$arg" in
    --write) write=(-write) ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "unknown argument $arg (want --write)" >&2; exit 2 ;;
  esac
done

OUT=$(mktemp -d /tmp/wayfarer-regress.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
# Short runs, three of each at the maximum: the median of three steadies
# the ratio more than one longer run does on a shared machine.
OUT_DIR=$OUT WITH_PEER=0 SCALE_BENCH=0 FIXED_PHASE=0 USERS=${USERS:-10} CONVS_PER_USER=${CONVS_PER_USER:-4} \
  WORKLOADS=${REGRESS_WORKLOADS:-list booking_user message quotebook} \
  QUICK_RUNS=${QUICK_RUNS:-3} QUICK_DURATION=${QUICK_DURATION:-2s} QUICK_WARMUP=${QUICK_WARMUP:-500ms} QUICK_TARGETS=${QUICK_TARGETS:-20000} \
  bench/run.sh --quick >"$OUT/run.log" 2>&1 || { tail -n 40 "$OUT/run.log" >&2; echo "regress: the benchmark failed" >&2; exit 1; }
[ -z "${RESULTS_OUT:-}" ] || cp "$OUT/results.jsonl" "$RESULTS_OUT"
(cd bench && go build -o "$OUT/benchtool" ./benchtool)
"$OUT/benchtool" regress -results "$OUT/results.jsonl" -baseline bench/baseline.json "${write[@]}"
