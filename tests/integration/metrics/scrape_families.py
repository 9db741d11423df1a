#!/usr/bin/env python3
"""The metric families running programs emit are the ones
docs/reference/metrics.md documents, and no other.

Starts a real mosquitto, a real outpostd with every optional part on
(telemetry, the alarm socket, receipts) and a real outpost-bridge with two
session processes (so the supervisor's families appear) and retired
sessions, against the runner's RocketMQ. One alarm goes from the alarm
socket through the broker and the bridge into RocketMQ and comes back
confirmed by a receipt, so that every path a family counts on has run. Then
it scrapes both /metrics endpoints and compares the families (their
`# TYPE` lines) with the tables of the page, read with check_reference.py's
parser: a family emitted but not documented fails, and so does one
documented but emitted by neither program, unless RARELY_EMITTED lists it
with the reason. It also checks that every metric the bridge's alert rules
name is one the running bridge emits (tests/integration/daemon does this
for outpostd's rules).

Usage: scrape_families.py BUILD_DIR METRICS_PAGE BRIDGE_RULES
Environment: OUTPOST_ROCKETMQ_ENV, the env file `scripts/rocketmq.sh start
DIR` writes. Prints TAP; SKIP without mosquitto or RocketMQ.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs"))
from check_reference import documented_families  # noqa: E402

# Documented families the programs this test starts do not emit, each with
# why. Keep it short: every entry is a family no test scrapes.
RARELY_EMITTED = {
    # None: with every optional part on, both programs emit every family.
}

PROGRAMS = {
    "outpostd": os.path.join("src", "daemon", "outpostd"),
    "outpost-bridge": os.path.join("src", "bridge", "outpost-bridge"),
}

TIMEOUT_S = 60


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def await_condition(what, condition, logs=()):
    """Polls `condition` until it returns a true value, which it returns."""
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    tails = "".join(f"\n--- {path}\n{read_tail(path)}" for path in logs)
    raise RuntimeError(f"{what}: not within {TIMEOUT_S} s{tails}")


def read_tail(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read()[-3000:]
    except OSError as error:
        return str(error)


def scrape(port):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
            return answer.read().decode("utf-8")
    except OSError:
        return ""


def families(text):
    """Family name -> type, from the `# TYPE` lines."""
    return dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.MULTILINE))


def sample(text, name):
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else None


def rocketmq_env():
    path = os.environ.get("OUTPOST_ROCKETMQ_ENV", "")
    if not path:
        return None
    env = {}
    with open(path, encoding="utf-8") as file:
        for line in file:
            key, _, value = line.strip().partition("=")
            env[key] = value
    return env


class Processes:
    """The children, ended (SIGTERM, then SIGKILL) in reverse order."""

    def __init__(self, directory):
        self.directory = directory
        self.children = []

    def start(self, name, command):
        log = os.path.join(self.directory, name + ".log")
        with open(log, "w", encoding="utf-8") as output:
            child = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.children.append(child)
        return log

    def stop(self):
        for child in reversed(self.children):
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
                try:
                    child.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as file:
        json.dump(value, file, indent=2)
    return path


def run_programs(build_dir, directory, namesrv):
    """Starts everything, sends one alarm through, and returns the two
    scrapes (outpostd's, the bridge's)."""
    processes = Processes(directory)
    try:
        mqtt_port = free_port()
        with open(os.path.join(directory, "mosquitto.conf"), "w", encoding="utf-8") as conf:
            conf.write(f"listener {mqtt_port} 127.0.0.1\nallow_anonymous true\n"
                       "persistence false\n")
        mosquitto_log = processes.start(
            "mosquitto", [shutil.which("mosquitto"), "-c",
                          os.path.join(directory, "mosquitto.conf")])
        await_condition("mosquitto listening", lambda: connectable(mqtt_port), [mosquitto_log])
        uri = f"tcp://127.0.0.1:{mqtt_port}"

        run_id = f"{os.getpid()}-{int(time.time())}"
        bridge_port = free_port()
        bridge_config = write_json(os.path.join(directory, "bridge.json"), {
            "mqtt": {"uri": uri, "client_id": f"scrape-bridge-{run_id}",
                     "shared_group": f"scrape-{run_id}", "sessions": 2,
                     "reconnect_min_ms": 100, "reconnect_max_ms": 1000},
            "rocketmq": {"name_servers": namesrv, "producer_group": "outpost_bridge_scrape",
                         "send_timeout_ms": 3000},
            "mapping": [{"mqtt_filter": "outpost/+/alarm/+", "rocketmq_topic": "OutpostScrape",
                         "tag": "${payload.severity}"}],
            "quarantine_topic": "OutpostScrapeQuarantine",
            "receipts": {"enabled": True},
            "metrics": {"listen": f"127.0.0.1:{bridge_port}"},
            "status": {"interval_ms": 200, "log_to_stderr": False}})
        bridge_log = processes.start(
            "outpost-bridge", [os.path.join(build_dir, PROGRAMS["outpost-bridge"]),
                               "--config", bridge_config])
        await_condition("the bridge's sessions connected",
                        lambda: bridge_sessions_connected(scrape(bridge_port), 2), [bridge_log])

        daemon_port = free_port()
        ingest_socket = os.path.join(directory, "alarms.sock")
        daemon_config = write_json(os.path.join(directory, "outpostd.json"), {
            "gateway_id": "gw-scrape",
            "database": {"path": os.path.join(directory, "outbox.db")},
            "broker": {"uri": uri, "connect_timeout_ms": 2000},
            "publisher": {"receipts": True, "reconnect_initial_ms": 50,
                          "reconnect_max_ms": 400, "lease_retry_ms": 50},
            "telemetry": {"datagram_socket": os.path.join(directory, "telemetry.sock")},
            "ingest": {"socket": ingest_socket},
            "metrics": {"listen": f"127.0.0.1:{daemon_port}"}})
        daemon_log = processes.start(
            "outpostd", [os.path.join(build_dir, PROGRAMS["outpostd"]), "--config",
                         daemon_config])
        logs = [daemon_log, bridge_log, mosquitto_log]
        await_condition("outpostd connected to the broker",
                        lambda: sample(scrape(daemon_port), "outpost_broker_connected") == 1,
                        logs)
        await_condition("the alarm socket", lambda: os.path.exists(ingest_socket), logs)
        raise_alarm(ingest_socket)
        daemon_text = await_condition(
            "the alarm confirmed by the bridge's receipt",
            lambda: confirmed(scrape(daemon_port)), logs)
        bridge_text = scrape(bridge_port)
        return daemon_text, bridge_text
    finally:
        processes.stop()


def connectable(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def bridge_sessions_connected(text, count):
    return len(re.findall(r'^outpost_bridge_mqtt_connected\{[^}]*\} 1$', text,
                          re.MULTILINE)) == count


def confirmed(text):
    return text if sample(text, "outpost_events_confirmed_total") == 1 else None


def raise_alarm(path):
    request = {"op": "raise_alarm", "alarm": {"deviceId": "pump-1",
                                             "alarmType": "OVER_TEMPERATURE",
                                             "severity": "critical"}}
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(30)
        connection.connect(path)
        connection.sendall((json.dumps(request) + "\n").encode())
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = connection.recv(4096)
            if not chunk:
                break
            answer += chunk
    if not json.loads(answer or b"{}").get("ok"):
        raise RuntimeError(f"raise_alarm refused: {answer!r}")


def family_problems(emitted, documented):
    problems = [f"{name}: emitted by {program}, missing from docs/reference/metrics.md"
                for program, names in emitted.items()
                for name in sorted(set(names) - set(documented))]
    everything = set().union(*emitted.values())
    for name in sorted(set(documented) - everything):
        if name not in RARELY_EMITTED:
            problems.append(f"{name}: documented in docs/reference/metrics.md, emitted by "
                            "neither running program (list it in RARELY_EMITTED with why, "
                            "if no configuration emits it)")
    for name in sorted(set(RARELY_EMITTED) & everything):
        problems.append(f"{name}: in RARELY_EMITTED but emitted: drop it from the list")
    for program, names in emitted.items():
        for name, kind in sorted(names.items()):
            if name in documented and documented[name] != kind:
                problems.append(f"{name}: {program} emits a {kind}, the page says "
                                f"{documented[name]}")
    return problems


def rule_metric_problems(rules_path, bridge_families):
    """Every outpost_ name in the rules' expressions names a family the
    running bridge emits (a histogram's _bucket counting as its family)."""
    with open(rules_path, encoding="utf-8") as file:
        # Comments aside, metric names appear only in expressions.
        text = "".join(line for line in file if not line.lstrip().startswith("#"))
    used = set(re.findall(r"\boutpost_[a-z0-9_]+", text))
    if len(used) < 5:
        return [f"only {len(used)} metric names read from {rules_path}"]
    problems = []
    for name in sorted(used):
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        family = base if bridge_families.get(base) == "histogram" else name
        if family not in bridge_families:
            problems.append(f"{name}: used by {os.path.basename(rules_path)}, "
                            "not emitted by the running bridge")
    return problems


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    build_dir, page, bridge_rules = sys.argv[1:]
    if shutil.which("mosquitto") is None:
        print("1..0 # SKIP mosquitto is not installed (apt-get install mosquitto)")
        return 0
    env = rocketmq_env()
    if env is None:
        print("1..0 # SKIP OUTPOST_ROCKETMQ_ENV is not set (the runner starts RocketMQ with "
              "scripts/rocketmq.sh start DIR and exports DIR/env)")
        return 0
    print("1..2")
    documented = documented_families(page)
    with tempfile.TemporaryDirectory(prefix="outpost-scrape-") as directory:
        try:
            daemon_text, bridge_text = run_programs(build_dir, directory, env["NAMESRV_ADDR"])
        except (OSError, RuntimeError, ValueError) as error:
            print("not ok 1 - the programs ran and were scraped")
            print("not ok 2 - the programs ran and were scraped")
            for line in str(error).splitlines():
                print(f"# {line}")
            return 1
    emitted = {"outpostd": families(daemon_text), "outpost-bridge": families(bridge_text)}
    failed = False
    problems = family_problems(emitted, documented) if documented else [
        f"no metric family found in {page}"]
    counts = ", ".join(f"{program} {len(names)}" for program, names in emitted.items())
    print(f"{'not ok' if problems else 'ok'} 1 - the families running programs emit "
          f"({counts}) are the ones docs/reference/metrics.md documents "
          f"({len(documented)}), with their types")
    for problem in problems:
        print(f"# {problem}")
    failed |= bool(problems)
    problems = rule_metric_problems(bridge_rules, emitted["outpost-bridge"])
    print(f"{'not ok' if problems else 'ok'} 2 - every metric the bridge's alert rules "
          "use is one the running bridge emits")
    for problem in problems:
        print(f"# {problem}")
    failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
