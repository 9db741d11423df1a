"""The load the memory scenarios run under: mosquitto with a plain and a
mutual-TLS listener, outpostd with its configuration, alarms through its
socket and telemetry datagrams to its lane."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from memory import child_pids


def fail(message):
    print("footprint: " + message, file=sys.stderr)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_pki(workdir):
    """A throwaway CA, a broker certificate for 127.0.0.1 and a client
    certificate (EC P-256, as tests/support/test_pki.h makes them)."""
    pki = os.path.join(workdir, "pki")
    os.makedirs(pki)
    files = {name: os.path.join(pki, name) for name in
             ("ca.key", "ca.crt", "server.key", "server.crt", "client.key", "client.crt")}

    def openssl(*argv):
        subprocess.run(["openssl"] + list(argv), check=True, capture_output=True)

    for key in ("ca.key", "server.key", "client.key"):
        openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-out", files[key])
    openssl("req", "-x509", "-new", "-key", files["ca.key"], "-out", files["ca.crt"], "-days",
            "2", "-subj", "/CN=footprint-ca", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    for leaf, extensions in (
            ("server", "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n"),
            ("client", "extendedKeyUsage=clientAuth\n")):
        csr, ext = os.path.join(pki, leaf + ".csr"), os.path.join(pki, leaf + ".ext")
        with open(ext, "w") as f:
            f.write("basicConstraints=CA:FALSE\n" + extensions)
        openssl("req", "-new", "-key", files[leaf + ".key"], "-out", csr, "-subj",
                "/CN=gw-footprint")
        openssl("x509", "-req", "-in", csr, "-CA", files["ca.crt"], "-CAkey", files["ca.key"],
                "-CAcreateserial", "-out", files[leaf + ".crt"], "-days", "2", "-extfile", ext)
    return files


class Mosquitto:
    """mosquitto on free loopback ports, in the foreground: a plain listener
    and a mutual-TLS one (as the example configuration's ssl:// broker);
    waits for its ready line."""

    def __init__(self, workdir):
        self.port = free_port()
        self.tls_port = free_port()
        self.pki = make_pki(workdir)
        conf = os.path.join(workdir, "mosquitto.conf")
        with open(conf, "w") as f:
            f.write("per_listener_settings false\nlog_type all\nallow_anonymous true\n"
                    "persistence false\nmax_queued_messages 100000\n"
                    "listener %d 127.0.0.1\n" % self.port)
            f.write("listener %d 127.0.0.1\ncafile %s\ncertfile %s\nkeyfile %s\n"
                    "require_certificate true\n"
                    % (self.tls_port, self.pki["ca.crt"], self.pki["server.crt"],
                       self.pki["server.key"]))
            if os.getuid() == 0:
                f.write("user root\n")
        self.log = open(os.path.join(workdir, "mosquitto.log"), "w+")
        self.process = subprocess.Popen(["mosquitto", "-c", conf], stdout=self.log,
                                        stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            self.log.seek(0)
            if " running" in self.log.read():
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        fail("mosquitto did not start (see %s)" % self.log.name)

    def stop(self):
        self.process.terminate()
        self.process.wait(10)


class Daemon:
    def __init__(self, binary, workdir, database, broker_port, quota, pki=None):
        self.ingest = os.path.join(workdir, "outpostd.sock")
        self.telemetry = os.path.join(workdir, "telemetry.sock")
        self.database = database
        config = {
            "gateway_id": "gw-footprint",
            "database": {"path": database, "quota_bytes": quota},
            "broker": {"uri": "%s://127.0.0.1:%d" % ("ssl" if pki else "tcp", broker_port),
                       "connect_timeout_ms": 1000},
            # No bridge here: receipts off, SENT is final.
            "publisher": {"reconnect_max_ms": 1000, "receipts": False},
            "telemetry": {"datagram_socket": self.telemetry},
            "ingest": {"socket": self.ingest, "max_clients": 64},
            "logging": {"level": "warn"},
        }
        if pki:
            config["broker"]["tls"] = {"ca_file": pki["ca.crt"], "cert_file": pki["client.crt"],
                                       "key_file": pki["client.key"]}
        path = os.path.join(workdir, "outpostd.json")
        with open(path, "w") as f:
            json.dump(config, f)
        self.log = open(os.path.join(workdir, "outpostd.log"), "a")
        self.process = subprocess.Popen([binary, "--config", path], stdout=self.log,
                                        stderr=subprocess.STDOUT)
        self.pid = self.process.pid
        deadline = time.monotonic() + 120  # quick_check of a full store
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                fail("outpostd exited with %s (see %s)" % (self.process.returncode, self.log.name))
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(self.ingest)
                    s.sendall(b'{"op":"ping"}\n')
                    if b'"ok":true' in s.recv(100):
                        return
            except OSError:
                pass
            time.sleep(0.05)
        fail("outpostd did not answer on its socket")

    def telemetry_pid(self):
        """outpostd's child running outpost-telemetry (it binds the datagram
        socket, so it is up once that socket exists); None while there is
        none (outpostd restarts a dead one with backoff)."""
        for child in child_pids(self.pid):
            try:
                if os.path.basename(os.readlink("/proc/%d/exe" % child)) == "outpost-telemetry":
                    return child
            except OSError:
                pass
        return None

    def wait_for_telemetry(self):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.telemetry_pid() is not None and os.path.exists(self.telemetry):
                return
            time.sleep(0.05)
        fail("outpostd started no outpost-telemetry (see %s)" % self.log.name)

    def status(self):
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(self.ingest)
            s.sendall(b'{"op":"status"}\n')
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        return json.loads(data)["status"]

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(60)
        if self.process.returncode != 0:
            fail("outpostd exited with %d on SIGTERM" % self.process.returncode)


def alarm_line(connection, n):
    return ('{"op":"raise_alarm","alarm":{"deviceId":"pump-%d","alarmType":"OVER_TEMPERATURE",'
            '"severity":"critical","value":%d.5,"unit":"degC","text":"bearing temperature '
            'above the limit","idempotencyKey":"fp-%d-%d-%d"}}\n'
            % (connection % 8, n % 100, os.getpid(), connection, n)).encode()


class AlarmLoad:
    """`rate` alarms/s (0: as fast as answered) over `connections` sockets,
    each waiting for its answer (the durable commit) before the next."""

    def __init__(self, path, rate, connections, stop_on_full=False):
        self.path, self.rate, self.connections = path, rate, connections
        self.stop_on_full = stop_on_full
        self.stopping = threading.Event()
        self.full = threading.Event()
        self.recorded = 0
        self.errors = {}
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.run, args=(i,), daemon=True)
                        for i in range(connections)]
        for t in self.threads:
            t.start()

    def run(self, index):
        interval = self.connections / self.rate if self.rate else 0
        start = time.monotonic()
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(self.path)
            reader = s.makefile("rb")
            n = 0
            while not self.stopping.is_set():
                s.sendall(alarm_line(index, n))
                answer = reader.readline()
                with self.lock:
                    if b'"ok":true' in answer:
                        self.recorded += 1
                    else:
                        code = json.loads(answer)["error"]["code"] if answer else "closed"
                        self.errors[code] = self.errors.get(code, 0) + 1
                        if code == "store_full":
                            self.full.set()
                            if self.stop_on_full:
                                return
                        if code == "closed":
                            return
                n += 1
                delay = start + n * interval - time.monotonic()
                if delay > 0:
                    time.sleep(delay)

    def stop(self):
        self.stopping.set()
        for t in self.threads:
            t.join(10)


class TelemetryLoad:
    """`rate` datagrams/s "<key>\\n<payload>" to the telemetry socket, sent
    in bursts every 10 ms, over 50 keys."""

    def __init__(self, path, rate):
        self.path, self.rate = path, rate
        self.stopping = threading.Event()
        self.sent = 0
        self.failed = 0
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        start = time.monotonic()
        while not self.stopping.is_set():
            due = int((time.monotonic() - start) * self.rate)
            while self.sent + self.failed < due:
                n = self.sent + self.failed
                datagram = b"sensor-%d/temperature\n{\"v\":%d.25,\"n\":%d}" % (n % 50, n % 90, n)
                try:
                    s.sendto(datagram, self.path)
                    self.sent += 1
                except OSError:
                    self.failed += 1  # the socket's queue is full: the lane is behind
            time.sleep(0.01)
        s.close()

    def stop(self):
        self.stopping.set()
        self.thread.join(10)
