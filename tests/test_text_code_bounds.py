"""Predict's text readers never read past a text: Arrow data buffers and Python
strings that end right before an inaccessible page (any read past them faults),
checked in a subprocess, where a fault fails the test instead of the suite."""
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("numpy")

SCRIPT = textwrap.dedent(r'''
    import ctypes, mmap, sys
    import numpy as np
    from dtree._text_codes import TextCategories, arrow_codes, object_codes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    PAGE = mmap.PAGESIZE
    kept = []

    def guarded(data):
        # a uint8 array holding ``data`` whose last byte is the last before a page
        # nothing may read
        body = (len(data) + PAGE) // PAGE * PAGE
        addr = libc.mmap(None, body + PAGE, 3, 0x22, -1, 0)     # RW, private, anonymous
        assert addr not in (None, ctypes.c_void_p(-1).value)
        assert libc.mprotect(addr + body, PAGE, 0) == 0
        buf = (ctypes.c_uint8 * max(len(data), 1)).from_address(addr + body - len(data))
        kept.append(buf)
        out = np.frombuffer(buf, dtype=np.uint8, count=len(data))
        out[:] = np.frombuffer(data, dtype=np.uint8)
        return out

    cats = sorted({"p" * k for k in range(41)} | {"p" * k + "q" for k in range(40)})
    table = TextCategories(cats)

    # Arrow: a text of every length 0-40 at the end of the data buffer
    for k in range(41):
        for lead in (0, 1, 5, 30):
            data = guarded(b"z" * lead + b"p" * k)
            for width in (np.int32, np.int64):
                out = np.empty(2, np.float32)
                assert arrow_codes(table, np.array([0, lead, lead + k], dtype=width), data,
                                   None, 0, 2, out)
                assert out[1] == cats.index("p" * k), (k, lead, out)

    # Python strings: a copy of a real ASCII str object whose characters end at the
    # page (its terminating zero left out), given to the object reader
    header = sys.getsizeof("") - 1
    for k in range(41):
        for text in ("p" * k, "p" * max(k - 1, 0) + "q", "z" * k):
            real = "".join(list(text))
            raw = ctypes.string_at(id(real), header + len(real))
            addr = guarded(raw).ctypes.data
            ctypes.c_ssize_t.from_address(addr).value = 1 << 40      # never freed
            values = np.empty(1, dtype=object)
            ctypes.c_void_p.from_address(values.ctypes.data).value = addr
            out = np.empty(1, np.float32)
            object_codes(table, values, out)
            assert out[0] == (cats.index(text) if text in cats else -1), (k, text, out)
            # (the slot back to None, counted, before the array lets it go)
            ctypes.c_void_p.from_address(values.ctypes.data).value = id(None)
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(None))
    print("ok")
''')


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="guard pages through Linux's mmap")
@pytest.mark.skipif(sys.implementation.name != "cpython", reason="copies CPython's str layout")
def test_text_readers_stop_at_the_last_byte():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", \
        f"exit {out.returncode}: {out.stderr[-2000:]}"
