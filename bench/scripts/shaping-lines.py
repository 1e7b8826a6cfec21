#!/usr/bin/env python3
"""W1-seed's show/click left join at scale, for SEMANTICS 4.5-4.7 (docs/PERFORMANCE.md, "Changelog size"):
writes a deterministic event log (SHOWS shows 10 ms apart, 20% clicked within 60 s of their show, 2% clicked
60-120 s after it, a watermark every second trailing the newest ts by 1 s) and the four join specs
(retraction changelog, paddedDelay = 60 s, upsert output, the interval join), runs each through
`junction replay` and prints output lines and bytes per input event.

Usage: bench/scripts/shaping-lines.py [SHOWS] [OUTDIR]   (defaults: 50000, target/shaping-lines)"""
import json, os, random, subprocess, sys

shows = int(sys.argv[1]) if len(sys.argv) > 1 else 50000
out = sys.argv[2] if len(sys.argv) > 2 else "target/shaping-lines"
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.makedirs(out, exist_ok=True)
rnd = random.Random(20261201)
events = []
for i in range(shows):
    ts = i * 10
    events.append((ts, 0, {"side": "left", "ts": ts, "row": {"log_id": i, "show_params": "s%d" % i}}))
    x = rnd.random()
    if x < 0.20:
        c = ts + rnd.randint(0, 60000)
    elif x < 0.22:
        c = ts + rnd.randint(60001, 120000)
    else:
        continue
    events.append((c, 1, {"side": "right", "ts": c, "row": {"log_id": i, "click_params": "c%d" % i}}))
events.sort(key=lambda e: (e[0], e[1]))
log = os.path.join(out, "show_click.events.jsonl")
inputs = 0
with open(log, "w") as f:
    next_wm = 1000
    for ts, _, e in events:
        while ts >= next_wm + 1000:
            f.write(json.dumps({"watermark": next_wm}) + "\n")
            next_wm += 1000
        f.write(json.dumps(e) + "\n")
        inputs += 1
base = {"type": "left", "leftKey": ["log_id"], "rightKey": ["log_id"]}
specs = {
    "retraction": dict(base, join="regular"),
    "paddedDelay 60 s": dict(base, join="regular", paddedDelay=60000),
    "upsert": dict(base, join="regular", output="upsert", leftUniqueKey=["log_id"], rightUniqueKey=["log_id"]),
    "interval [0, 60 s]": dict(base, join="interval", interval={"lower": 0, "upper": 60000}),
}
print("%d input rows (%d shows), %s" % (inputs, shows, log))
print("| output | lines | lines per input row | bytes per input row | joined pairs in the final result |")
print("|---|---|---|---|---|")
for name, spec in specs.items():
    sp = os.path.join(out, name.split()[0] + ".join.json")
    json.dump(spec, open(sp, "w"))
    res = os.path.join(out, name.split()[0] + ".out.jsonl")
    subprocess.run([os.path.join(root, "tools/bin/junction"), "replay", sp, log, "--out", res,
                    "--dead-letter", os.path.join(out, name.split()[0] + ".dead.jsonl")], check=True,
                   stderr=subprocess.DEVNULL)
    lines = 0; size = 0; table = {}
    for line in open(res):
        lines += 1; size += len(line)
        o = json.loads(line)
        if o["op"] in ("upsert", "delete"):
            k = json.dumps(o["key"], sort_keys=True)
            if o["op"] == "upsert": table[k] = o["right"] is not None
            else: table.pop(k, None)
        else:
            k = json.dumps([o["left"], o["right"]], sort_keys=True)
            table[k] = table.get(k, 0) + (1 if o["op"] in ("+I", "+U") else -1)
    pairs = sum(1 for k, v in table.items() if v and (v is True or '"click_params"' in k))
    print("| %s | %d | %.3f | %.1f | %d |" % (name, lines, lines / inputs, size / inputs, pairs))
