#!/usr/bin/env python3
"""Outpost's footprint on a gateway: flash (stripped program sizes) and memory
(outpostd and its outpost-telemetry process, resident sets under load).
Prints one JSON document.

  bench/footprint/footprint.py [--build DIR] [--size-build DIR ...] [--seconds N]
                               [--alarm-rate N] [--telemetry-rate N] [--quota-mib N]

--build DIR        the build whose outpostd runs the memory scenarios
                   (default build-release; a release build is what ships)
--size-build DIR   more builds to size (a cross build, a static minsize
                   build); repeatable. The architecture is read from the ELF
                   header and the matching <triplet>-strip is used.
--seconds N        length of each loaded phase (default 20)
--alarm-rate N     alarms/s through outpostd's socket (default 500)
--telemetry-rate N telemetry datagrams/s to its datagram socket (default 5000)
--quota-mib N      database.quota_bytes for every scenario; the "full store"
                   ones fill it until outpostd answers store_full (default 64)
--only A,B         run only these memory scenarios (names below)
--full-store PATH  use this database (filled to --quota-mib by an earlier
                   run with --keep-full-store) instead of filling one
--keep-full-store PATH  copy the database this run filled to PATH

Memory scenarios (each a fresh outpostd, mosquitto on loopback as broker):
  idle, alarms, alarms_telemetry        empty store, broker up
  full_store_broker_down                the store at its quota, broker
                                        unreachable (nothing can drain)
  full_store_alarms_telemetry           the store at its quota, broker up:
                                        the backlog drains while alarms and
                                        telemetry arrive
  alarms_telemetry_tls,                 the same over ssl:// with client
  full_store_alarms_telemetry_tls       certificates, as the example
                                        configuration runs (the worst case)
outpostd runs the telemetry lane in a second process, outpost-telemetry (its
child), so every scenario measures both ("processes"), each with:
VmHWM (peak, the kernel's exact figure), VmRSS (median of the samples in the
second half of the phase), Pss and anonymous memory (smaps_rollup, the same
samples), and where the resident pages are (/proc/PID/smaps at the end of
the phase): Rss/Pss/Private_Dirty per mapped object (the program's own
image, libc, libstdc++, OpenSSL, SQLite, paho, heap, thread stacks, the WAL
index); phase_cpu_seconds is its user+system CPU time over the phase, to set
a build's memory against its CPU per alarm (alarms_answered_ok and
published_in_phase count the alarms of the phase). "pair" adds the two up three ways:
  rss_sum        VmRSS + VmRSS (VmHWM + VmHWM for the peak): counts the
                 library pages both map twice, an upper bound
  pss_sum        Pss + Pss: each page shared with N processes counts 1/N,
                 so it also depends on what else runs on the machine
  resident_union every physical page either process maps, counted once
                 (from /proc/PID/pagemap: page frame numbers as root, else
                 file offsets of file pages); for one process this is its
                 RSS. The target is judged on this one.
Peaks of the sums and of the union are the largest of the samples (every
0.25 s; the union every second); steady figures are medians of the second
half. Sizes and RSS in bytes. Timing on a shared machine is noisy; the byte
counts are what they are at that moment.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

from load import AlarmLoad, Daemon, Mosquitto, TelemetryLoad, fail, free_port
from memory import PROCESSES, cpu_seconds, process_figures, read_rollup, read_status, resident_union
from sizes import program_sizes

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def measure(daemon, seconds, loads=()):
    """Samples both processes every 0.25 s (VmRSS, Pss, anonymous) and the
    union of their resident pages every second for `seconds`; figures and
    breakdowns at the end."""
    samples = {name: [] for name in PROCESSES}
    sums, unions, method = [], [], None
    pids_seen = {name: set() for name in PROCESSES}
    sent_at_start = (daemon.status().get("publisher") or {}).get("sent", 0)
    cpu_at_start = {"outpostd": cpu_seconds(daemon.pid)}
    telemetry_pid = daemon.telemetry_pid()
    if telemetry_pid is not None:
        cpu_at_start["outpost-telemetry"] = (telemetry_pid, cpu_seconds(telemetry_pid))
    end = time.monotonic() + seconds
    next_union = 0.0
    while time.monotonic() < end:
        pids = {"outpostd": daemon.pid, "outpost-telemetry": daemon.telemetry_pid()}
        row = {}
        for name, pid in pids.items():
            if pid is None:
                continue
            try:
                rss = read_status(pid)["VmRSS"]
                rollup = read_rollup(pid)
            except (OSError, KeyError):
                continue  # the process ended between the lookup and the read
            pids_seen[name].add(pid)
            row[name] = (rss, rollup.get("Pss", 0), rollup.get("Anonymous", 0))
            samples[name].append(row[name])
        if len(row) == len(PROCESSES):
            sums.append((sum(r[0] for r in row.values()), sum(r[1] for r in row.values())))
            if time.monotonic() >= next_union:
                try:
                    union, by_kind, method = resident_union(pids.values())
                    unions.append((union, by_kind))
                except OSError:
                    pass
                next_union = time.monotonic() + 1.0
        time.sleep(0.25)
    if not sums or not unions:
        fail("could not sample both processes (outpost-telemetry pids seen: %s)"
             % sorted(pids_seen["outpost-telemetry"]))
    processes = {}
    for name in PROCESSES:
        pid = daemon.pid if name == "outpostd" else daemon.telemetry_pid()
        start = cpu_at_start.get(name)
        if name == "outpost-telemetry":  # only if the same process ran the whole phase
            start = start[1] if start is not None and start[0] == pid else None
        processes[name] = process_figures(pid, samples[name], daemon.database, start)
    # A telemetry process that was restarted has its own VmHWM only.
    processes["outpost-telemetry"]["pids_seen"] = len(pids_seen["outpost-telemetry"])
    half = len(sums) // 2
    pair = {
        "peak_rss_sum_bytes": sum(processes[n]["peak_rss_bytes"] for n in PROCESSES),
        "steady_rss_sum_bytes": int(statistics.median(s[0] for s in sums[half:])),
        "peak_pss_sum_bytes": max(s[1] for s in sums),
        "steady_pss_sum_bytes": int(statistics.median(s[1] for s in sums[half:])),
        "peak_resident_union_bytes": max(u[0] for u in unions),
        "steady_resident_union_bytes": int(statistics.median(
            u[0] for u in unions[len(unions) // 2:])),
        # The split of the largest sample.
        "peak_resident_union_by_kind": max(unions, key=lambda u: u[0])[1],
        "union_samples": len(unions),
        "union_method": method,
    }
    result = {"processes": processes, "pair": pair}
    live = daemon.status()
    result["published_in_phase"] = (live.get("publisher") or {}).get("sent", 0) - sent_at_start
    for load in loads:
        load.stop()
    result["daemon_status"] = {k: live.get(k) for k in ("publisher", "telemetry", "ingest", "store")
                               if k in live}
    return result


def scenario(binary, workdir, name, broker_port, quota, seconds, alarm_rate, telemetry_rate,
             database=None, pki=None):
    run_dir = os.path.join(workdir, name)
    os.makedirs(run_dir)
    db = os.path.join(run_dir, "gateway.db")
    if database:
        for suffix in ("", "-wal"):
            if os.path.exists(database + suffix):
                shutil.copyfile(database + suffix, db + suffix)
    daemon = Daemon(binary, run_dir, db, broker_port, quota, pki)
    loads = []
    try:
        daemon.wait_for_telemetry()
        if alarm_rate:
            loads.append(AlarmLoad(daemon.ingest, alarm_rate, 4))
        if telemetry_rate:
            loads.append(TelemetryLoad(daemon.telemetry, telemetry_rate))
        result = measure(daemon, seconds, loads)
        result["offered"] = {"alarms_per_s": alarm_rate, "telemetry_per_s": telemetry_rate,
                             "seconds": seconds}
        for load in loads:
            if isinstance(load, AlarmLoad):
                result["offered"]["alarms_answered_ok"] = load.recorded
                result["offered"]["alarm_errors"] = load.errors
            else:
                result["offered"]["telemetry_sent"] = load.sent
                result["offered"]["telemetry_send_failed"] = load.failed
    finally:
        for load in loads:
            load.stop()
        daemon.stop()
    return result


def fill_store(binary, workdir, quota):
    """A store at its quota with every event pending: outpostd with an
    unreachable broker, alarms as fast as 16 connections get answers, until
    store_full. Returns the database path and the fill's figures."""
    run_dir = os.path.join(workdir, "fill")
    os.makedirs(run_dir)
    db = os.path.join(run_dir, "gateway.db")
    daemon = Daemon(binary, run_dir, db, free_port(), quota)
    started = time.monotonic()
    load = AlarmLoad(daemon.ingest, 0, 16, stop_on_full=True)
    load.full.wait(900)
    load.stop()
    seconds = time.monotonic() - started
    figures = {"alarms": load.recorded, "seconds": round(seconds, 1),
               "peak_rss_bytes_while_filling": read_status(daemon.pid)["VmHWM"]}
    store = daemon.status().get("store", {})
    figures["database_bytes"] = store.get("database_bytes")
    figures["pending"] = store.get("pending")
    daemon.stop()
    if not load.full.is_set():
        fail("the store did not reach its quota")
    return db, figures


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build-release")
    parser.add_argument("--size-build", action="append", default=[])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--alarm-rate", type=int, default=500)
    parser.add_argument("--telemetry-rate", type=int, default=5000)
    parser.add_argument("--quota-mib", type=int, default=64)
    parser.add_argument("--only", help="comma-separated scenario names (default: all)")
    parser.add_argument("--full-store", help="a database at the quota from --keep-full-store")
    parser.add_argument("--keep-full-store", help="copy the filled database here")
    args = parser.parse_args()

    for path in ("full_store", "keep_full_store"):
        if getattr(args, path):
            setattr(args, path, os.path.abspath(getattr(args, path)))
    os.chdir(REPO)
    binary = os.path.join(args.build, "src", "daemon", "outpostd")
    for program in (binary, os.path.join(args.build, "src", "daemon", "outpost-telemetry")):
        if not os.path.exists(program):
            fail("no %s in %s: meson setup %s -Dbuildtype=release && meson compile -C %s"
                 % (os.path.basename(program), args.build, args.build, args.build))
    for tool in ("mosquitto", "openssl", "readelf"):
        if shutil.which(tool) is None:
            fail(tool + " is not installed (scripts/setup)")

    report = {"sizes": {}, "memory": {}}
    for build in [args.build] + args.size_build:
        arch, sizes = program_sizes(build)
        report["sizes"].setdefault(arch, []).append(sizes)

    quota = args.quota_mib * 1024 * 1024
    only = set(args.only.split(",")) if args.only else None
    workdir = tempfile.mkdtemp(prefix="outpost-footprint.")
    broker = Mosquitto(workdir)
    try:
        plain = [("idle", 0, 0, False), ("alarms", args.alarm_rate, 0, False),
                 ("alarms_telemetry", args.alarm_rate, args.telemetry_rate, False),
                 ("alarms_telemetry_tls", args.alarm_rate, args.telemetry_rate, True)]
        for name, alarms, telemetry, tls in plain:
            if only is None or name in only:
                report["memory"][name] = scenario(
                    binary, workdir, name, broker.tls_port if tls else broker.port, quota,
                    args.seconds if alarms else min(args.seconds, 10), alarms, telemetry,
                    pki=broker.pki if tls else None)
        full = ["full_store_broker_down", "full_store_alarms_telemetry",
                "full_store_alarms_telemetry_tls"]
        if only is None or only & set(full):
            if args.full_store:
                database = os.path.abspath(args.full_store)
                report["fill"] = {"reused": database}
            else:
                database, figures = fill_store(binary, workdir, quota)
                report["fill"] = figures
                if args.keep_full_store:
                    for suffix in ("", "-wal"):
                        if os.path.exists(database + suffix):
                            shutil.copyfile(database + suffix, args.keep_full_store + suffix)
            if only is None or full[0] in only:
                report["memory"][full[0]] = scenario(binary, workdir, full[0], free_port(), quota,
                                                     min(args.seconds, 10), 0, 0, database)
            if only is None or full[1] in only:
                report["memory"][full[1]] = scenario(binary, workdir, full[1], broker.port, quota,
                                                     args.seconds, args.alarm_rate,
                                                     args.telemetry_rate, database)
            if only is None or full[2] in only:
                report["memory"][full[2]] = scenario(binary, workdir, full[2], broker.tls_port,
                                                     quota, args.seconds, args.alarm_rate,
                                                     args.telemetry_rate, database, broker.pki)
    finally:
        broker.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    memory = report["memory"]
    union_peaks = [m["pair"]["peak_resident_union_bytes"] for m in memory.values()]
    report["summary"] = {
        "outpostd_stripped_bytes": {arch: [s.get("outpostd", {}).get("stripped_bytes")
                                           for s in builds]
                                    for arch, builds in report["sizes"].items()},
        "peak_rss_bytes": {name: {p: m["processes"][p]["peak_rss_bytes"] for p in PROCESSES}
                           for name, m in memory.items()},
        "steady_pss_bytes": {name: {p: m["processes"][p]["steady_pss_bytes"] for p in PROCESSES}
                             for name, m in memory.items()},
        "pair": {name: {k: m["pair"][k] for k in ("peak_rss_sum_bytes", "peak_pss_sum_bytes",
                                                   "peak_resident_union_bytes",
                                                   "steady_resident_union_bytes")}
                 for name, m in memory.items()},
        "max_pair_peak_resident_union_bytes": max(union_peaks) if union_peaks else None,
        "target_peak_rss_bytes": 10 * 1000 * 1000,
        "target_judged_on": "pair.peak_resident_union_bytes",
    }
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
