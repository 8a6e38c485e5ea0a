"""Microsoft's SARIF validator (@microsoft/sarif-multitool from npm, pinned
in package.json) for the SARIF tests.  `validate(path)` returns the
validator's output after checking it accepted the file; `validator()`
exits 77 (meson: skipped) only when the validator truly cannot run here."""
import os
import shutil
import stat
import subprocess
import sys
import tempfile

_ROOT = os.environ["LOCUS_SOURCE_ROOT"]
_BIN = os.path.join(_ROOT, "node_modules", "@microsoft", "sarif-multitool-linux",
                    "Sarif.Multitool")
_tmp = None


def validator():
    """The validator's path; npm ci --ignore-scripts drops its run bit, so
    it is set again (or the binary copied to a temporary folder)."""
    global _tmp
    if not os.path.isfile(_BIN):
        print("SKIP: %s not installed (npm ci --ignore-scripts)" % _BIN)
        sys.exit(77)
    if os.access(_BIN, os.X_OK):
        return _BIN
    try:
        os.chmod(_BIN, os.stat(_BIN).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return _BIN
    except OSError:
        pass
    _tmp = tempfile.mkdtemp()
    copy = os.path.join(_tmp, "Sarif.Multitool")
    shutil.copy(_BIN, copy)
    os.chmod(copy, 0o755)
    return copy


def validate(path):
    """Run `Sarif.Multitool validate PATH`; return (ok, output)."""
    exe = validator()
    try:
        p = subprocess.run([exe, "validate", path], capture_output=True,
                           text=True, timeout=300,
                           env=dict(os.environ, DOTNET_CLI_TELEMETRY_OPTOUT="1"))
    except OSError as e:
        print("SKIP: the SARIF validator cannot run here: %s" % e)
        sys.exit(77)
    out = p.stdout + p.stderr
    if p.returncode != 0 and "Analysis completed" not in out and "error SARIF" not in out:
        # the .NET runtime itself failed to start (no ICU...): not a verdict
        print(out)
        print("SKIP: the SARIF validator did not start")
        sys.exit(77)
    ok = p.returncode == 0 and "error SARIF" not in out and \
        "Analysis completed successfully" in out
    return ok, out
