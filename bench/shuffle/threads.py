#!/usr/bin/env python3
"""Where the threads of a bench/shuffle run spend their time (Linux /proc only).

Waits for the load generator of one run (a java process whose command line names
server=<server> and block=<block>), finds its server from its serverPid= argument, waits
<delay> seconds (the run's warm-up), then for <seconds> reads /proc/<pid>/task/*/schedstat of
both JVMs. For each group of threads (by name: the shuffle event loops, disk threads, the JIT
compilers, GC, ...) it prints how much of the wall time they were on a CPU, how long they were
runnable but waiting for one (the run queue: other processes or threads of the same JVM on
the pinned core), and the rest (sleeping: an event loop waiting in epoll for work).

  bench/shuffle/threads.py server=tide-crypto block=65536 delay=6 seconds=4
"""
import glob
import os
import re
import sys
import time

args = dict(a.split("=", 1) for a in sys.argv[1:])
server = args.get("server", "tide-crypto")
block = args.get("block", "65536")
delay = float(args.get("delay", "6"))
seconds = float(args.get("seconds", "4"))


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def find_client(timeout=900):
    end = time.time() + timeout
    while time.time() < end:
        for d in glob.glob("/proc/[0-9]*"):
            pid = d.rsplit("/", 1)[1]
            c = [x.decode(errors="replace") for x in cmdline(pid)]
            if (c and c[0] == "java" and any(x.endswith("Client") for x in c)
                    and f"server={server}" in c and f"block={block}" in c):
                srv = next(x.split("=", 1)[1] for x in c if x.startswith("serverPid="))
                return pid, srv
        time.sleep(0.2)
    sys.exit(f"no load generator for server={server} block={block} appeared")


def group(name):
    name = re.sub(r"[-#]?[0-9]+$", "", name.strip())
    name = re.sub(r"-[0-9]+$", "", name)
    for prefix in ("tide-shuffle-io", "tide-shuffle-cl", "tide-shuffle-di", "C2 Compiler",
                   "C1 Compiler", "GC Thread", "tide-crypto-war"):
        if name.startswith(prefix):
            return prefix
    return "other"


def snapshot(pid):
    out = {}
    for t in glob.glob(f"/proc/{pid}/task/*"):
        try:
            with open(t + "/comm") as f:
                name = f.read()
            with open(t + "/schedstat") as f:
                run, wait, _ = (int(x) for x in f.read().split())
        except OSError:
            continue
        out[t] = (group(name), run, wait)
    return out


client, srv = find_client()
time.sleep(delay)
before = {p: snapshot(p) for p in (srv, client)}
t0 = time.time()
time.sleep(seconds)
after = {p: snapshot(p) for p in (srv, client)}
wall = time.time() - t0
print(f"threads of server={server} block={block} over {wall:.1f} s (after {delay:.0f} s):"
      " on CPU / waiting for a CPU / sleeping, as fractions of wall time")
for label, pid in (("server", srv), ("client", client)):
    sums = {}
    for t, (g, run, wait) in after[pid].items():
        g0, run0, wait0 = before[pid].get(t, (g, 0, 0))
        s = sums.setdefault(g, [0, 0, 0])
        s[0] += (run - run0) / 1e9
        s[1] += (wait - wait0) / 1e9
        s[2] += 1
    for g, (run, wait, n) in sorted(sums.items(), key=lambda kv: -kv[1][0]):
        if run + wait < 0.005 * wall:
            continue
        print(f"  {label} {g:16s} ({n} threads): on CPU {run / wall:.2f}, waiting for a CPU"
              f" {wait / wall:.2f}" + (f", sleeping {max(0.0, n - (run + wait) / wall):.2f}"
                                       if n == 1 else ""))
