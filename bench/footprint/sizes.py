"""Flash: the sizes of the gateway's programs and of liboutpost, stripped as
they ship, by ELF section and by whose code the symbols are."""

import os
import shutil
import subprocess
import tempfile

# ELF e_machine -> (architecture name, strip program)
MACHINES = {
    62: ("x86_64", "strip"),
    183: ("aarch64", "aarch64-linux-gnu-strip"),
    40: ("armhf", "arm-linux-gnueabihf-strip"),
}


def elf_machine(path):
    with open(path, "rb") as f:
        header = f.read(20)
    if header[:4] != b"\x7fELF":
        return None
    order = "little" if header[5] == 1 else "big"
    return int.from_bytes(header[18:20], order)


def stripped_size(path, strip):
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, os.path.basename(path))
        shutil.copyfile(path, copy)
        # An archive is linked later: it keeps its symbols, loses debug info.
        mode = "--strip-debug" if path.endswith(".a") else "--strip-all"
        subprocess.run([strip, mode, copy], check=True)
        return os.path.getsize(copy)


def find_library(build):
    """liboutpost as the build made it (shared and/or static), if it exists."""
    found = {}
    for root, _dirs, files in os.walk(build):
        if "meson-private" in root or ".p" in os.path.basename(root):
            continue
        for name in files:
            full = os.path.join(root, name)
            if name.startswith("liboutpost.so") and not os.path.islink(full):
                found["shared"] = full
            elif name == "liboutpost.a":
                found["static"] = full
    return found


def section_sizes(path, machine):
    """text/data/bss as `size` reports them (Berkeley format)."""
    size_tool = "size" if machine == 62 else MACHINES[machine][1].replace("strip", "size")
    if shutil.which(size_tool) is None:
        return None
    out = subprocess.run([size_tool, path], check=True, capture_output=True, text=True).stdout
    fields = out.splitlines()[1].split()
    return {"text": int(fields[0]), "data": int(fields[1]), "bss": int(fields[2])}


def code_owners(path, machine):
    """Bytes of code and data symbols in the program, by whose code it is:
    Outpost's own (namespace outpost), C++ standard library templates
    instantiated in it, nlohmann::json, paho's C++ headers, SQLite and the
    rest (only present when those are linked statically). From
    `nm --size-sort` of the unstripped program."""
    nm_tool = "nm" if machine == 62 else MACHINES[machine][1].replace("strip", "nm")
    if shutil.which(nm_tool) is None:
        return None
    out = subprocess.run([nm_tool, "--size-sort", "-C", "-S", path],
                         capture_output=True, text=True).stdout
    owners = {"outpost": 0, "std": 0, "nlohmann_json": 0, "paho_cpp": 0, "paho_c": 0,
              "sqlite": 0, "openssl": 0, "other": 0}
    for line in out.splitlines():
        parts = line.split(" ", 3)
        if len(parts) < 4 or parts[2] not in "tTrRdDbBwWvV":
            continue
        size, name = int(parts[1], 16), parts[3]
        # The owner is the outermost namespace of the function's own name,
        # so outpost::f(std::string) is Outpost's.
        if name.startswith(("outpost::", "void outpost::", "typeinfo for outpost::",
                            "vtable for outpost::")) or " outpost::" in name.split("(")[0]:
            owners["outpost"] += size
        elif "nlohmann::" in name.split("(")[0]:
            owners["nlohmann_json"] += size
        elif "mqtt::" in name.split("(")[0]:
            owners["paho_cpp"] += size
        elif name.startswith(("std::", "void std::", "__gnu_cxx::", "typeinfo for std::",
                              "vtable for std::", "bool std::")) or "std::" in name.split("(")[0]:
            owners["std"] += size
        elif name.startswith("sqlite3") or name.startswith("sqlite"):
            owners["sqlite"] += size
        elif name.startswith(("MQTT", "Socket", "Thread_", "Heap", "SSL", "Log_")):
            owners["paho_c"] += size
        elif name.startswith(("SSL_", "EVP_", "BIO_", "X509", "CRYPTO_", "ossl_")):
            owners["openssl"] += size
        else:
            owners["other"] += size
    return owners


def program_sizes(build):
    programs = {
        "outpostd": os.path.join(build, "src", "daemon", "outpostd"),
        "outpost-telemetry": os.path.join(build, "src", "daemon", "outpost-telemetry"),
        "outpostctl": os.path.join(build, "src", "cli", "outpostctl"),
    }
    library = find_library(build)
    arch, result = None, {"build": build}
    program_machine = None  # an archive (.a) has no ELF header: it takes the programs'
    for name, path in list(programs.items()) + [
            ("liboutpost." + kind, path) for kind, path in library.items()]:
        if not os.path.exists(path):
            continue
        machine = elf_machine(path) if not path.endswith(".a") else program_machine
        if machine is None:
            continue
        program_machine = program_machine or machine
        arch, strip = MACHINES.get(machine, ("machine-%d" % machine, None))
        entry = {"bytes": os.path.getsize(path)}
        if strip and shutil.which(strip):
            entry["stripped_bytes"] = stripped_size(path, strip)
        if machine in MACHINES and not path.endswith(".a"):
            entry["sections"] = section_sizes(path, machine)
            owners = code_owners(path, machine) if name == "outpostd" else None
            if owners and entry["sections"]:
                # What no symbol covers: unwind tables, string literals,
                # the PLT and GOT, relocations.
                owners["not_in_symbols"] = (entry["sections"]["text"] + entry["sections"]["data"]
                                            - sum(owners.values()))
                entry["symbol_bytes_by_owner"] = owners
        result[name] = entry
    # The field is there even before the library exists, so readers of this
    # document see the gap rather than a missing key.
    if not library:
        result["liboutpost"] = None
    result["dynamic_libraries"] = shared_libraries(programs["outpostd"])
    result["dynamic_libraries_outpost_telemetry"] = shared_libraries(programs["outpost-telemetry"])
    return arch or "unknown", result


def shared_libraries(path):
    if not os.path.exists(path):
        return None
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
    return [line.split("[")[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]
