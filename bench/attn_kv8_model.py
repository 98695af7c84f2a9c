#!/usr/bin/env python3
# A lane-by-lane Python model of the 8-bit K / V decode kernel (ak_attn_mma_f8 in kernels/attention_mma.hip):
# the warp-private stages, the fragment loads in the codes' order, prmt byte permutes, the m16n8k16 layouts,
# masks / windows / splits / pages / the warps' merge and the permuted output columns, against a direct
# softmax(Q K^T) V in double on e4m3 codes. Checks the index logic without a GPU (cp.async is a plain copy here).
#   python3 bench/attn_kv8_model.py [SEED] [CASE ...]     (cases 0..5; a few minutes in all)
import random, math, struct, sys
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
def e4m3(c):
    s=-1.0 if c&0x80 else 1.0; e=(c>>3)&15; m=c&7
    if e==15 and m==7: return float('nan')
    return s*(m/8*2.0**-6 if e==0 else (1+m/8)*2.0**(e-7))
def prmt(a,b,sel):
    by=[(a>>(8*i))&255 for i in range(4)]+[(b>>(8*i))&255 for i in range(4)]
    return sum(by[(sel>>(4*k))&7]<<(8*k) for k in range(4))
def cvt(x, hi):  # the code pair in 16-bit half `hi` of x (code 0 in its low byte) -> (lo, hi) floats (cvt.rn.f16x2.e4m3x2)
    p = (x >> (16*hi)) & 0xFFFF
    return (e4m3(p & 255), e4m3(p >> 8))
def mma(C, A, B):  # C[16][8] += A[16][16] @ B[16][8]
    for i in range(16):
        for j in range(8):
            C[i][j] += sum(A[i][k]*B[k][j] for k in range(16))
def A_from(regs):  # regs[lane] = (r0,r1,r2,r3) pairs
    A=[[0.0]*16 for _ in range(16)]
    for l in range(32):
        g,t=l//4,l%4; r=regs[l]
        A[g][2*t],A[g][2*t+1]=r[0]; A[g+8][2*t],A[g+8][2*t+1]=r[1]; A[g][2*t+8],A[g][2*t+9]=r[2]; A[g+8][2*t+8],A[g+8][2*t+9]=r[3]
    return A
def B_from(regs):
    B=[[0.0]*8 for _ in range(16)]
    for l in range(32):
        g,t=l//4,l%4; r=regs[l]
        B[2*t][g],B[2*t+1][g]=r[0]; B[2*t+8][g],B[2*t+9][g]=r[1]
    return B
def C_get(C,l):  # lane's 4 values
    g,t=l//4,l%4
    return [C[g][2*t],C[g][2*t+1],C[g+8][2*t],C[g+8][2*t+1]]
