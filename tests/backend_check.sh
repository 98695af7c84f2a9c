#!/usr/bin/env bash
# The backend table is the only place a backend is named: outside the
# sections listed below, amdkit.h's code never names AK_BACKEND_HIP, _CUDA or
# _CPU (it asks ctx->bk, >>impl:context-struct). Allowed: the enum and its
# config row (>>decl:config), the config names table (>>impl:config), the
# loaders (>>impl:api) and the backends themselves (>>impl:backend).
# Comment lines do not count. A self-test first: a copy of the header with
# one such comparison added elsewhere must fail.
set -eu
H=${1:-amdkit.h}
ALLOWED='>>decl:config >>impl:config >>impl:api >>impl:backend'
scan() {
  awk -v allowed=" $ALLOWED " '
    /^ \* >>(decl|impl):|^\/\* >>(decl|impl):/ { match($0, />>(decl|impl):[a-z0-9-]+/); sec = substr($0, RSTART, RLENGTH) }
    /^[ \t]*(\/\*|\*|\/\/)/ { next }
    /AK_BACKEND_(HIP|CUDA|CPU)([^A-Za-z0-9_]|$)/ { if (index(allowed, " " sec " ") == 0) printf "  %s:%d [%s] %s\n", FILENAME, NR, sec, $0 }
  ' "$1"
}
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
awk '{ print } /^ \* >>impl:multi/ && !done { print "static int _ak_selftest_probe(ak_context* c) { return c->backend == AK_BACKEND_CUDA; }"; done = 1 }' "$H" > "$tmp"
if [ -z "$(scan "$tmp")" ]; then echo "backend_check: self-test failed (an added backend comparison in >>impl:multi was not found)"; exit 1; fi
found=$(scan "$H")
if [ -n "$found" ]; then
  echo "$found"
  echo "backend_check: a backend is named outside the backend table's sections; add an _ak_backend_ops entry instead"
  exit 1
fi
echo "backend_check: no backend named outside$(echo " $ALLOWED" | sed 's/ / /g')"

# The backend operations list (_AK_BACKEND_OPS in >>impl:context-struct): on each line
# X(ret, field, (params), hip, cuda, cpu) every implementation is named after its field
# (_ak_<hip|cuda|cpu|gpu>_<field>, _ak_comm_<cpu|ccl>_<field without comm_>), is one of
# the cpu backend's no-ops (_ak_cpu_nothing*) or NULL, so an implementation written on
# another field's line (two entries swapped) fails here. Self-test: a swap must be caught.
opscheck() {
  python3 - "$1" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r'#define _AK_BACKEND_OPS\(X\) \\\n((?:.*\\\n)*.*\n)', s)
if not m: print("backend_check: _AK_BACKEND_OPS(X) not found"); sys.exit(1)
body = re.sub(r'/\*.*?\*/', ' ', m.group(1).replace('\\\n', ' '))
bad, n, i = [], 0, 0
while True:
    i = body.find('X(', i)
    if i < 0: break
    j, depth = i + 2, 1
    while depth:
        depth += {'(': 1, ')': -1}.get(body[j], 0); j += 1
    inner = body[i + 2:j - 1]
    k = inner.index('(')                      # the parameter list
    head = [x.strip() for x in inner[:k].split(',')]
    d, e = 1, k + 1
    while d:
        d += {'(': 1, ')': -1}.get(inner[e], 0); e += 1
    impls = [x.strip() for x in inner[e:].split(',') if x.strip()]
    field = head[1]; n += 1
    if len(impls) != 3: bad.append("%s: %d implementations, want 3 (hip, cuda, cpu)" % (field, len(impls)))
    for be, f in zip(("hip", "cuda", "cpu"), impls):
        ok = f == "NULL" or (be == "cpu" and f.startswith("_ak_cpu_nothing")) \
             or f in ("_ak_%s_%s" % (be, field), "_ak_gpu_%s" % field) and not (be == "cpu" and f.startswith("_ak_gpu_")) \
             or (field.startswith("comm_") and f == "_ak_comm_%s_%s" % ("cpu" if be == "cpu" else "ccl", field[5:]))
        if not ok: bad.append("%s: the %s implementation is %s" % (field, be, f))
    i = j
if n < 30 or bad:
    print("\n".join("  " + b for b in bad) or "  only %d entries parsed" % n)
    print("backend_check: _AK_BACKEND_OPS has an implementation that is not its field's"); sys.exit(1)
print("backend_check: %d backend operations, each implementation named after its field" % n)
PY
}
awk '{ sub(/_ak_hip_event_query, _ak_cuda_event_query/, "_ak_hip_event_destroy, _ak_cuda_event_query");
       sub(/_ak_hip_event_destroy, _ak_cuda_event_destroy/, "_ak_hip_event_query, _ak_cuda_event_destroy"); print }' "$H" > "$tmp"
if opscheck "$tmp" > /dev/null; then echo "backend_check: self-test failed (two swapped hip implementations were not caught)"; exit 1; fi
opscheck "$H"
