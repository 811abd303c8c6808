import json,sys,math
def load(f): return {x['operator']:x['pick_us'] for x in json.load(open(f))['rows']}
def table(pre, runs):
    M=[load(f'{pre}-main-{r}.json') for r in runs]; N=[load(f'{pre}-new-{r}.json') for r in runs]
    gs=[]
    print(f"{'operator':40s} " + " ".join(f"main{r:>6}" for r in runs) + " " + " ".join(f"new{r:>7}" for r in runs) + "  best main/new")
    for k in M[0]:
        m=min(x[k] for x in M); n=min(x[k] for x in N); gs.append(math.log(m/n))
        print(f"{k:40s} " + " ".join(f"{x[k]:10.1f}" for x in M) + " " + " ".join(f"{x[k]:10.1f}" for x in N) + f"  {m/n:5.2f}")
    print('geomean best-of main/new', round(math.exp(sum(gs)/len(gs)),3), ' wins', sum(1 for g in gs if g>0), 'of', len(gs))
table(sys.argv[1], sys.argv[2].split(','))
