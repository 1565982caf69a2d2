"""Opening files a user names: regular files only, checked without blocking.

``open`` on a FIFO (or a terminal, a socket) waits for a writer that may never
come, and a device such as ``/dev/zero`` never ends. A path is opened without
blocking (``O_NONBLOCK``, ignored by regular files) and refused, before
anything is read, unless it is a regular file; where the system has no
``O_NONBLOCK`` its kind is asked first.
"""
import io
import os
import stat


class NotRegularFileError(OSError):
    """The path names something other than a regular file (a FIFO, a device, a directory)."""


def open_regular(path, what="file"):
    """A binary file object for the regular file at ``path``; ``NotRegularFileError``
    naming ``what`` for anything else. FileNotFoundError and PermissionError
    propagate as they are."""
    name = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    if not hasattr(os, "O_NONBLOCK") and not stat.S_ISREG(os.stat(name).st_mode):
        raise NotRegularFileError(f"{what} {name!r} is not a regular file")
    fd = os.open(name, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFileError(f"{what} {name!r} is not a regular file")
        if hasattr(os, "O_NONBLOCK") and hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return io.open(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise
