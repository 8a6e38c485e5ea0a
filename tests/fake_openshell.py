#!/usr/bin/python3
"""tests/fake_openshell.py - a strict loopback fake of NVIDIA OpenShell's gateway.

Run with Debian's /usr/bin/python3 (python3-grpcio, python3-protobuf,
protobuf-compiler): another python3 first on PATH may not see them.

It speaks the real wire format (gRPC over HTTP/2, service openshell.v1.OpenShell)
with messages generated at start-up by protoc from the same .proto the C client
is generated from (net/openshell.proto), through generic handlers that get
raw bytes.  Strict where the client could be wrong:

- every request is parsed and re-serialised deterministically and must match
  the received bytes exactly (wrong field numbers or wire types, fields out of
  order, defaults sent, unsorted map entries, unknown fields: all refused with
  INVALID_ARGUMENT "fake: non-canonical ..."; each one is also written to
  stderr), and so is a call without grpc-timeout;
- auth: --token T requires `authorization: Bearer T` on every call but Health
  (UNAUTHENTICATED otherwise); --tls DIR makes a throwaway CA, a server
  certificate for 127.0.0.1 and a client certificate (python3-cryptography),
  writes DIR/ca.crt, DIR/client.crt and DIR/client.key, and serves TLS; with
  --require-client-cert the handshake fails without a client certificate
  signed by that CA (the gateway's mTLS);
- the gateway's ExecSandbox validations (INVALID_ARGUMENT), NOT_FOUND for an
  unknown id or name, FAILED_PRECONDITION "sandbox is not ready" unless READY,
  ALREADY_EXISTS for a taken name, and a request over 1 MiB refused with
  OUT_OF_RANGE and tonic's message (--oversize resource_exhausted: grpcio's
  own limit, RESOURCE_EXHAUSTED, as the gateway's interceptor layer does).

CreateSandbox is validated as the gateway's validate_sandbox_spec does
(INVALID_ARGUMENT, the gateway's messages): the name a DNS label of at most
19 characters; spec.environment at most 128 entries, keys
^[A-Za-z_][A-Za-z0-9_]*$ up to 256 bytes and not OPENSHELL_*, values up to
8192 bytes without NUL or newline, 256 KiB in all; at most 32 providers, a
log level of at most 32; spec.command (the sandbox's main process) at most
256 arguments, 256 KiB in all, each at most 32 KiB without NUL, the first
not empty.  An empty command is the gateway's default, `/bin/bash -l` with
tty: nothing runs, the sandbox waits READY for exec (the harness backend's
case).  A given command is started once, when the sandbox becomes READY:
the argv itself (no shell), in bubblewrap (its own pid namespace, /sandbox
the sandbox's folder, cwd /sandbox), environment the spec's and template's
plus HOME, PATH, LANG; --share-net runs it in the host's network namespace
(this fake's stand-in for the gateway's proxied sandbox network, so that a
process in the box reaches loopback services; tests use 127.0.0.1 only),
else without a network.  --image-file HOST:PATH binds HOST read-only at PATH
in every sandbox (what the image would hold: the locus binary).  Its output
is kept as the sandbox's log lines (and copied to stderr).  When it exits,
whatever the code, the sandbox is ERROR for good, as upstream: exit_code
set (a signal is 128 + its number), condition Ready False
MainProcessExited; StartSandbox refuses it (FAILED_PRECONDITION "sandbox
must be Stopped to start"), exec too ("sandbox is not ready"), DeleteSandbox
removes it.  DeleteSandbox of a sandbox whose main process runs kills it
(its whole group) first.  --fault refuse-create answers every CreateSandbox
with UNAVAILABLE.

Sandboxes go PROVISIONING -> READY after --polls GetSandbox calls.  Exec runs
the command as the gateway does, `/bin/bash -lc '<K=v ... escaped argv>'`, in a
bubblewrap sandbox (no network) whose /sandbox is the sandbox's folder, with a
login profile that prints noise to stdout and stderr (including the provider
credential placeholder) and GITHUB_TOKEN=openshell:resolve:env:GITHUB_TOKEN in
the environment.  timeout_seconds ends the command's group and sends exit 124.
A client that cancels the stream stops the relaying only: the command runs on
until it ends or its timeout_seconds passes, as with the gateway (it has no
cancel RPC, and dropping the SSH channel signals nothing).

Faults (--fault, repeatable): cut-stream (exec ends without the exit event),
unavailable (exec fails UNAVAILABLE), unknown-phase (GetSandbox reports phase 9
before READY), error-phase (the sandbox goes to ERROR), never-ready.

--sandbox NAME:ID:DIR makes a READY sandbox over an existing folder.  Prints
"PORT <n>" once listening (tests/fake_proc.h) and ends when stdin closes, on
SIGTERM, or after --lifetime seconds whatever happens.  Loopback only.
"""

