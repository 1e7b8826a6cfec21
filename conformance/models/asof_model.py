#!/usr/bin/env python3
"""Brute-force model of SEMANTICS 11 (ASOF joins) over a replay scenario: prints the expected output and
dead letters in the replay format. Usage: asof_model.py NAME.join.json NAME.events.jsonl OUT.expected OUT.deadletter
Keeps every accepted right row forever and recomputes each waiting left row's best candidate and F from
scratch after every event, straight from the SPEC's words (no pruning, no indexes)."""
import json, sys

def val_key(v):
    if isinstance(v, bool): return ('b', v)
    if isinstance(v, (int, float)):
        if isinstance(v, float) and v.is_integer() and abs(v) < 2**63: v = int(v)
        return ('n', v)
    if isinstance(v, str): return ('s', v)
    return ('x', json.dumps(v))

def cmp(op, a, b):
    if a is None or b is None: return False
    if isinstance(a, bool) or isinstance(b, bool):
        if not (isinstance(a, bool) and isinstance(b, bool)): return False
        return {'==': a == b, '!=': a != b}.get(op, False)
    num = lambda x: isinstance(x, (int, float))
    if num(a) and num(b): pass
    elif isinstance(a, str) and isinstance(b, str):
        a, b = a.encode('utf-8'), b.encode('utf-8')
    else: return False
    return {'==': a == b, '!=': a != b, '<': a < b, '<=': a <= b, '>': a > b, '>=': a >= b}[op]

def main(spec_file, events_file, out_file, dl_file):
    spec = json.load(open(spec_file))
    assert spec['join'] == 'asof'
    typ = spec['type']; asof = spec['asof']
    direction = asof['direction']; T = asof.get('tolerance'); emit = asof.get('emit', 'final')
    A = spec.get('allowedLateness', 0)
    lf, rf, cond = spec.get('leftFilter', []), spec.get('rightFilter', []), spec.get('condition', [])
    lines = [l for l in open(events_file) if l.strip()]
    out, dead = [], []
    rights = []   # (arrival, ts, row)
    waiting = []  # dict(ts,row,emitted,padded)
    wl = wr = None; joined = None

    def key(row, fields):
        k = []
        for f in fields:
            v = row.get(f)
            if v is None: return None
            k.append(val_key(v))
        return tuple(k)
    def passes(row, filt):
        return all(cmp(t['op'], row.get(t['field']), t['value']) for t in filt)
    def candidate(l, r):
        lk = key(l['row'], spec['leftKey']); rk = key(r[2], spec['rightKey'])
        if lk is None or rk is None or lk != rk: return False
        if not passes(l['row'], lf) or not passes(r[2], rf): return False
        for c in cond:
            lv = l['row'].get(c['left'])
            if c.get('leftOffset') and isinstance(lv, (int, float)) and not isinstance(lv, bool): lv = lv + c['leftOffset']
            if not cmp(c['op'], lv, r[2].get(c['right'])): return False
        d = r[1] - l['ts']
        within = T is None or abs(d) <= T
        if direction == 'backward': return d <= 0 and within
        if direction == 'forward': return d >= 0 and within
        return within
    def better(lts, r, b):
        if r[1] == b[1]: return r[0] > b[0]
        if direction == 'backward': return r[1] > b[1]
        if direction == 'forward': return r[1] < b[1]
        dr, db = abs(r[1] - lts), abs(b[1] - lts)
        return dr < db or (dr == db and r[1] < b[1])
    def best(l):
        b = None
        for r in rights:
            if candidate(l, r) and (b is None or better(l['ts'], r, b)): b = r
        return b
    def F(l, b):
        if direction == 'backward': return l['ts']
        if b is None: return None if T is None else l['ts'] + T
        if direction == 'forward': return b[1]
        return l['ts'] + abs(l['ts'] - b[1])
    def emitline(step, op, l, r):
        out.append({'step': step, 'op': op, 'left': l['row'], 'right': None if r is None else r[2]})
    def finish(l, step):
        if emit == 'eager': return
        b = best(l)
        if b is not None: emitline(step, '+I', l, b)
        elif typ == 'left': emitline(step, '+I', l, None)

    for step, line in enumerate(lines):
        e = json.loads(line)
        if 'watermark' in e:
            w = e['watermark']; side = e.get('side')
            if side != 'right': wl = w if wl is None else max(wl, w)
            if side != 'left': wr = w if wr is None else max(wr, w)
            if wl is not None and wr is not None and (joined is None or min(wl, wr) > joined):
                joined = min(wl, wr); h = joined - A
                keep = []
                for l in waiting:
                    f = F(l, best(l))
                    if f is not None and h > f: finish(l, step)
                    else: keep.append(l)
                waiting = keep
            continue
        op = e.get('op', '+I'); side = e['side']; ts = e['ts']; row = e['row']
        rec = {'step': step, 'reason': None, 'side': side, 'op': op, 'ts': ts, 'row': row}
        if op != '+I':
            rec['reason'] = 'bad input: asof joins take append-only input (+I), SEMANTICS 11'; dead.append(rec); continue
        if joined is not None and ts < joined - A:
            rec['reason'] = 'late: ts < join watermark - allowedLateness (SEMANTICS 11)'; dead.append(rec); continue
        if side == 'left':
            l = {'ts': ts, 'row': row, 'emitted': None, 'padded': False}
            if key(row, spec['leftKey']) is None or not passes(row, lf):
                if typ == 'left': emitline(step, '+I', l, None)
                continue
            waiting.append(l)
            if emit == 'eager':
                b = best(l)
                if b is not None: emitline(step, '+I', l, b); l['emitted'] = b
                elif typ == 'left': emitline(step, '+I', l, None); l['padded'] = True
        else:
            if key(row, spec['rightKey']) is None or not passes(row, rf): continue
            rights.append((len(rights), ts, row))
            if emit == 'eager':
                for l in waiting:
                    b = best(l)
                    if b is None or b is l['emitted']: continue
                    if l['emitted'] is not None:
                        emitline(step, '-U', l, l['emitted']); emitline(step, '+U', l, b)
                    elif l['padded']:
                        emitline(step, '-U', l, None); emitline(step, '+U', l, b)
                    else:
                        emitline(step, '+I', l, b)
                    l['emitted'] = b; l['padded'] = False
    for l in waiting: finish(l, len(lines))
    with open(out_file, 'w') as f:
        for o in out: f.write(json.dumps(o, separators=(',', ':')) + '\n')
    with open(dl_file, 'w') as f:
        for d in dead: f.write(json.dumps(d, separators=(',', ':')) + '\n')

if __name__ == '__main__':
    main(*sys.argv[1:5])