def run(HD, d, batch, hkv, group, sq, skv, nsplit_req, page, used, wl, wr, ksc, vsc):
    WN = 2 if HD > 128 else 4; ST = 3; KW = 16; BK = KW*WN; NTO = HD//8; KQ = HD//16; CH8 = HD//16
    SB = HD if HD % 32 == 16 else HD + 16; GV = 4 if HD % 32 == 0 else 2; WS = 2*KW*SB
    # data: q [b][hq][sq][d], k/v codes [b][hkv][skv][d] (paged: pages of `page` rows in shuffled order)
    hq = hkv*group
    Q = [[[[random.gauss(0,1) for _ in range(d)] for _ in range(sq)] for _ in range(hq)] for _ in range(batch)]
    rc = lambda: (lambda c: 0x11 if (c&0x7F)==0x7F else c)(random.randrange(256))
    Kc = [[[[rc() for _ in range(d)] for _ in range(skv)] for _ in range(hkv)] for _ in range(batch)]
    Vc = [[[[rc() for _ in range(d)] for _ in range(skv)] for _ in range(hkv)] for _ in range(batch)]
    useds = [used[b] if used else skv for b in range(batch)]
    # memory: flat bytes; plain layout BHSD: offset = ((b*hkv + h)*skv + j)*d ; paged: page p row r head h
    if page:
        per = (skv + page - 1)//page; npg = batch*per; perm = list(range(npg)); random.shuffle(perm)
        btab = [[perm[b*per + i] for i in range(per)] for b in range(batch)]
        # page stride = page*hkv*d (BSHD inside a page): row r head h at p*page*hkv*d + r*hkv*d + h*d
        kmem = [0]*(npg*page*hkv*d); vmem=[0]*(npg*page*hkv*d)
        for b in range(batch):
            for h in range(hkv):
                for j in range(skv):
                    off = btab[b][j//page]*page*hkv*d + (j%page)*hkv*d + h*d
                    kmem[off:off+d] = Kc[b][h][j]; vmem[off:off+d] = Vc[b][h][j]
        ksb = page*hkv*d; ksh = d; kss = hkv*d; pshift = int(math.log2(page))
    else:
        btab = None
        kmem = sum((sum((sum(Kc[b][h],[]) for h in range(hkv)),[]) for b in range(batch)),[])
        vmem = sum((sum((sum(Vc[b][h],[]) for h in range(hkv)),[]) for b in range(batch)),[])
        ksb = hkv*skv*d; ksh = skv*d; kss = d; pshift = 0
    scale_log2 = (1/math.sqrt(d))*1.4426950408889634
    # split choice as the host: whole tiles
    tiles = (skv + BK - 1)//BK
    nsplit = max(1, min(nsplit_req, tiles)); per_ = (tiles + nsplit - 1)//nsplit; split_len = per_*BK
    nsplit = (tiles + per_ - 1)//per_
    if nsplit == 1: split_len = tiles*BK
    rows_all = batch*hq*sq
    O = {}; part = {}; lseo = {}
    for b in range(batch):
        sgsq, sgskv = sq, useds[b]
        def lo_(i): p = i + sgskv - sgsq - wl; return p if wl >= 0 and p > 0 else 0
        def hi_(i): p = i + sgskv - sgsq + wr; return p if wr >= 0 and p < sgskv - 1 else sgskv - 1
        def kvoff(j, h):
            if btab: return btab[b][j >> pshift]*ksb + (j & ((1<<pshift)-1))*kss + h*ksh
            return b*ksb + h*ksh + j*kss
        rows = group*sgsq
        for h in range(hkv):
            for by in range(nsplit):
              for bx in range((rows+15)//16):
                r0 = ((rows+15)//16 - 1 - bx if wr >= 0 else bx)*16
                if r0 >= rows: continue
                rl = min(r0+16, rows) - 1; span = r0//sgsq != rl//sgsq
                imax = sgsq-1 if span else rl % sgsq; imin = 0 if span else r0 % sgsq
                kbeg = lo_(imin); kend = hi_(imax)+1; kfull0 = lo_(imax); kfull1 = hi_(imin)+1
                s0 = by*split_len
                kbeg = max(kbeg, s0); kend = min(kend, s0+split_len); kfull1 = min(kfull1, kend)
                qs = [[0.0]*HD for _ in range(16)]
                for rr in range(16):
                    r = r0+rr
                    if r < rows:
                        gg, i = r//sgsq, r % sgsq
                        qs[rr][:d] = Q[b][h*group+gg][i]
                smem = {}  # (wn, stage) -> bytes list of WS
                ntiles = (kend - kbeg + BK - 1)//BK if kend > kbeg else 0
                def load(wn, stage, k0):
                    buf = smem.setdefault((wn, stage), [0xAB]*WS)  # padding garbage
                    for lane in range(32):
                        lrow = lane//2; j = k0 + wn*KW + lrow; ok = j < kend; jj = j if ok else kbeg
                        ko = kvoff(jj, h)
                        for c in range(lane % 2, CH8, 2):
                            inn = ok and c*16 < d
                            for e in range(16):
                                buf[lrow*SB + c*16 + e] = (kmem[ko + c*16 + e] if inn else 0)
                                buf[KW*SB + lrow*SB + c*16 + e] = (vmem[ko + c*16 + e] if inn else 0)
                state = []
                for wn in range(WN):
                    for s_ in range(ST-1):
                        if s_ < ntiles: load(wn, s_, kbeg + s_*BK)
                    st = dict(m0=[-math.inf]*32, m1=[-math.inf]*32, l0=[0.0]*32, l1=[0.0]*32,
                              acc=[[[0.0]*8 for _ in range(16)] for _ in range(NTO)])
                    lr = [(r0 + l//4, r0 + l//4 + 8) for l in range(32)]
                    lohi = []
                    for l in range(32):
                        a, c = lr[l]
                        lohi.append(((lo_(a % sgsq), hi_(a % sgsq)) if a < rows else (1, 0), (lo_(c % sgsq), hi_(c % sgsq)) if c < rows else (1, 0)))
                    for t in range(ntiles):
                        k0 = kbeg + t*BK
                        if t + ST - 1 < ntiles: load(wn, (t+ST-1) % ST, k0 + (ST-1)*BK)
                        buf = smem[(wn, t % ST)]
                        ld32 = lambda off: buf[off] | buf[off+1]<<8 | buf[off+2]<<16 | buf[off+3]<<24
                        ld16 = lambda off: buf[off] | buf[off+1]<<8
                        S = [[[0.0]*8 for _ in range(16)] for _ in range(2)]
                        for kk in range(KQ):
                            A = A_from([(qs[l//4][kk*16+4*(l%4):kk*16+4*(l%4)+2], qs[l//4+8][kk*16+4*(l%4):kk*16+4*(l%4)+2],
                                         qs[l//4][kk*16+4*(l%4)+2:kk*16+4*(l%4)+4], qs[l//4+8][kk*16+4*(l%4)+2:kk*16+4*(l%4)+4]) for l in range(32)])
                            for n in range(2):
                                regs = []
                                for l in range(32):
                                    w = ld32((n*8 + l//4)*SB + kk*16 + 4*(l%4))
                                    regs.append((cvt(w, 0), cvt(w, 1)))
                                mma(S[n], A, B_from(regs))
                        need_mask = k0 < kfull0 or k0 + BK > kfull1
                        kw0 = k0 + wn*KW
                        sv = [[C_get(S[n], l) for n in range(2)] for l in range(32)]
                        al = []
                        for l in range(32):
                            t4 = l % 4
                            for n in range(2):
                                for e in range(4):
                                    x = sv[l][n][e]*scale_log2*ksc[h]
                                    if need_mask:
                                        j = kw0 + n*8 + 2*t4 + (e & 1)
                                        lo, hi = lohi[l][0] if e < 2 else lohi[l][1]
                                        if j < lo or j > hi or j >= kend: x = -math.inf
                                    sv[l][n][e] = x
                        MX = [(max(max(sv[ll][n][e] for n in range(2) for e in (0,1)) for ll in range(l - l%4, l - l%4 + 4)),
                               max(max(sv[ll][n][e] for n in range(2) for e in (2,3)) for ll in range(l - l%4, l - l%4 + 4))) for l in range(32)]
                        for l in range(32):
                            mx0, mx1 = MX[l]
                            mn0 = max(st['m0'][l], mx0); mn1 = max(st['m1'][l], mx1)
                            b0 = 0.0 if mn0 == -math.inf else mn0; b1 = 0.0 if mn1 == -math.inf else mn1
                            a0 = 2**(st['m0'][l]-b0) if st['m0'][l] != -math.inf else 0.0
                            a1 = 2**(st['m1'][l]-b1) if st['m1'][l] != -math.inf else 0.0
                            al.append((a0, a1, mn0 != st['m0'][l] or mn1 != st['m1'][l]))
                            st['m0'][l], st['m1'][l] = mn0, mn1
                            for n in range(2):
                                for e in range(4):
                                    bb = b0 if e < 2 else b1
                                    sv[l][n][e] = 2**(sv[l][n][e]-bb) if sv[l][n][e] != -math.inf else 0.0
                            st['l0'][l] = st['l0'][l]*a0 + sum(sv[l][n][e] for n in range(2) for e in (0,1))
                            st['l1'][l] = st['l1'][l]*a1 + sum(sv[l][n][e] for n in range(2) for e in (2,3))
                        if any(x[2] for x in al):
                            for n in range(NTO):
                                for l in range(32):
                                    g, t4 = l//4, l%4
                                    st['acc'][n][g][2*t4] *= al[l][0]; st['acc'][n][g][2*t4+1] *= al[l][0]
                                    st['acc'][n][g+8][2*t4] *= al[l][1]; st['acc'][n][g+8][2*t4+1] *= al[l][1]
                        PA = A_from([(sv[l][0][0:2], sv[l][0][2:4], sv[l][1][0:2], sv[l][1][2:4]) for l in range(32)])
                        for G in range(NTO//GV):
                            for i in range(GV):
                                regs = []
                                for l in range(32):
                                    g, t4 = l//4, l%4; base = KW*SB + (2*t4)*SB + GV*g
                                    ld = ld32 if GV == 4 else ld16; off = G*8*GV
                                    w0 = ld(base+off); w1 = ld(base+SB+off); w2 = ld(base+8*SB+off); w3 = ld(base+9*SB+off)
                                    sel = 0x5140 if i < 2 else 0x7362  # code pairs of codes 0 / 1 (2 / 3)
                                    regs.append((cvt(prmt(w0, w1, sel), i % 2), cvt(prmt(w2, w3, sel), i % 2)))
                                mma(st['acc'][G*GV+i], PA, B_from(regs))
                    # lane-partial l reduce
                    for l in range(0, 32, 4):
                        s0_ = sum(st['l0'][l:l+4]); s1_ = sum(st['l1'][l:l+4])
                        for ll in range(l, l+4): st['l0'][ll] = s0_; st['l1'][ll] = s1_
                    state.append(st)
                # merge
                for l in range(32):
                    g, t4 = l//4, l%4
                    M0 = max(state[w]['m0'][l] for w in range(WN)); M1 = max(state[w]['m1'][l] for w in range(WN))
                    B0 = 0.0 if M0 == -math.inf else M0; B1 = 0.0 if M1 == -math.inf else M1
                    L0 = L1 = 0.0; acc = [[0.0]*4 for _ in range(NTO)]
                    for w in range(WN):
                        w0 = 2**(state[w]['m0'][l]-B0) if state[w]['m0'][l] != -math.inf else 0.0
                        w1 = 2**(state[w]['m1'][l]-B1) if state[w]['m1'][l] != -math.inf else 0.0
                        L0 += w0*state[w]['l0'][l]; L1 += w1*state[w]['l1'][l]
                        for n in range(NTO):
                            c = C_get(state[w]['acc'][n], l)
                            acc[n][0] += w0*c[0]; acc[n][1] += w0*c[1]; acc[n][2] += w1*c[2]; acc[n][3] += w1*c[3]
                    inv0 = vsc[h]/L0 if L0 > 0 else 0.0; inv1 = vsc[h]/L1 if L1 > 0 else 0.0
                    lse0 = M0 + math.log2(L0) if L0 > 0 else -math.inf; lse1 = M1 + math.log2(L1) if L1 > 0 else -math.inf
                    for half in range(2):
                        r = r0 + g + 8*half
                        if r >= rows: continue
                        gg, i = r//sgsq, r % sgsq; hq_idx = h*group + gg
                        inv = inv1 if half else inv0; ls = lse1 if half else lse0
                        grow = (b*hkv*group + hq_idx)*sq + i
                        for G in range(NTO//GV):
                            c = G*8*GV + GV*2*t4
                            x = [0.0]*(2*GV)
                            for e in range(2):
                                for n in range(GV): x[e*GV+n] = acc[G*GV+n][2*half+e]*inv
                            for e in range(2*GV):
                                if nsplit > 1: part[(grow, by, c+e)] = x[e]
                                elif c + e < d: O[(b, hq_idx, i, c+e)] = x[e]
                        if t4 == 0:
                            if nsplit > 1: part[(grow, by, 'lse')] = ls
                            else: lseo[grow] = ls*math.log(2)
    # combine splits
    if nsplit > 1:
        for b in range(batch):
            for hq_idx in range(hq):
                for i in range(sq):
                    grow = (b*hq + hq_idx)*sq + i
                    ls = [part.get((grow, s, 'lse'), None) for s in range(nsplit)]
                    mx = max(x for x in ls if x is not None)
                    ws = [2**(x - mx) if x is not None and x != -math.inf else 0.0 for x in ls]
                    tot = sum(ws)
                    for c in range(d):
                        O[(b, hq_idx, i, c)] = sum(ws[s]*part.get((grow, s, c), 0.0) for s in range(nsplit))/tot if tot > 0 else 0.0
    # reference
    err = 0.0; cnt = 0
    for b in range(batch):
        sk = useds[b]
        for hq_idx in range(hq):
            h = hq_idx//group
            for i in range(sq):
                p = i + sk - sq
                lo = max(0, p - wl) if wl >= 0 else 0; hi = min(sk - 1, p + wr) if wr >= 0 else sk - 1
                sc = [sum(Q[b][hq_idx][i][e]*e4m3(Kc[b][h][j][e])*ksc[h] for e in range(d))/math.sqrt(d) for j in range(lo, hi+1)]
                m = max(sc); ws = [math.exp(x - m) for x in sc]; tot = sum(ws)
                for c in range(d):
                    ref = sum(ws[jj]*e4m3(Vc[b][h][lo+jj][c])*vsc[h] for jj in range(len(ws)))/tot
                    got = O[(b, hq_idx, i, c)]
                    err = max(err, abs(got - ref)/(1 + abs(ref))); cnt += 1
    return err, cnt, nsplit
cases = [
    dict(HD=64, d=64, batch=1, hkv=2, group=4, sq=1, skv=37, nsplit_req=1, page=0, used=None, wl=-1, wr=-1),
    dict(HD=80, d=80, batch=2, hkv=1, group=2, sq=1, skv=150, nsplit_req=2, page=16, used=[150, 77], wl=-1, wr=-1),
    dict(HD=32, d=32, batch=1, hkv=1, group=1, sq=4, skv=200, nsplit_req=3, page=0, used=None, wl=-1, wr=0),
    dict(HD=128, d=112, batch=1, hkv=1, group=4, sq=1, skv=70, nsplit_req=1, page=4, used=[70], wl=-1, wr=-1),
    dict(HD=96, d=96, batch=1, hkv=1, group=3, sq=2, skv=300, nsplit_req=2, page=0, used=None, wl=40, wr=0),
    dict(HD=160, d=160, batch=1, hkv=1, group=2, sq=1, skv=45, nsplit_req=1, page=0, used=None, wl=-1, wr=-1),
]
which = [int(x) for x in sys.argv[2:]] or range(len(cases))
for ci in which:
    c = cases[ci]
    ksc = [0.5 + 0.25*h for h in range(c['hkv'])]; vsc = [2.0 - 0.5*h for h in range(c['hkv'])]
    err, cnt, ns = run(ksc=ksc, vsc=vsc, **c)
    print("case", ci, c['HD'], "splits", ns, "max rel err %.2e" % err, "over", cnt, "OK" if err < 1e-9 else "FAIL", flush=True)
