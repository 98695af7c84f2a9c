/* ak_archdev.h - a cpu-backend context that plans and launches as a device
 * of a named architecture, for the tools that run the kernel library's real
 * planners without that device (tests/ak_launch_plans.c records the
 * launches, tests/emu_mma.cpp executes them in the host emulation).
 * Include after amdkit.h with AMDKIT_IMPLEMENTATION (it reaches internals).
 *
 * akt_archdev(ctx, a, table, launch): ctx (a cpu context) gets the device of
 * row a of the architecture table (compute units, wave size, LDS, L2, the
 * common launch limits, fp16 / bf16 usable) and the backend table `table`:
 * the cpu one with device-memory semantics (so every op takes its device
 * path: planning, kernel choice, geometry, generated argument packing) and
 * `launch` as its launch. Returns ctx. */
#ifndef AK_ARCHDEV_H
#define AK_ARCHDEV_H
static ak_context* akt_archdev(ak_context* ctx, const ak_arch_info* a, _ak_backend_ops* table,
                               ak_result (*launch)(ak_kernel*, ak_dim3, ak_dim3, size_t, ak_stream*, void**)) {
    ak_device_info* d;
    if (!ctx) return NULL;
    *table = _ak_backend_cpu;
    table->host_memory = 0;
    table->launch = launch;
    ctx->bk = table;
    d = &ctx->dev;
    _ak_copy(d->arch, sizeof d->arch, a->name);
    _ak_set_arch_base(d);
    d->arch_info = a;
    d->compute_units = a->compute_units;
    d->wave_size = a->wave_size;
    d->shared_mem_per_block = (size_t)a->lds_bytes;
    d->l2_bytes = (size_t)a->l2_bytes;
    d->mem_total = (size_t)1 << 40;
    d->mem_free = d->mem_total;
    d->fp16 = d->bf16 = 1;
    d->max_threads_per_block = 1024;
    d->max_block[0] = d->max_block[1] = d->max_block[2] = 1024;
    d->max_grid[0] = 0x7FFFFFFF;
    d->max_grid[1] = d->max_grid[2] = 65535;
    _ak_launch_limits_set(ctx);
    return ctx;
}
#endif
