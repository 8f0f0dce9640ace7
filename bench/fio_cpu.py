#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fio's CPU time per I/O, sampled: scripts/bench.sh's part A primary figure.

    fio_cpu.py FIO_PID INTERVAL_S SAMPLES_FILE [ALLOWED_PROG_IDS_FILE]

Waits for the job process fio forks (the first child of FIO_PID), then every
INTERVAL_S reads its CPU time (the kernel's own clock of that process, brought
up to date by the read: clock_gettime() on its CPU-time clock, user + system,
in ns) and its read system calls (/proc/PID/io syscr: one pread per I/O with
psync), until the job exits.  Writes the samples ("monotonic_ns cpu_ns reads")
to SAMPLES_FILE and prints on stdout:

    P25_NS_PER_IO MEDIAN_NS_PER_IO TOTAL_NS_PER_IO INTERVALS FOREIGN STATS

the 25th percentile and the median over the intervals of CPU ns per read
(the first interval, which holds the job's start, and the last, cut short by
its end, left out), the same over all those intervals together, and how many
there were.  Other work on the machine only ever slows fio's CPU (on a
shared 2-CPU VM, a compile on the other CPU makes some seconds cost a third
more), in bursts of a fraction of a second to several seconds: the 25th
percentile is the cost in the machine's quieter moments, as long as a
quarter of the run had them; the total is what fio's JSON says (usr_cpu +
sys_cpu over the job's runtime), less its start.  Prints "NA NA NA 0 …" if
fewer than 4 intervals were sampled.

FOREIGN is 1 if, at some sample, a BPF program was loaded whose id is not in
ALLOWED_PROG_IDS_FILE (whitespace-separated ids: those loaded before the bench
and the tool's): someone else's tool may have run on fio's I/O, and the run
does not measure what it says.  STATS is 1 if kernel.bpf_stats_enabled was on
at some sample (every program run then pays two clock reads).  Without the
file, or where the bpf() system call's number is not known, FOREIGN is 0.
"""
import ctypes
import platform
import statistics
import sys
import time

BPF_PROG_GET_NEXT_ID = 11
NR_BPF = {"x86_64": 321, "aarch64": 280, "ppc64le": 361, "s390x": 351,
          "riscv64": 280, "loongarch64": 280}.get(platform.machine())


class _NextId(ctypes.Structure):
    _fields_ = [("start_id", ctypes.c_uint32), ("next_id", ctypes.c_uint32),
                ("open_flags", ctypes.c_uint32)]


def prog_ids(libc):
    """The ids of the BPF programs loaded now (BPF_PROG_GET_NEXT_ID)."""
    ids, attr = set(), _NextId(0, 0, 0)
    while libc.syscall(NR_BPF, BPF_PROG_GET_NEXT_ID, ctypes.byref(attr),
                       ctypes.sizeof(attr)) == 0:
        ids.add(attr.next_id)
        attr.start_id = attr.next_id
    return ids


def stats_on():
    try:
        with open("/proc/sys/kernel/bpf_stats_enabled") as f:
            return f.read().strip() != "0"
    except OSError:
        return False


def job_of(pid, timeout_s=30.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                kids = f.read().split()
        except OSError:
            return None
        if kids:
            return int(kids[0])
        time.sleep(0.005)
    return None


def reads_of(job):
    with open(f"/proc/{job}/io") as f:
        for line in f:
            if line.startswith("syscr:"):
                return int(line.split()[1])
    raise OSError("no syscr in /proc/%d/io" % job)


def main():
    pid, interval, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
    allowed, libc = None, None
    if len(sys.argv) > 4 and NR_BPF:
        with open(sys.argv[4]) as f:
            allowed = set(int(i) for i in f.read().split())
        libc = ctypes.CDLL(None, use_errno=True)
    foreign = stats = False
    samples = []
    job = job_of(pid)
    if job is not None:
        # MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED), as clock_getcpuclockid() makes it.
        clock = ((~job) << 3) | 2
        while True:
            try:
                cpu = time.clock_gettime_ns(clock)
                reads = reads_of(job)
                with open(f"/proc/{job}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                        break  # exited, not yet reaped
            except OSError:
                break
            samples.append((time.monotonic_ns(), cpu, reads))
            if allowed is not None and not foreign:
                foreign = bool(prog_ids(libc) - allowed)
            stats = stats or stats_on()
            time.sleep(interval)
    with open(out, "w") as f:
        for s in samples:
            f.write("%d %d %d\n" % s)
    kept = samples[1:-1]
    per_io = [(b[1] - a[1]) / (b[2] - a[2]) for a, b in zip(kept, kept[1:]) if b[2] > a[2]]
    flags = "%d %d" % (foreign, stats)
    if len(per_io) < 4:
        print("NA NA NA 0", flags)
        return
    total = (kept[-1][1] - kept[0][1]) / (kept[-1][2] - kept[0][2])
    p25 = statistics.quantiles(per_io, n=4, method="inclusive")[0]
    print("%.1f %.1f %.1f %d %s" % (p25, statistics.median(per_io), total, len(per_io), flags))


if __name__ == "__main__":
    main()
