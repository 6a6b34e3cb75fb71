import csv, os, sys
d = sys.argv[1]
def rows(name): return list(csv.DictReader(open(os.path.join(d, name))))
def f(x, n=3):
    if x in ("", None): return "-"
    v = float(x)
    return f"{v:.{n}g}" if v < 1 else f"{v:.{n+1}g}" if v < 100 else f"{v:.0f}"
print("### leaderboard")
for r in rows("leaderboard.csv"):
    print(f"| {r['impl']} | {f(r['fwd_ms'])} | {f(r['bwd_ms'])} | {f(r['fwd_bwd_ms'])} | {float(r['fwd_tflops']):.0f} / {float(r['bwd_tflops']):.0f} | {float(r['max_abs_err']):.1e} |")
print("### causal bf16 16 heads (both orders): fwd+bwd mean ms ours, sdpa, ratio; fwd ratio; bwd ratio")
a = {(r['impl'], r['d'], r['seq']): r for r in rows("sdpa_vs_flash.csv")}
b = {(r['impl'], r['d'], r['seq']): r for r in rows("flash_vs_sdpa.csv")}
for dd in ("64", "128"):
    for s in ("128", "512", "1024", "4096", "8192", "16384"):
        cells = []
        for t in (a, b):
            o, p = t[("flash", dd, s)], t[("sdpa", dd, s)]
            cells.append((float(o['fwd_bwd_ms']), float(p['fwd_bwd_ms']), float(o['fwd_ms'])/float(p['fwd_ms']), float(o['bwd_ms'])/float(p['bwd_ms']), float(o['fwd_tflops']), float(o['bwd_tflops']), float(p['fwd_tflops']), float(p['bwd_tflops'])))
        (o1, p1, fr1, br1, of1, ob1, pf1, pb1), (o2, p2, fr2, br2, *_ ) = cells
        print(f"| {dd} | {s} | {o1:.3f} / {p1:.3f} ({o1/p1:.2f}) | {o2:.3f} / {p2:.3f} ({o2/p2:.2f}) | {fr1:.2f}, {fr2:.2f} | {br1:.2f}, {br2:.2f} | {of1:.0f} / {ob1:.0f} | {pf1:.0f} / {pb1:.0f} |")
print("### flash_benchmarking")
fb = rows("flash_benchmarking_short.csv") + rows("flash_benchmarking.csv")
tab = {}
for r in fb: tab[(r['precision'], int(r['d']), int(r['seq']), r['impl'])] = r
def cell(r):
    if r is None: return "-"
    if r['status'] != 'ok': return r['status'].upper()
    return f"{f(r['fwd_ms'])} / {f(r['bwd_ms'])} / {f(r['fwd_bwd_ms'])}"
for prec in ("bf16", "fp32"):
    print(f"#### {prec}")
    for dd in (16, 32, 64, 128):
        for s in (128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536):
            fl, sd, nv = (tab.get((prec, dd, s, i)) for i in ("flash", "sdpa", "naive"))
            ratio = f"{float(fl['fwd_bwd_ms'])/float(sd['fwd_bwd_ms']):.2f}" if fl and sd and fl['status']=='ok' and sd['status']=='ok' else "-"
            print(f"| {dd} | {s} | {cell(fl)} | {cell(sd)} | {cell(nv)} | {ratio} |")
errs = {}
for r in fb:
    if r['status'] == 'ok' and r['max_abs_err']:
        k = (r['impl'], r['precision']); errs[k] = max(errs.get(k, 0), float(r['max_abs_err']))
print("errors", errs)
print("nonok", [(r['impl'], r['precision'], r['d'], r['seq'], r['status'], r['message'][:80]) for r in fb if r['status'] != 'ok'])
print("### pytorch_attention")
for r in rows("pytorch_attention.csv"):
    pass
pa = {(r['impl'], int(r['d']), int(r['seq'])): r for r in rows("pytorch_attention.csv")}
for dd in (16, 32, 64, 128):
    for s in (256, 1024, 4096, 8192, 16384):
        n, fl = pa.get(("naive", dd, s)), pa.get(("flash", dd, s))
        mem = lambda r: f"{int(r['mem_before_bwd_bytes'])/2**20:.0f}" if r and r['status']=='ok' else "-"
        print(f"| {dd} | {s} | {cell(n)} | {mem(n)} | {cell(fl)} | {mem(fl)} | {float(fl['max_abs_err']):.1e} |")
