"""python/locus/_cdef.h against include/locus/*.h: every struct the
package declares has the C compiler's size and field offsets (ABI mode
reads them from the cdef, not from the headers)."""
import os
import shutil
import subprocess

import pytest

from locus._ffi import ffi, LIBRARY

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
STRUCTS = ["locus_error", "locus_shell_redirect", "locus_shell_command",
           "locus_shell_options", "locus_gate_input", "locus_stat",
           "locus_dirent", "locus_exec_result", "locus_bg_status",
           "locus_call_ctl", "locus_write_op", "struct locus_backend",
           "struct locus_session", "locus_openshell_options",
           "locus_oci_options", "locus_exec_record",
           "locus_harness_config"]


def test_struct_layouts(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to read the headers' layouts")
    build_inc = os.path.join(os.path.dirname(os.path.realpath(LIBRARY)),
                             "include")
    if not os.path.exists(os.path.join(build_inc, "locus", "version.h")):
        pytest.skip("no generated locus/version.h beside " + LIBRARY)
    lines = ['#include <stdio.h>', '#include <stddef.h>',
             '#include "locus/locus.h"', 'int main(void) {']
    want = []
    for s in STRUCTS:
        t = ffi.typeof(s)
        lines.append('printf("%%zu\\n", sizeof(%s));' % s)
        want.append(("sizeof", s, ffi.sizeof(t)))
        for name, f in t.fields:
            lines.append('printf("%%zu\\n", offsetof(%s, %s));' % (s, name))
            want.append(("offsetof", s + "." + name, f.offset))
    lines.append("return 0; }")
    src = tmp_path / "abi.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "abi"
    subprocess.run([cc, "-std=c11", "-I", os.path.join(REPO, "include"),
                    "-I", build_inc, str(src), "-o", str(exe)], check=True)
    got = subprocess.run([str(exe)], stdout=subprocess.PIPE, check=True,
                         text=True).stdout.split()
    assert len(got) == len(want)
    bad = [(w, int(g)) for w, g in zip(want, got) if w[2] != int(g)]
    assert not bad, bad
