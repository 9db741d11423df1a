"""Memory: resident sets of outpostd and outpost-telemetry from /proc (status,
smaps_rollup, smaps, pagemap), their CPU time, and where the pages are."""

import array
import os
import statistics

PROCESSES = ("outpostd", "outpost-telemetry")


def read_status(pid):
    fields = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS", "Threads", "RssAnon", "RssFile", "RssShmem"):
                fields[key] = int(value.split()[0]) * 1024 if key != "Threads" else int(value)
    return fields


def read_rollup(pid):
    out = {}
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[2] == "kB":
                out[parts[0].rstrip(":")] = int(parts[1]) * 1024
    keep = ("Rss", "Pss", "Pss_Anon", "Pss_File", "Pss_Shmem", "Shared_Clean", "Shared_Dirty",
            "Private_Clean", "Private_Dirty", "Anonymous")
    result = {k: out[k] for k in keep if k in out}
    # File-backed = Rss minus anonymous memory: program text, libraries,
    # the WAL index (-shm). Mostly pages that other processes can share.
    result["file_backed"] = out.get("Rss", 0) - out.get("Anonymous", 0)
    return result


def owner_of(mapping, size, database, is_stack=False):
    """Which group a mapping's pages belong to."""
    if not mapping:
        # A thread's stack is the anonymous mapping its stack pointer is in
        # (glibc: 8 MiB from RLIMIT_STACK less a guard page); other
        # anonymous memory is malloc (arenas, large blocks) and whatever
        # else mmap()s anonymously.
        stack_sizes = (8 * 1024 * 1024, 8 * 1024 * 1024 - PAGE)
        if is_stack or size in stack_sizes:
            return "thread_stacks"
        return "anonymous(malloc arenas, mmap)"
    base = os.path.basename(mapping)
    if mapping == "[heap]":
        return "heap(main malloc arena)"
    if mapping.startswith("["):
        return mapping
    if database and mapping.startswith(database):
        return "database " + mapping[len(database):].lstrip("-") if mapping != database else "database"
    for prefix, group in (("outpostd", "outpostd"), ("outpost-telemetry", "outpost-telemetry"),
                          ("libc.so", "libc"), ("libstdc++", "libstdc++"),
                          ("libssl", "openssl"), ("libcrypto", "openssl"),
                          ("libsqlite3", "sqlite"), ("libpaho-mqttpp", "paho_cpp"),
                          ("libpaho-mqtt3", "paho_c"), ("ld-linux", "ld.so"),
                          ("libm.so", "libm"), ("libgcc_s", "libgcc")):
        if base.startswith(prefix):
            return group
    return base


def stack_pointers(pid):
    """The stack pointer of every thread not running right now, from
    /proc/PID/task/TID/syscall ("nr args... sp pc"; root or the owner)."""
    pointers = []
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/syscall" % (pid, tid)) as f:
                fields = f.read().split()
        except OSError:
            continue
        if len(fields) >= 3:
            pointers.append(int(fields[-2], 16))
    return pointers


def read_smaps(pid, database):
    groups = {}
    current = None
    pointers = stack_pointers(pid)
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            parts = line.split()
            if "-" in parts[0] and len(parts) >= 5 and ":" not in parts[0]:
                start, end = (int(x, 16) for x in parts[0].split("-"))
                mapping = parts[5] if len(parts) > 5 else ""
                is_stack = any(start <= sp < end for sp in pointers)
                current = groups.setdefault(owner_of(mapping, end - start, database, is_stack),
                                            {"Rss": 0, "Pss": 0, "Private_Dirty": 0,
                                             "Anonymous": 0, "mappings": 0})
                current["mappings"] += 1
            elif current is not None and len(parts) == 3 and parts[2] == "kB":
                key = parts[0].rstrip(":")
                if key in current:
                    current[key] += int(parts[1]) * 1024
    return {name: g for name, g in sorted(groups.items(), key=lambda kv: -kv[1]["Rss"])
            if g["Rss"] > 0}


