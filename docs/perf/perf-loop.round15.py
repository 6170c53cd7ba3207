# Round 15: shares of a `perf script -F comm,tid,ip,sym` dump, counting only the samples whose stack
# holds a frame ending in ARG2 and none holding ARG3 (docs/perf/README.md, round 15).
# python3 docs/perf/perf-loop.round15.py dump.txt "profile.ts:1:1" "sessionWith" 45
import sys, re, collections
# folded perf script: samples separated by blank lines; first frame = leaf
path = sys.argv[1]; must = sys.argv[2]; mustnot = sys.argv[3] if len(sys.argv) > 3 else None
selfc = collections.Counter(); incl = collections.Counter(); n = 0
def flush(frames):
    global n
    if not frames: return
    syms = [f for f in frames]
    joined = "\n".join(syms)
    if not any(f.endswith(must) for f in syms): return
    if mustnot and mustnot in joined: return
    n += 1
    selfc[syms[0]] += 1
    for s in set(syms): incl[s] += 1
frames = []
for line in open(path, errors="replace"):
    line = line.rstrip("\n")
    if not line.strip():
        flush(frames); frames = []; continue
    if line.startswith("node ") or line.startswith("\tnode"):
        if not line.startswith("\t") and not line.startswith(" "):
            continue
    parts = line.strip().split(None, 1)
    if len(parts) == 2 and re.match(r"^[0-9a-f]+$", parts[0]):
        frames.append(parts[1])
flush(frames)
print("samples", n)
print("--- self"); 
for s, c in selfc.most_common(int(sys.argv[4]) if len(sys.argv) > 4 else 40): print(f"{100*c/n:5.1f}% {s[:120]}")
print("--- inclusive JS");
for s, c in incl.most_common(400):
    if "JS:" in s and c/n > 0.01: print(f"{100*c/n:5.1f}% {s[:120]}")
