#!/usr/bin/env python3
# The 8-bit K / V decode split model (_ak_attn_fold_splits in amdkit.h, its f8 branch) in Python, scored on
# split sweeps of bench_attention (`--splits 0,1,2,... --shape B,HQ,HKV,SKV,D` logs: every count timed, the
# plan's first): for each shape, the count the model picks against the fastest measured count, then a grid of
# the model's constants (sat, F, U, M) ranked by the summed loss. H100 figures: 132 SMs, 3 resident blocks.
#   python3 bench/attn_split_fit.py LOG [LOG ...]
import math, re, sys, collections

CUS, SLOTS, MAXS = 132, 3, 128


def read(paths):
    data, plan = collections.defaultdict(dict), {}
    for p in paths:
        for l in open(p):
            if 'fp8' not in l or 'splits=' not in l:
                continue
            g = lambda rx: int(re.search(rx, l).group(1))
            k = (g(r' b(\d+) '), g(r' hq(\d+) '), g(r' hkv(\d+) '), g(r' skv(\d+) '), g(r' d(\d+)'))
            ns, t = g(r'splits=(\d+)'), float(re.search(r'([\d.]+) ms', l).group(1))
            data[k][ns] = t
            if '(plan)' in l:
                plan[k] = ns
    return data, plan


def model(blocks, tiles, warps, cap, sat, F, U, M):
    last, ns, best = 0, 1, 0.0
    for n in range(1, cap + 1):
        per = -(-tiles // n)
        ne = -(-tiles // per)
        if ne == last:
            continue
        last = ne
        m = -(-(blocks * ne) // CUS)
        full, rem = m // SLOTS, m % SLOTS
        w = full * max(SLOTS * warps, sat) / sat + (max(rem * warps, sat) / sat if rem else 0.0)
        t = w * (per + F) + U * per + (M * ((ne + 3) // 4) if ne > 1 else 0.0)
        if n == 1 or t < best * 0.98:
            best, ns = t, ne
    return ns


def score(data, consts, show=False):
    total = worst = 0.0
    for (b, hq, hkv, skv, d), times in sorted(data.items()):
        bk, warps = (64, 4) if d <= 128 else (32, 2)
        tiles = -(-skv // bk)
        blocks = -(-(hq // hkv) // 16) * b * hkv
        ns = model(blocks, tiles, warps, min(tiles // 2, MAXS), *consts)
        near = min(times, key=lambda s: abs(s - ns))
        loss = times[near] / min(times.values()) - 1.0
        total += loss
        worst = max(worst, loss)
        if show:
            print(f'  b{b} hq{hq} hkv{hkv} skv{skv} d{d}: model {ns:3d} (timed {near:3d}), fastest '
                  f'{min(times, key=times.get):3d}, loss {100 * loss:4.1f}%')
    return total, worst


if __name__ == '__main__':
    data, plan = read(sys.argv[1:])
    cur = (8.0, 2.0, 0.1, 1.0)
    print('the current constants (sat, F, U, M) =', cur)
    print('  summed loss %.3f, worst %.3f' % score(data, cur, True))
    grid = [(s, f, u, m) for s in (2, 3, 4, 5, 6, 8, 10, 12) for f in (0, 1, 2, 4, 8)
            for u in (0, 0.05, 0.1, 0.2, 0.4) for m in (0, 1, 2, 4, 8)]
    ranked = sorted((score(data, c), c) for c in grid)
    print('best constants (summed loss, worst loss), (sat, F, U, M):')
    for r in ranked[:8]:
        print('  (%.3f, %.3f)' % r[0], r[1])
    print('the best, shape by shape:')
    score(data, ranked[0][1], True)
