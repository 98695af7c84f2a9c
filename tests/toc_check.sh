#!/usr/bin/env bash
# amdkit.h's table of contents lists exactly the >>decl:/>>impl: section tags
# the file has, in the same order.
set -eu
H=${1:-amdkit.h}
toc=$(awk '/TABLE OF CONTENTS/{f=1} f && /^ \*\/$/{exit} f' "$H" | grep -E '^ \*   >>' | sed -E 's/^ \*   (>>[a-z]+:[a-z0-9-]+).*/\1/')
body=$(awk '/TABLE OF CONTENTS/{f=1} f && /^ \*\/$/{f=0; g=1; next} g' "$H" | grep -E '^ \* >>(decl|impl):|^/\* >>(decl|impl):' | grep -oE '>>(decl|impl):[a-z0-9-]+')
if [ "$toc" != "$body" ]; then
  diff <(echo "$toc") <(echo "$body") | sed 's/^/  /'
  echo "toc_check: the table of contents (<) and the section tags (>) differ"
  exit 1
fi
echo "toc_check: $(echo "$toc" | wc -l) sections match"
