#!/usr/bin/env bash
# bench/bench_ops.c's per-entry correctness check, on the cpu backend (make test):
# every entry, --quick shapes, check windows of 4096 elements (so the first /
# middle / last windows of elements and of rows are exercised, not only the
# whole-tensor path), must come out "correct" with its samples in the JSON;
# the same run with --check-corrupt (1 added to the first device value before the
# comparison) must find every entry incorrect and exit 3. Timings mean nothing here.
set -u
cd "$(dirname "$0")/.."
B=${1:-build}
T=$B/bench-check
mkdir -p "$T"
export AMDKIT_BACKEND=cpu
fail=0
AMDKIT_BACKEND=cpu ./$B/bench_ops --quick --trials 3 --warmup 0 --check-elems 4096 "$T/ok.json" > "$T/ok.log" 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "FAIL bench_ops --quick exit $rc"; tail -n 20 "$T/ok.log"; fail=1; }
python3 - "$T/ok.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
res = d["results"]
bad = [r["name"] + " " + r["dtype"] for r in res if r.get("correct") is not True]
assert len(res) >= 99, "only %d entries" % len(res)
assert not bad, "not correct: %s" % bad
assert all(len(r["times"]) == r["num_trials"] == 3 for r in res), "times missing"
assert all(r["checked"] > 0 and r["err_tol_ratio"] <= 1 for r in res)
win = [r for r in res if r["check_detail"].count("[") == 3]
rows = [r for r in win if r["check_detail"].startswith("rows")]
assert len(win) >= 60 and len(rows) >= 20, "windows not exercised: %d / %d" % (len(win), len(rows))
print("ok: %d entries correct, %d checked in 3 windows (%d of rows)" % (len(res), len(win), len(rows)))
PY
AMDKIT_BACKEND=cpu ./$B/bench_ops --quick --trials 1 --warmup 0 --check-elems 4096 --check-corrupt "$T/bad.json" > "$T/bad.log" 2>&1
rc=$?
[ $rc -eq 3 ] || { echo "FAIL bench_ops --check-corrupt exit $rc, expected 3"; fail=1; }
python3 - "$T/bad.json" <<'PY' || fail=1
import json, sys
res = json.load(open(sys.argv[1]))["results"]
ok = [r["name"] + " " + r["dtype"] for r in res if r.get("correct") is not False]
assert len(res) >= 99 and not ok, "corruption not caught: %s" % ok
print("ok: --check-corrupt: all %d entries incorrect" % len(res))
PY
exit $fail
