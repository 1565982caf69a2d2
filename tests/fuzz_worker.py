"""The fuzz campaign's processes: a worker that runs probes, and its parent's side.

Run as a script, this is the worker: it limits its own address space
(``RLIMIT_AS``), imports dtree, says it is ready, then answers one JSON line per
case read on its standard input (``fuzz_probes.execute``). Its real standard
output is kept for the answers and file descriptor 1 points at its standard error,
so nothing dtree or a library prints can corrupt the protocol; its standard input
reads from /dev/null for the same reason. ``faulthandler`` writes the Python stack
to standard error on a fatal signal and shortly before the parent's time limit,
which is how a crash or a hang is traced to its place in dtree.

Imported, it gives the parent's side: ``Worker`` (one worker process: a case in,
a result out; a crash, a hang or a memory death becomes that case's outcome and
the worker is started afresh for the next case) and ``Pool`` (several workers
sharing a list of cases). Both campaigns use them: ``tests/test_fuzz.py`` and
``bench/fuzz.py``.
"""
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MEMORY = 4 << 30          # bytes of address space a worker may use
DEFAULT_TIMEOUT = 30.0            # seconds a case may take before it is a hang


# ===================================================================== the worker
def _vm_size():
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _set_limit(resource, limit):
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def serve(memory):
    import faulthandler
    import resource
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)                                    # prints go to the log
    cases = os.fdopen(os.dup(0), "r")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    faulthandler.enable(all_threads=True)
    sys.path.insert(0, HERE)
    import fuzz_probes
    fuzz_probes.warm()
    _set_limit(resource, memory)
    answers.write(json.dumps({"ready": os.getpid()}) + "\n")
    for line in cases:
        case = json.loads(line)
        budget = case.get("memory_budget")
        limit = min(memory, _vm_size() + budget) if budget else memory
        _set_limit(resource, limit)
        timeout = float(case.get("timeout", DEFAULT_TIMEOUT))
        faulthandler.dump_traceback_later(max(timeout - 2.0, 1.0), exit=False)
        try:
            result = fuzz_probes.execute(case)
        finally:
            faulthandler.cancel_dump_traceback_later()
            _set_limit(resource, memory)
        answers.write(json.dumps(result, default=repr) + "\n")


# ===================================================================== the parent
def _memory_words(text):
    return any(w in text for w in ("MemoryError", "bad_alloc", "Cannot allocate memory",
                                   "out of memory", "std::length_error"))


def _dtree_frame(text):
    """The innermost dtree frame of a faulthandler dump (file:function)."""
    found = ""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("File ") and f"{os.sep}dtree{os.sep}" in line and \
                f"{os.sep}tests{os.sep}" not in line:
            path = line.split('"')[1] if '"' in line else line
            func = line.rsplit(" in ", 1)[-1] if " in " in line else ""
            # faulthandler lists the innermost frame first
            return f"{path.split(os.sep + 'dtree' + os.sep)[-1]}:{func}"
    return found


class WorkerStartError(RuntimeError):
    pass


