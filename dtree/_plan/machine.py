"""What this machine offers a fit: its cores, its memory and the threads ``n_jobs`` means."""
import os

from .constraints import InvalidParameterError, is_int

# More threads than this is never useful and would only allocate per-thread buffers.
MAX_THREADS = 256


def physical_memory():
    """Bytes of memory this machine has, or None where it cannot tell (not POSIX):
    a guard that needs it then lets the request through."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def available_cores():
    """Cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def busy_cores(proc="/proc"):
    """Cores other work keeps busy at this moment: the threads the kernel counts as
    runnable (``/proc/loadavg``'s fourth field, the calling thread included) less
    this process's own (``/proc/self/task``); 0 where the system does not say (not
    Linux)."""
    try:
        with open(os.path.join(proc, "loadavg")) as f:
            runnable = int(f.read().split()[3].partition("/")[0])
        own = 0
        tasks = os.path.join(proc, "self", "task")
        for tid in os.listdir(tasks):
            try:
                with open(os.path.join(tasks, tid, "stat")) as f:
                    # the state comes after the command, which sits in parentheses
                    own += f.read().rpartition(")")[2].split()[0] == "R"
            except OSError:     # (a thread that ended meanwhile)
                continue
    except (OSError, ValueError, IndexError):
        return 0
    return max(0, runnable - own)


def free_cores():
    """Cores this process may run on that other work leaves free at this moment, at
    least one: its cores less its share of the machine's busy ones
    (``busy_cores``, taken as spread evenly over the machine's cores: a process
    held to some of them still sees every core's load)."""
    cores = available_cores()
    machine = max(os.cpu_count() or cores, cores)
    return max(1, int(cores - busy_cores() * cores / machine))


def spare_threads(threads, n_jobs):
    """``threads`` for work large enough for them: for the default ``n_jobs`` (None),
    no more than ``free_cores()`` (a thread that shares its core with another
    process arrives late at every parallel region, and made the default slower
    than one thread on a busy machine); as asked otherwise."""
    if n_jobs is not None or threads <= 1:
        return threads
    return min(threads, free_cores())


def n_threads(n_jobs):
    """Threads for fit and predict from ``n_jobs``.

    None: one per available core, within the OpenMP budget (``OMP_NUM_THREADS``,
    or a ``threadpoolctl`` limit, which joblib sets to one in the workers of
    ``GridSearchCV(n_jobs=k)``): nested parallelism never oversubscribes.
    """
    cores = available_cores()
    if n_jobs is None:
        from .._openmp import openmp_threads
        return max(1, min(cores, openmp_threads()))
    if not is_int(n_jobs) or n_jobs == 0:
        raise InvalidParameterError(f"n_jobs must be None or a non-zero int; got {n_jobs!r}")
    # scikit-learn's convention: -1 is every core, -2 all but one, ...
    threads = int(n_jobs) if n_jobs > 0 else max(1, cores + 1 + int(n_jobs))
    return min(threads, max(MAX_THREADS, cores))