import argparse
import os
import queue
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent import futures

import grpc

SERVICE = "openshell.v1.OpenShell"
MAX_DECODE = 1048576  # tonic's MAX_GRPC_DECODE_SIZE in the gateway
PLACEHOLDER = "openshell:resolve:env:GITHUB_TOKEN"
ENV_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")

PROVISIONING, READY, ERROR, STOPPED, STARTING = 1, 2, 3, 7, 8
DEFAULT_MAIN = ["/bin/bash", "-l"]  # the gateway's default main process


def log(msg):
    sys.stderr.write("fake_openshell: %s\n" % msg)
    sys.stderr.flush()


def load_messages(proto):
    out = tempfile.mkdtemp(prefix="fake-openshell-pb-")
    protoc = shutil.which("protoc") or "/usr/bin/protoc"
    subprocess.run([protoc, "-I", os.path.dirname(os.path.abspath(proto)),
                    "--python_out", out, os.path.abspath(proto)], check=True)
    sys.path.insert(0, out)
    import openshell_pb2  # noqa: E402

    shutil.rmtree(out, ignore_errors=True)
    return openshell_pb2


def make_certs(d):
    """A CA, a server certificate (127.0.0.1) and a client certificate."""
    import datetime
    import ipaddress
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.utcnow()
    pem = serialization.Encoding.PEM

    def name(cn):
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    def issue(subject, key, issuer, issuer_key, serial, ca=False, san=None, usage=None):
        b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer)
             .public_key(key.public_key()).serial_number(serial)
             .not_valid_before(now - datetime.timedelta(minutes=5))
             .not_valid_after(now + datetime.timedelta(hours=2))
             .add_extension(x509.BasicConstraints(ca=ca, path_length=None), True))
        if san:
            b = b.add_extension(x509.SubjectAlternativeName(san), False)
        if usage:
            b = b.add_extension(x509.ExtendedKeyUsage([usage]), False)
        return b.sign(issuer_key, hashes.SHA256())

    def key_pem(k):
        return k.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                               serialization.NoEncryption())

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = issue(name("locus openshell test CA"), ca_key, name("locus openshell test CA"),
               ca_key, 1, ca=True)
    out = {"ca.crt": ca.public_bytes(pem)}
    for role, serial, san, usage in (
            ("server", 2, [x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                           x509.DNSName("localhost")], ExtendedKeyUsageOID.SERVER_AUTH),
            ("client", 3, None, ExtendedKeyUsageOID.CLIENT_AUTH)):
        k = ec.generate_private_key(ec.SECP256R1())
        c = issue(name("locus-" + role), k, ca.subject, ca_key, serial, san=san, usage=usage)
        out[role + ".crt"] = c.public_bytes(pem)
        out[role + ".key"] = key_pem(k)
    for n, data in out.items():
        with open(os.path.join(d, n), "wb") as f:
            f.write(data)
    return out


def shell_escape(value):
    """The gateway's shell_escape (crates/openshell-server/src/grpc/sandbox.rs)."""
    if value == "":
        return "''"
    if all(c.isascii() and (c.isalnum() or c in "./-_") for c in value):
        return value
    return "'" + value.replace("'", "'\"'\"'") + "'"


class Sandbox:
    def __init__(self, name, workspace, folder, owned, polls):
        self.id = "sb-" + secrets.token_hex(8)
        self.name = name
        self.workspace = workspace
        self.dir = folder
        self.owned = owned
        self.polls = polls
        self.phase = PROVISIONING if polls > 0 else READY
        self.tmp = tempfile.mkdtemp(prefix="fake-openshell-tmp-")
        self.command = DEFAULT_MAIN
        self.env = {}
        self.main = None  # the main process once started
        self.exit_code = None
        self.logs = []  # (timestamp_ms, line) of the main process


