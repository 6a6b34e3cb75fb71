import csv, sys
def load(path):
    rows = list(csv.reader(open(path)))
    hdr = rows[1]; data = rows[2:]
    ia = hdr.index("Address"); isrc = hdr.index("Source"); ie = hdr.index("Instructions Executed"); iss = hdr.index("Warp Stall Sampling (All Samples)")
    base = int(data[0][ia], 16)
    out = []
    for r in data:
        if len(r) <= ie: continue
        out.append((int(r[ia],16)-base, r[isrc].strip(), float(r[ie] or 0), float(r[iss] or 0), dict(zip(hdr, r))))
    return out
a = load("ours_s512.sass.csv"); b = load("ours_s16k.sass.csv")
assert len(a) == len(b)
T1, S1 = 1024, 5120
T2, S2 = 2048, 264192
# exec = x*T + y*S
det = T1*S2 - S1*T2
def solve(e1, e2):
    return ((e1*S2 - S1*e2)/det, (T1*e2 - T2*e1)/det)
tot_tile = tot_step = 0
res = []
for (off, src, e1, s1, d1), (_, _, e2, s2, d2) in zip(a, b):
    x, y = solve(e1, e2)
    tot_tile += x; tot_step += y
    res.append((off, src, e1, e2, x, y, s1, s2))
print(f"per tile {tot_tile:.0f} warp-instr, per step {tot_step:.0f}; s512: tiles part {tot_tile*T1/1e6:.2f}M steps part {tot_step*S1/1e6:.2f}M")
samp1 = sum(r[6] for r in res); samp2 = sum(r[7] for r in res)
print("samples", samp1, samp2)
mode = sys.argv[1] if len(sys.argv) > 1 else "x"
if mode == "x":
    for r in sorted(res, key=lambda r: -r[4])[:40]:
        print(f"{r[0]:6x} {r[1][:60]:60} tile {r[4]:8.1f} step {r[5]:7.2f} samp512 {r[6]:6.0f}")
if mode == "bb":
    # basic blocks: runs of equal exec counts in both runs
    blocks = []
    for r in res:
        if blocks and blocks[-1]["e1"] == r[2] and blocks[-1]["e2"] == r[3]:
            b = blocks[-1]
        else:
            b = {"start": r[0], "e1": r[2], "e2": r[3], "n": 0, "s1": 0, "s2": 0, "ops": {}, "x": r[4], "y": r[5]}
            blocks.append(b)
        b["n"] += 1; b["s1"] += r[6]; b["s2"] += r[7]; b["end"] = r[0]
        op = r[1].split()[0] if not r[1].startswith("@") else r[1].split()[1]
        op = op.split(".")[0]
        if op in ("HGMMA","SYNCS","BAR","UTMALDG","UTMAREDG","UTMASTG","STG","LDG","STS","LDS","STSM","RED","UBLKCP","MUFU","WARPGROUP","ATOMS","LDSM","REDG","EXIT","SHFL","ATOMG","MEMBAR","FENCE","UTMACCTL","UBLKRED", "USETMAXREG","DEPBAR", "WARPSYNC","RET","CALL","ELECT","ERRBAR","CCTL","ARRIVES","REDUX"):
            b["ops"][op] = b["ops"].get(op, 0) + 1
    tot1 = sum(b["s1"] for b in blocks); tot2 = sum(b["s2"] for b in blocks)
    for b in blocks:
        if b["s1"] / tot1 > 0.004 or b["s2"]/tot2 > 0.004 or b["x"]*b["n"] > 150:
            print(f"{b['start']:6x}-{b['end']:6x} n{b['n']:4} exec512 {b['e1']:9.0f} tile {b['x']:7.1f} step {b['y']:6.2f} | samp512 {100*b['s1']/tot1:5.1f}% samp16k {100*b['s2']/tot2:5.1f}% {b['ops']}")
if mode == "range":
    lo, hi = int(sys.argv[2],16), int(sys.argv[3],16)
    stalls = [k for k in a[0][4].keys() if k.startswith("stall_") and "Not Issued" not in k]
    agg = {}
    sub = [(r, d1) for r, (_,_,_,_,d1) in zip(res, a) if lo <= r[0] <= hi]
    for r, d in sub:
        for k in stalls: agg[k] = agg.get(k,0) + float(d[k] or 0)
    print({k: int(v) for k, v in sorted(agg.items(), key=lambda kv: -kv[1]) if v > 0})
    for r, d in sorted(sub, key=lambda x: -x[0][6])[:25]:
        top = sorted(((k, float(d[k] or 0)) for k in stalls), key=lambda kv: -kv[1])[:3]
        print(f"{r[0]:6x} {r[1][:70]:70} samp {r[6]:5.0f} {top}")
