"""Worker pools that Ctrl-C stops at once, even when the signal lands on one of the parent's
helper threads rather than its main thread (the kernel may deliver a process's SIGINT to any
thread: a main thread blocked in one long wait then finished the whole queue first)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

# A parent whose pool sleeps a minute on each of two workers; a thread of its own sends SIGINT
# to one of the pool's helper threads (not to the main thread) once the work is under way.
PARENT = textwrap.dedent(
    """
    import signal, sys, threading, time
    from kafka_meta_proto.simulator.processes import map_interruptibly, worker_pool

    def press():
        time.sleep(1.0)
        helpers = [t for t in threading.enumerate() if t not in (threading.main_thread(), threading.current_thread())]
        signal.pthread_kill(helpers[0].ident, signal.SIGINT)

    if __name__ == "__main__":
        try:
            with worker_pool(2) as pool:
                threading.Thread(target=press, name="presser", daemon=True).start()
                map_interruptibly(pool, time.sleep, [60, 60, 60])
        except KeyboardInterrupt:
            print("interrupted")
            sys.exit(130)
        print("finished")
    """
)


def test_ctrl_c_on_a_helper_thread_stops_the_pool(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    # the timeout stops a hang only: the work left alone takes two minutes
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=90)
    assert (run.returncode, run.stdout.strip()) == (130, "interrupted"), run.stderr[-2000:]


def test_the_results_come_back_in_order():
    from kafka_meta_proto.simulator.processes import map_interruptibly, worker_pool

    with worker_pool(2) as pool:
        assert map_interruptibly(pool, abs, [-3, 2, -1, 0]) == [3, 2, 1, 0]