class Gateway:
    def __init__(self, pb, args):
        self.pb = pb
        self.args = args
        self.faults = set(args.fault or [])
        self.lock = threading.Lock()
        self.sandboxes = {}
        self.home = tempfile.mkdtemp(prefix="fake-openshell-home-")
        with open(os.path.join(self.home, ".bash_profile"), "w") as f:
            # login noise on both streams, with the credential placeholder
            f.write('echo "fake-login: welcome, token $GITHUB_TOKEN"\n'
                    'echo "fake-login: stderr noise $GITHUB_TOKEN" >&2\n')

    # ---------------- strictness ----------------

    def parse(self, cls, raw, context):
        # the client must bound every call (grpc-timeout): a real gateway
        # would not insist, this fake does
        left = context.time_remaining()  # no deadline: None or "infinite"
        if left is None or left > 10 * 365 * 86400:
            self.violation(context, "%s sent without grpc-timeout" % cls.__name__)
        if len(raw) > MAX_DECODE and self.args.oversize == "out_of_range":
            context.abort(grpc.StatusCode.OUT_OF_RANGE,
                          "Error, decoded message length too large: found %d "
                          "bytes, the limit is: %d bytes" % (len(raw), MAX_DECODE))
        msg = cls()
        try:
            msg.ParseFromString(raw)
        except Exception as e:  # DecodeError and friends
            self.violation(context, "%s does not parse: %s" % (cls.__name__, e))
        probe = cls()
        probe.CopyFrom(msg)
        probe.DiscardUnknownFields()
        canon = probe.SerializeToString(deterministic=True)
        if canon != raw:
            self.violation(context, "non-canonical %s: got %s want %s" %
                           (cls.__name__, raw.hex()[:400], canon.hex()[:400]))
        return msg

    def violation(self, context, what):
        log("VIOLATION " + what)
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, "fake: " + what)

    def auth(self, context):
        if not self.args.token:
            return
        md = dict(context.invocation_metadata())
        got = md.get("authorization")
        if got is None:
            context.abort(grpc.StatusCode.UNAUTHENTICATED,
                          "missing authorization header")
        if got != "Bearer " + self.args.token:
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "invalid token")

    # ---------------- sandboxes ----------------

    def add(self, name, workspace, folder, owned, polls):
        sb = Sandbox(name, workspace, folder, owned, polls)
        self.sandboxes[sb.id] = sb
        return sb

    def by_name(self, name, workspace, context):
        ws = workspace or "default"
        for sb in self.sandboxes.values():
            if sb.name == name and sb.workspace == ws:
                return sb
        context.abort(grpc.StatusCode.NOT_FOUND, "sandbox not found")

    def message(self, sb):
        pb = self.pb
        st = pb.SandboxStatus(phase=sb.phase)
        if sb.phase == ERROR and sb.exit_code is not None:
            st.conditions.add(type="Ready", status="False", reason="MainProcessExited",
                              message="main process exited with code %d" % sb.exit_code)
            st.exit_code = sb.exit_code
        elif sb.phase == ERROR:
            st.conditions.add(type="Ready", status="False", reason="ImagePullFailed",
                              message="the image could not be pulled")
            st.exit_code = 1
        elif sb.phase == READY:
            st.conditions.add(type="Ready", status="True", reason="Ready")
        spec = pb.SandboxSpec(environment={"GITHUB_TOKEN": PLACEHOLDER})
        meta = pb.ObjectMeta(id=sb.id, name=sb.name, workspace=sb.workspace,
                             created_at_ms=int(time.time() * 1000))
        return pb.SandboxResponse(sandbox=pb.Sandbox(metadata=meta, spec=spec,
                                                     status=st)).SerializeToString()

    def health(self, raw, context):
        self.parse(self.pb.HealthRequest, raw, context)
        return self.pb.HealthResponse(status=1, version="fake-0.0.111").SerializeToString()

    @staticmethod
    def validate_spec(name, spec, context):
        """The gateway's validate_sandbox_spec (grpc/validation.rs)."""
        bad = lambda m: context.abort(grpc.StatusCode.INVALID_ARGUMENT, m)
        if len(name) > 19:
            bad("name exceeds maximum length (%d > 19)" % len(name))
        if name and not re.match(r"^[a-z0-9-]*$", name):
            bad("name must contain only lowercase alphanumeric characters or hyphens")
        if name.startswith("-") or name.endswith("-"):
            bad("name must not start or end with a hyphen")
        if "--" in name:
            bad("name must not contain consecutive hyphens")
        if len(spec.providers) > 32:
            bad("providers list exceeds maximum (%d > 32)" % len(spec.providers))
        if len(spec.log_level) > 32:
            bad("log_level exceeds maximum length (%d > 32)" % len(spec.log_level))
        for field, env in (("spec.environment", spec.environment),
                           ("spec.template.environment", spec.template.environment)):
            if len(env) > 128:
                bad("%s exceeds maximum entries (%d > 128)" % (field, len(env)))
            total = 0
            for k, v in env.items():
                kb, vb = len(k.encode()), len(v.encode())
                total += kb + vb
                if kb > 256:
                    bad("%s key exceeds maximum length (%d > 256)" % (field, kb))
                if vb > 8192:
                    bad("%s value exceeds maximum length (%d > 8192)" % (field, vb))
            if total > 256 * 1024:
                bad("%s total size exceeds 262144 byte limit (%d bytes)" % (field, total))
            for k, v in env.items():
                if not ENV_KEY.match(k):
                    bad("%s keys must match ^[A-Za-z_][A-Za-z0-9_]*$; got '%s'" % (field, k))
                if k.startswith("OPENSHELL_"):
                    bad("%s keys starting with OPENSHELL_ are reserved; got '%s'" % (field, k))
                if "\0" in v:
                    bad("%s value for '%s' contains null bytes" % (field, k))
                if "\n" in v or "\r" in v:
                    bad("%s value for '%s' contains newline characters" % (field, k))
        cmd = list(spec.command)
        if cmd:
            if len(cmd) > 256:
                bad("spec.command exceeds 256 argument limit")
            if not cmd[0]:
                bad("spec.command[0] must not be empty")
            if sum(len(a.encode()) for a in cmd) > 256 * 1024:
                bad("spec.command total size exceeds 262144 byte limit")
            for i, a in enumerate(cmd):
                if len(a.encode()) > 32 * 1024:
                    bad("spec.command[%d] exceeds 32768 byte limit" % i)
                if "\0" in a:
                    bad("spec.command[%d] contains null bytes" % i)

    def create(self, raw, context):
        self.auth(context)
        req = self.parse(self.pb.CreateSandboxRequest, raw, context)
        if not req.HasField("spec"):
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "spec is required")
        self.validate_spec(req.name, req.spec, context)
        if "refuse-create" in self.faults:
            context.abort(grpc.StatusCode.UNAVAILABLE, "compute driver unavailable")
        name = req.name or "sandbox-" + secrets.token_hex(4)
        ws = req.workspace or "default"
        with self.lock:
            if any(s.name == name and s.workspace == ws for s in self.sandboxes.values()):
                context.abort(grpc.StatusCode.ALREADY_EXISTS, "sandbox already exists")
            folder = tempfile.mkdtemp(prefix="fake-openshell-sbx-")
            sb = self.add(name, ws, folder, True, max(self.args.polls, 1))
            sb.phase = PROVISIONING
            if req.spec.command:
                sb.command = list(req.spec.command)
            env = dict(req.spec.template.environment)
            env.update(req.spec.environment)
            sb.env = env
            return self.message(sb)

    # ---------------- the main process ----------------

    def image_binds(self):
        out = []
        for spec in self.args.image_file:
            host, path = spec.split(":", 1)
            out += ["--ro-bind", os.path.abspath(host), path]
        return out

    def start_main(self, sb):
        """Start the sandbox's main process (under self.lock)."""
        if sb.command == DEFAULT_MAIN or sb.main is not None:
            return
        argv = ["bwrap", "--unshare-user", "--unshare-ipc", "--unshare-pid",
                "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent"]
        if not self.args.share_net:
            argv.append("--unshare-net")
        argv += ["--ro-bind", "/usr", "/usr", "--ro-bind-try", "/bin", "/bin",
                 "--ro-bind-try", "/sbin", "/sbin", "--ro-bind-try", "/lib", "/lib",
                 "--ro-bind-try", "/lib64", "/lib64", "--ro-bind-try", "/etc", "/etc",
                 "--proc", "/proc", "--dev", "/dev",
                 "--bind", sb.tmp, "/tmp", "--bind", sb.dir, "/sandbox",
                 *self.image_binds(), "--chdir", "/sandbox", "--"] + sb.command
        # the environment is bwrap's own (never its argv: a token in it
        # would be readable by every process of the uid)
        env = {"HOME": "/sandbox", "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
               "LANG": "C.UTF-8"}
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
            if k in os.environ:
                env[k] = os.environ[k]
        env.update(sb.env)
        try:
            sb.main = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       start_new_session=True)
        except OSError as e:
            sb.exit_code = 127
            sb.phase = ERROR
            log("main process of %s did not start: %s" % (sb.name, e))
            return
        log("main process of %s started" % sb.name)
        threading.Thread(target=self.watch_main, args=(sb, sb.main), daemon=True).start()

    def watch_main(self, sb, proc):
        for line in iter(proc.stdout.readline, b""):
            text = line.decode("utf-8", "replace").rstrip("\n")
            sys.stderr.write("fake_openshell: [%s] %s\n" % (sb.name, text))
            with self.lock:
                sb.logs.append((int(time.time() * 1000), text))
                del sb.logs[:-2000]
        rc = proc.wait()
        proc.stdout.close()
        with self.lock:
            if sb.main is proc:
                # any exit, 0 too, is terminal (upstream: MainProcessExited)
                sb.exit_code = rc if rc >= 0 else 128 - rc
                sb.phase = ERROR
                log("main process of %s exited with code %d" % (sb.name, sb.exit_code))

    @staticmethod
    def kill_main(sb):
        proc = sb.main
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass

    def get(self, raw, context):
        self.auth(context)
        req = self.parse(self.pb.GetSandboxRequest, raw, context)
        with self.lock:
            sb = self.by_name(req.name, req.workspace, context)
            if sb.phase in (PROVISIONING, STARTING, 9):
                if "error-phase" in self.faults:
                    sb.phase = ERROR
                elif "never-ready" in self.faults:
                    pass
                elif "unknown-phase" in self.faults and sb.phase != 9 and sb.polls > 0:
                    sb.phase = 9
                else:
                    sb.polls -= 1
                    if sb.polls <= 0:
                        sb.phase = READY
                        self.start_main(sb)
            return self.message(sb)

    def delete(self, raw, context):
        self.auth(context)
        req = self.parse(self.pb.DeleteSandboxRequest, raw, context)
        with self.lock:
            sb = self.by_name(req.name, req.workspace, context)
            del self.sandboxes[sb.id]
            self.kill_main(sb)
        if sb.main is not None:
            sb.main.wait()
        if sb.owned:
            shutil.rmtree(sb.dir, ignore_errors=True)
        shutil.rmtree(sb.tmp, ignore_errors=True)
        return self.pb.DeleteSandboxResponse(deleted=True).SerializeToString()

    def stop(self, raw, context):
        self.auth(context)
        req = self.parse(self.pb.StopSandboxRequest, raw, context)
        with self.lock:
            sb = self.by_name(req.name, req.workspace, context)
            sb.phase = STOPPED
            return self.message(sb)

    def start(self, raw, context):
        self.auth(context)
        req = self.parse(self.pb.StartSandboxRequest, raw, context)
        with self.lock:
            sb = self.by_name(req.name, req.workspace, context)
            if sb.phase == ERROR and sb.exit_code is not None and sb.main is not None:
                context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                              "sandbox must be Stopped to start (current phase: Error)")
            if sb.phase == STOPPED:
                sb.phase = STARTING
                sb.polls = 1
            return self.message(sb)

    # ---------------- exec ----------------

    def validate_exec(self, req, context):
        bad = lambda m: context.abort(grpc.StatusCode.INVALID_ARGUMENT, m)
        if not req.sandbox_id:
            bad("sandbox_id is required")
        if not req.command:
            bad("command is required")
        if len(req.command) > 1024:
            bad("command array exceeds 1024 argument limit")
        for i, a in enumerate(req.command):
            if len(a.encode()) > 32 * 1024:
                bad("command argument %d exceeds 32768 byte limit" % i)
            if "\0" in a:
                bad("command argument %d contains null bytes" % i)
        if len(req.environment) > 128:
            bad("environment exceeds 128 entries")
        for k, v in req.environment.items():
            if not ENV_KEY.match(k):
                bad("environment key '%s' is invalid" % k)
            if len(v.encode()) > 32 * 1024:
                bad("environment value for '%s' exceeds 32768 byte limit" % k)
            if CONTROL.search(v):
                bad("environment value for '%s' contains control characters" % k)
        if len(req.workdir.encode()) > 4096:
            bad("workdir exceeds 4096 byte limit")
        if CONTROL.search(req.workdir):
            bad("workdir contains control characters")
        parts = ["%s=%s" % (k, shell_escape(v)) for k, v in sorted(req.environment.items())]
        parts += [shell_escape(a) for a in req.command]
        cmd = " ".join(parts)
        if req.workdir:
            cmd = "cd %s && %s" % (shell_escape(req.workdir), cmd)
        if len(cmd.encode()) > 256 * 1024:
            bad("assembled command string exceeds 262144 byte limit")
        return cmd

    def bwrap(self, sb, cmd):
        return ["bwrap", "--unshare-user", "--unshare-ipc", "--unshare-net",
                "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent",
                "--ro-bind", "/usr", "/usr", "--ro-bind-try", "/bin", "/bin",
                "--ro-bind-try", "/sbin", "/sbin", "--ro-bind-try", "/lib", "/lib",
                "--ro-bind-try", "/lib64", "/lib64", "--ro-bind-try", "/etc", "/etc",
                "--ro-bind", "/proc", "/proc", "--dev", "/dev",
                "--bind", sb.tmp, "/tmp", "--bind", sb.dir, "/sandbox",
                "--ro-bind", self.home, "/home/sandbox", "--chdir", "/sandbox",
                "--clearenv", "--setenv", "HOME", "/home/sandbox",
                "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
                "--setenv", "LANG", "C.UTF-8", "--setenv", "GITHUB_TOKEN", PLACEHOLDER,
                "/bin/bash", "-lc", cmd]

    def exec(self, raw, context):
        self.auth(context)
        pb = self.pb
        req = self.parse(pb.ExecSandboxRequest, raw, context)
        cmd = self.validate_exec(req, context)
        with self.lock:
            sb = self.sandboxes.get(req.sandbox_id)
            if sb is None:
                context.abort(grpc.StatusCode.NOT_FOUND, "sandbox not found")
            if sb.phase != READY:
                context.abort(grpc.StatusCode.FAILED_PRECONDITION, "sandbox is not ready")
        if "unavailable" in self.faults:
            context.abort(grpc.StatusCode.UNAVAILABLE, "supervisor relay failed")
        proc = subprocess.Popen(self.bwrap(sb, cmd), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        events = queue.Queue()

        def pump(fd, kind):
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                events.put((kind, chunk))
            events.put((kind, None))

        def feed():
            try:
                if req.stdin:
                    proc.stdin.write(req.stdin)
                proc.stdin.close()
            except OSError:
                pass

        threads = [threading.Thread(target=pump, args=(proc.stdout.fileno(), 1), daemon=True),
                   threading.Thread(target=pump, args=(proc.stderr.fileno(), 2), daemon=True),
                   threading.Thread(target=feed, daemon=True)]
        for t in threads:
            t.start()
        deadline = time.time() + req.timeout_seconds if req.timeout_seconds else None
        open_streams, timed_out, gone = 2, False, False
        try:
            while open_streams:
                if not context.is_active():
                    gone = True
                    return
                wait = 0.2
                if deadline is not None:
                    wait = min(wait, max(deadline - time.time(), 0))
                    if wait <= 0:
                        timed_out = True
                        break
                try:
                    kind, chunk = events.get(timeout=wait)
                except queue.Empty:
                    continue
                if chunk is None:
                    open_streams -= 1
                elif kind == 1:
                    yield pb.ExecSandboxEvent(stdout=pb.ExecSandboxStdout(data=chunk)).SerializeToString()
                else:
                    yield pb.ExecSandboxEvent(stderr=pb.ExecSandboxStderr(data=chunk)).SerializeToString()
            if "cut-stream" in self.faults:
                log("fault: exec stream cut before the exit event")
                return
            if timed_out:
                code = 124
            else:
                rc = proc.wait()
                code = rc if rc >= 0 else 128 - rc
            yield pb.ExecSandboxEvent(exit=pb.ExecSandboxExit(exit_code=code)).SerializeToString()
        finally:
            if gone and proc.poll() is None:
                # as the gateway: a client that goes away stops the relay,
                # not the command (there is no cancel RPC); it runs on,
                # drained, until it ends or its timeout_seconds
                log("exec: the client went away; the command runs on")
                threading.Thread(target=self.run_on, args=(proc, events, deadline),
                                 daemon=True).start()
                return
            self.end(proc)

    @staticmethod
    def end(proc):
        """Kill what is left of the command's group and reap it."""
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()

    def run_on(self, proc, events, deadline):
        while proc.poll() is None and (deadline is None or time.time() < deadline):
            try:
                events.get(timeout=0.2)
            except queue.Empty:
                pass
        self.end(proc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--proto", required=True)
    ap.add_argument("--token")
    ap.add_argument("--tls")
    ap.add_argument("--require-client-cert", action="store_true")
    ap.add_argument("--polls", type=int, default=2)
    ap.add_argument("--fault", action="append")
    ap.add_argument("--oversize", choices=["out_of_range", "resource_exhausted"],
                    default="out_of_range")
    ap.add_argument("--sandbox", action="append", default=[])
    ap.add_argument("--share-net", action="store_true")
    ap.add_argument("--image-file", action="append", default=[])
    ap.add_argument("--lifetime", type=float, default=600)
    args = ap.parse_args()

    timer = threading.Timer(args.lifetime, lambda: os._exit(3))
    timer.daemon = True
    timer.start()
    pb = load_messages(args.proto)
    gw = Gateway(pb, args)
    limit = 1048581 if args.oversize == "resource_exhausted" else 4 << 20
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16),
                         options=[("grpc.max_receive_message_length", limit),
                                  ("grpc.max_send_message_length", 4 << 20)])
    u = grpc.unary_unary_rpc_method_handler
    handlers = {
        "Health": u(gw.health),
        "CreateSandbox": u(gw.create),
        "GetSandbox": u(gw.get),
        "DeleteSandbox": u(gw.delete),
        "StopSandbox": u(gw.stop),
        "StartSandbox": u(gw.start),
        "ExecSandbox": grpc.unary_stream_rpc_method_handler(gw.exec),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    if args.tls:
        c = make_certs(args.tls)
        creds = grpc.ssl_server_credentials(
            [(c["server.key"], c["server.crt"])],
            root_certificates=c["ca.crt"] if args.require_client_cert else None,
            require_client_auth=args.require_client_cert)
        port = server.add_secure_port("127.0.0.1:0", creds)
    else:
        port = server.add_insecure_port("127.0.0.1:0")
    for spec in args.sandbox:
        name, sid, folder = spec.split(":", 2)
        sb = gw.add(name, "default", os.path.abspath(folder), False, 0)
        del gw.sandboxes[sb.id]
        sb.id = sid
        gw.sandboxes[sid] = sb
    server.start()

    def cleanup(*_):
        for sb in list(gw.sandboxes.values()):
            gw.kill_main(sb)
            if sb.owned:
                shutil.rmtree(sb.dir, ignore_errors=True)
            shutil.rmtree(sb.tmp, ignore_errors=True)
        shutil.rmtree(gw.home, ignore_errors=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, cleanup)
    print("PORT %d" % port, flush=True)
    # tests/fake_proc.h: the fake ends when its stdin closes
    sys.stdin.read()
    cleanup()


if __name__ == "__main__":
    main()
