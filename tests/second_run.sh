#!/usr/bin/env bash
# Acceptance: running the same program twice with one cache directory
# compiles nothing the second time (all disk hits, visible in the stats).
# Uses the demo (which compiles several kernel families) in two processes.
set -eu
dir=$(mktemp -d)
AMDKIT_CACHE_DIR=$dir AMDKIT_DEMO_STATS=1 ./build/amdkit demo > "$dir/first.log" 2>&1
AMDKIT_CACHE_DIR=$dir AMDKIT_DEMO_STATS=1 ./build/amdkit demo > "$dir/second.log" 2>&1
first=$(grep '^cache:' "$dir/first.log"); second=$(grep '^cache:' "$dir/second.log")
echo "first run:  $first"; echo "second run: $second"
rm -rf "$dir"
# the first run compiled something; the second compiled nothing and hit the disk
echo "$first" | grep -qv 'compilations 0 ' && echo "$second" | grep -q 'compilations 0 ' && echo "$second" | grep -qv 'disk_hits 0 '
