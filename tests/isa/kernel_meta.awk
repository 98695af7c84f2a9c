# The kernels of an AMD code object's metadata, one line each, from `llvm-readelf --notes <code object>`:
#   <name> <.max_flat_workgroup_size> <.group_segment_fixed_size> <.private_segment_fixed_size> <.wavefront_size>
#   <.vgpr_spill_count> <.vgpr_count> <.sgpr_count>                       ("?" where the metadata has none)
# Used by tests/launch_plan_check.sh and tests/one_kernel_check.sh.
function flush() { if (name != "") print name, mf, gs, ps, wv, vs, vg, sg; name = ""; mf = gs = ps = wv = vs = vg = sg = "?" }
BEGIN { flush() }
/^  - / { flush() }
/^(  - |    )\.[a-z_]+:/ {
  key = $0; sub(/^(  - |    )/, "", key); sub(/:.*/, "", key); val = $NF
  if (key == ".name") name = val
  else if (key == ".max_flat_workgroup_size") mf = val
  else if (key == ".group_segment_fixed_size") gs = val
  else if (key == ".private_segment_fixed_size") ps = val
  else if (key == ".wavefront_size") wv = val
  else if (key == ".vgpr_spill_count") vs = val
  else if (key == ".vgpr_count") vg = val
  else if (key == ".sgpr_count") sg = val }
END { flush() }