PAGE = os.sysconf("SC_PAGE_SIZE")
PFN_MASK = (1 << 55) - 1


def page_kind(path, file_page):
    """What a resident page is, for the union's split: "libraries" (file
    pages of shared libraries and locale data, shared with every process
    that maps them), "programs" (file pages of outpostd and
    outpost-telemetry themselves) or "anonymous" (heap, stacks, the
    private copies the loader made of relocated library data)."""
    if not file_page or not path or path.startswith("["):
        return "anonymous"
    if os.path.basename(path).startswith(("outpostd", "outpost-telemetry")):
        return "programs"
    return "libraries"


def resident_keys(pid):
    """{key: kind} with one key per resident page of `pid`: its page frame
    number when the kernel shows them (root), else (device, inode, page
    offset) for a file page and (pid, virtual page) for an anonymous one.
    Keys from two processes are equal exactly when they are the same
    physical page (with frame numbers) or the same page of the same file
    (the page cache holds one copy). The kind is page_kind()'s."""
    keys = {}
    with_pfn = False
    fd = os.open("/proc/%d/pagemap" % pid, os.O_RDONLY)
    try:
        with open("/proc/%d/maps" % pid) as maps:
            for line in maps:
                parts = line.split()
                start, end = (int(x, 16) for x in parts[0].split("-"))
                offset, device, inode = int(parts[2], 16) // PAGE, parts[3], parts[4]
                path = parts[5] if len(parts) > 5 else ""
                try:
                    data = os.pread(fd, (end - start) // PAGE * 8, start // PAGE * 8)
                except OSError:
                    continue  # [vsyscall]
                entries = array.array("Q")
                entries.frombytes(data)
                first = start // PAGE
                for i, entry in enumerate(entries):
                    if not entry >> 63:
                        continue  # not present (bit 63)
                    # Bit 61: a file page (or shared anonymous memory).
                    file_page = bool((entry >> 61) & 1) and inode != "0"
                    pfn = entry & PFN_MASK
                    if pfn:
                        with_pfn = True
                        key = pfn
                    elif file_page:
                        key = (device, inode, offset + i)
                    else:
                        key = (pid, first + i)
                    keys[key] = page_kind(path, file_page)
    finally:
        os.close(fd)
    return keys, with_pfn


def resident_union(pids):
    """Bytes of the physical pages the processes map, each counted once,
    and the same split by page_kind()."""
    union, method = {}, "file offsets"
    for pid in pids:
        keys, with_pfn = resident_keys(pid)
        union.update(keys)
        method = "page frames" if with_pfn else method
    by_kind = {"libraries": 0, "programs": 0, "anonymous": 0}
    for kind in union.values():
        by_kind[kind] += PAGE
    return len(union) * PAGE, by_kind, method


def child_pids(pid):
    children = []
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                children += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return children


def cpu_seconds(pid):
    """User + system CPU time the process has used so far (/proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_figures(pid, samples, database, cpu_at_start=None):
    """One process's figures: the kernel's peak, the medians of the samples
    in the second half of the phase, CPU time used during the phase (a
    build's cost per alarm, next to its memory), and the breakdown now."""
    status = read_status(pid)
    half = samples[len(samples) // 2:] or samples
    return {
        "pid": pid,
        "phase_cpu_seconds": (round(cpu_seconds(pid) - cpu_at_start, 2)
                              if cpu_at_start is not None else None),
        "peak_rss_bytes": status["VmHWM"],
        "steady_rss_bytes": int(statistics.median(s[0] for s in half)),
        "min_rss_bytes": min(s[0] for s in samples),
        "peak_pss_bytes": max(s[1] for s in samples),
        "steady_pss_bytes": int(statistics.median(s[1] for s in half)),
        "steady_anonymous_bytes": int(statistics.median(s[2] for s in half)),
        "threads": status["Threads"],
        "smaps_rollup": read_rollup(pid),
        "by_mapping": read_smaps(pid, database),
    }
