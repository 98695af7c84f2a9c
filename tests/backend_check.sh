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
