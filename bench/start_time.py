#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The bench's part F (scripts/bench_start.sh): how long from exec to counting.

    start_time.py ROUNDS NAME=COMMAND... [-- MARK...]

Each round runs every command once, in an order that rotates from round to
round, and times it from just before the fork to the first line of its
stdout that starts with the variant's mark (default: any line), then kills
it.  A line per variant: NAME, the median and the spread of the rounds in
seconds, and the runs, tab-separated.  A command that exits or prints no
mark within 60 s is a failed run (its stderr's last line is reported).
"""
import os
import select
import signal
import statistics
import subprocess
import sys
import time


def one_run(command, mark):
    start = time.monotonic()
    proc = subprocess.Popen(command, shell=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    buf = b""
    found = None
    deadline = start + 60
    while found is None and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if not ready:
            if proc.poll() is not None:
                break
            continue
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        buf += chunk
        for line in buf.split(b"\n")[:-1]:
            if line.startswith(mark):
                found = time.monotonic() - start
                break
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    err = proc.stderr.read().decode(errors="replace").strip().splitlines()
    proc.wait()
    if found is None:
        raise RuntimeError("%s: no ready line (%s)" % (command, err[-1] if err else "no stderr"))
    return found


def main():
    args = sys.argv[1:]
    rounds = int(args.pop(0))
    marks = []
    if "--" in args:
        marks = [m.encode() for m in args[args.index("--") + 1:]]
        args = args[:args.index("--")]
    variants = [a.split("=", 1) for a in args]
    times = {name: [] for name, _ in variants}
    for r in range(rounds):
        order = variants[r % len(variants):] + variants[:r % len(variants)]
        for name, command in order:
            i = [n for n, _ in variants].index(name)
            mark = marks[i] if i < len(marks) else b""
            times[name].append(one_run(command, mark))
    for name, _ in variants:
        t = sorted(times[name])
        print("%s\t%.3f\t%.3f\t%s" % (name, statistics.median(t), t[-1] - t[0],
                                      " ".join("%.3f" % x for x in times[name])))


if __name__ == "__main__":
    main()
