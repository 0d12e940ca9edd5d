#!/usr/bin/env python3
# Run: python3 docs/sprt_reference.py (plain Python 3, no packages).
# Independent reference numbers for arena's SPRT tests, written from the
# definitions in fishtest's LLRcalc (regularize zero counts to 1e-3,
# MLE under a mean constraint via the secular equation, GSPRT approximation).
import math
def L(elo): return 1/(1+10**(-elo/400))
def pdf(counts):
    c=[x if x>0 else 1e-3 for x in counts]
    N=sum(c); k=len(c)
    return N,[(i/(k-1), c[i]/N) for i in range(k)]
def stats(p):
    s=sum(a*q for a,q in p); v=sum(q*(a-s)**2 for a,q in p); return s,v
def secular(p):
    # sum q a/(1+x a)=0, decreasing in x
    lo=-1/max(a for a,q in p); hi=-1/min(a for a,q in p)
    eps=1e-12
    lo+=eps*(hi-lo); hi-=eps*(hi-lo)
    f=lambda x: sum(q*a/(1+x*a) for a,q in p)
    for _ in range(300):
        m=(lo+hi)/2
        if f(m)>0: lo=m
        else: hi=m
    return (lo+hi)/2
def mle(p,s):
    x=secular([(a-s,q) for a,q in p])
    return [(a,q/(1+x*(a-s))) for a,q in p]
def llr(e0,e1,counts):
    N,p=pdf(counts); s0,s1=L(e0),L(e1)
    p0=mle(p,s0); p1=mle(p,s1)
    return N*sum(q*(math.log(p1[i][1])-math.log(p0[i][1])) for i,(a,q) in enumerate(p))
def llr_alt2(e0,e1,counts):
    N,p=pdf(counts); s0,s1=L(e0),L(e1); s,v=stats(p)
    return N*(s1-s0)*(2*s-s0-s1)/v/2
def elo(x):
    x=min(max(x,1e-3),1-1e-3); return -400*math.log10(1/x-1)
def get_elo(counts):
    N,p=pdf(counts); s,v=stats(p); se=math.sqrt(v/N); z=1.959963984540054
    return elo(s), elo(s-z*se), elo(s+z*se), 0.5*math.erfc(-((s-0.5)/se)/math.sqrt(2))
cases=[(-3,1,[65804,56553,65388]),(-3,1,[10789,19328,33806,19402,10543]),(0,10,[0,3,10,5,2]),(0,10,[120,150,130]),(0,5,[3,0,7])]
for e0,e1,c in cases:
    print(e0,e1,c,"llr=%.10f alt2=%.10f"%(llr(e0,e1,c),llr_alt2(e0,e1,c)),"elo=%.10f lo=%.10f hi=%.10f los=%.10f"%get_elo(c))
print(math.log(0.05/0.95), math.log(0.95/0.05))
