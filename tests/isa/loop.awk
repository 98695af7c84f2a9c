# stdin: one kernel's llvm-objdump -d lines. Prints the instructions of its main loop: the backward branch
# range (target .. branch) with MFMAs that is shortest (the innermost k loop). kbase: the kernel's start address
# (decimal); mm: the matrix instruction pattern (default v_mfma; v_wmma for RDNA).
function hex(s,   i, c, v) { v = 0; s = tolower(s); for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }; return v }
{
  line[NR] = $0
  if (match($0, /\/\/ [0-9A-F]+:/)) { a = hex(substr($0, RSTART + 3, RLENGTH - 4)); a2l[a] = NR }
  if ($1 ~ /^s_cbranch_|^s_branch$/ && match($0, /\+0x[0-9a-f]+>/)) tgt[NR] = kbase + hex(substr($0, RSTART + 3, RLENGTH - 4))
}
END {
  best = 0
  for (i = 1; i <= NR; i++) if (i in tgt) {
    if (!(tgt[i] in a2l) || a2l[tgt[i]] >= i) continue
    s = a2l[tgt[i]]; n = 0
    for (j = s; j <= i; j++) if (line[j] ~ (mm != "" ? mm : "v_mfma")) n++
    if (n > 0 && (!best || i - s < be - bs)) { best = n; bs = s; be = i }
  }
  if (best) for (j = bs; j <= be; j++) { l = line[j]; sub(/\/\/.*/, "", l); if (l ~ /^[ \t]+[a-z]/) print l }
}
