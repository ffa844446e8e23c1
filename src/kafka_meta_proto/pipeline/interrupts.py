"""Ctrl-C while Spark works: stop at once, quietly.

PySpark's own SIGINT handler asks the JVM to cancel every job over the py4j connection the main
thread is blocked on, which fails and prints pages of Python tracebacks (py4j logs the interrupted
call through the root logger); threads still waiting on Spark jobs then keep the process alive
until their jobs end. ``interruptible(spark)`` replaces that handler while the job runs: the first
Ctrl-C cancels Spark's jobs from a thread of its own (a py4j connection of its own), and keeps
cancelling the ones still queued, and raises KeyboardInterrupt in the main thread once the JVM's
log is off (an interrupted write would log its abort with a trace); a second one ends the process
at once. py4j's log of the interrupted call is silenced, so the command's one line is all that is
printed.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from contextlib import contextmanager

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


@contextmanager
def interruptible(spark):
    """Within the block, Ctrl-C cancels ``spark``'s jobs and raises KeyboardInterrupt."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only; nothing to arrange here
        return
    pressed = threading.Event()

    def on_ctrl_c(signum, frame):
        if pressed.is_set():  # the second time: no more waiting
            os._exit(EXIT_INTERRUPTED)
        pressed.set()
        quiet_jvm = threading.Event()
        threading.Thread(
            target=_cancel_jobs, args=(spark, quiet_jvm), name="cancel-spark-jobs", daemon=True
        ).start()
        # Leaving the main thread's Spark call interrupts the JVM thread serving it, and an
        # interrupted write logs its abort with a trace: the JVM's log goes quiet first.
        quiet_jvm.wait(QUIET_WAIT)
        raise KeyboardInterrupt

    root = logging.getLogger()
    quiet = logging.NullHandler()
    root.addHandler(quiet)  # logging.exception on a root without handlers would print a trace
    py4j = logging.getLogger("py4j")
    py4j_level = py4j.level
    py4j.setLevel(logging.CRITICAL)
    previous = signal.signal(signal.SIGINT, on_ctrl_c)
    try:
        yield
    finally:
        if not pressed.is_set():
            signal.signal(signal.SIGINT, previous)
            py4j.setLevel(py4j_level)
            root.removeHandler(quiet)
        # else: stay quiet and keep the handler while the process ends (threads still finishing
        # their cancelled Spark calls would otherwise log them)


CANCEL_EVERY = 0.1  # seconds
QUIET_WAIT = 5.0  # seconds Ctrl-C waits for the JVM's log to go quiet, at most


def _cancel_jobs(spark, quiet_jvm: threading.Event) -> None:
    """Quiet the JVM's log (then set ``quiet_jvm``), and cancel Spark's jobs, again every
    CANCEL_EVERY seconds until the process ends: threads of the job may still start the jobs
    queued behind the ones running at the first Ctrl-C."""
    try:
        spark.sparkContext.setLogLevel("OFF")
    except Exception:  # the JVM is going away; nothing more to stop
        return
    finally:
        quiet_jvm.set()
    while True:
        try:
            spark.sparkContext.cancelAllJobs()
        except Exception:  # the JVM is going away; nothing more to stop
            return
        time.sleep(CANCEL_EVERY)