class Worker:
    """One worker process; ``run(case)`` gives the case's result whatever happens."""

    def __init__(self, timeout=DEFAULT_TIMEOUT, memory=DEFAULT_MEMORY, env=None,
                 start_timeout=240.0):
        self.timeout, self.memory, self.start_timeout = timeout, memory, start_timeout
        self.env = dict(os.environ if env is None else env)
        self.env.setdefault("PYTHONFAULTHANDLER", "1")
        self.env.pop("DTREE_DEBUG", None)
        self.proc = None
        self.log = None
        self.buffer = b""
        self.starts = 0

    # ---------------------------------------------------------------- process
    def start(self):
        """Starts the worker; a worker that dies importing dtree (a rebuild in place
        under way) is retried for a few minutes before giving up."""
        deadline = time.monotonic() + self.start_timeout
        delay = 5.0
        while True:
            self._spawn()
            line = self._readline(max(deadline - time.monotonic(), 5.0))
            if line and b"ready" in line:
                self.starts += 1
                return
            tail = self._log_tail(0)
            self.stop()
            if time.monotonic() + delay > deadline:
                raise WorkerStartError(f"the fuzz worker does not start:\n{tail[-3000:]}")
            time.sleep(delay)
            delay = min(delay * 2, 30.0)

    def _spawn(self):
        self.log = tempfile.TemporaryFile()
        fd = os.open(f"/proc/self/fd/{self.log.fileno()}", os.O_WRONLY | os.O_APPEND) \
            if os.path.exists("/proc/self/fd") else self.log.fileno()
        self.buffer = b""
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "fuzz_worker.py"), "--memory",
             str(self.memory)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=fd, cwd=HERE,
            env=self.env, start_new_session=True)
        if fd != self.log.fileno():
            os.close(fd)

    def stop(self):
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)   # the worker and what it started
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self.proc = None

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.stop()
        if self.log is not None:
            self.log.close()
            self.log = None

    def _log_size(self):
        return os.fstat(self.log.fileno()).st_size if self.log else 0

    def _log_tail(self, start):
        if not self.log:
            return ""
        size = self._log_size()
        return os.pread(self.log.fileno(), max(size - start, 0), start).decode("utf-8",
                                                                                "replace")

    def _readline(self, timeout):
        """One line from the worker; None on timeout, b"" when it has exited."""
        deadline = time.monotonic() + timeout
        out = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([out], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(out, 1 << 16)
            if not chunk:
                return b""
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line + b"\n"

    # ---------------------------------------------------------------- a case
    def run(self, case):
        if self.proc is None or self.proc.poll() is not None:
            self.stop()
            self.start()
        timeout = float(case.get("timeout", self.timeout))
        case = dict(case, timeout=timeout)
        start = self._log_size()
        try:
            self.proc.stdin.write((json.dumps(case) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            line = b""
        else:
            line = self._readline(timeout)
        if line is None:                                  # no answer in time: a hang
            time.sleep(0.2)                               # faulthandler's dump lands
            tail = self._log_tail(start)
            self.stop()
            return {"outcome": "hang", "stage": "worker", "type": "timeout",
                    "message": f"no answer within {timeout:.0f} s",
                    "where": _dtree_frame(tail), "trace": tail[-2500:]}
        if not line:                                      # the worker died on this case
            try:
                code = self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                code = None
            tail = self._log_tail(start)
            self.stop()
            if code is not None and code < 0:
                name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ \
                    else str(-code)
                outcome = "memory" if (_memory_words(tail) or -code == signal.SIGKILL) \
                    else "crash"
                return {"outcome": outcome, "stage": "worker", "type": name,
                        "message": f"worker killed by {name}", "where": _dtree_frame(tail),
                        "trace": tail[-2500:]}
            return {"outcome": "memory" if _memory_words(tail) else "crash", "stage": "worker",
                    "type": f"exit {code}", "message": f"worker exited with status {code}",
                    "where": _dtree_frame(tail), "trace": tail[-2500:]}
        result = json.loads(line)
        if result.get("outcome") == "memory":
            self.stop()                   # a process that ran out may not be trusted further
        return result


class Pool:
    """Several workers answering a list of cases (in parallel, results in order)."""

    def __init__(self, n=2, **kwargs):
        self.workers = [Worker(**kwargs) for _ in range(n)]

    def run(self, cases, progress=None):
        results = [None] * len(cases)
        lock = threading.Lock()
        todo = iter(range(len(cases)))
        errors = []

        def loop(worker):
            while True:
                with lock:
                    i = next(todo, None)
                if i is None:
                    return
                try:
                    results[i] = worker.run(cases[i])
                except WorkerStartError as exc:
                    errors.append(exc)
                    return
                if progress is not None:
                    with lock:
                        progress(i, cases[i], results[i])

        threads = [threading.Thread(target=loop, args=(w,), daemon=True) for w in self.workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        return results

    @property
    def starts(self):
        return sum(w.starts for w in self.workers)

    def close(self):
        for w in self.workers:
            w.close()


if __name__ == "__main__":
    memory = DEFAULT_MEMORY
    if "--memory" in sys.argv:
        memory = int(sys.argv[sys.argv.index("--memory") + 1])
    serve(memory)
