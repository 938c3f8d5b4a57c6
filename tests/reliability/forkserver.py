"""A fork server for the reliability tests' `pbem poll` runs: Python and pbem are started once, each run is a fork.

The crash test alone runs `pbem poll` about 75 times per transport, and most of
an idle run's CPU time is starting Python and importing pbem (typer, SQLAlchemy,
Jinja2, the engines): about 0.7 s a run.  Here one server process imports every
pbem module (and compiles the mail templates) once; each run is a fresh child
forked from it, which

* gets its own environment, working folder, argv, stdin (/dev/null) and stdout
  and stderr (files the caller reads), as a subprocess would;
* installs the test hooks of `tests.reliability.killpoints` from that
  environment (kill points, faults, clock shift) when asked, as
  `python -m tests.reliability.killpoints` does;
* runs the real command line (`pbem.cli.app`, converted to its click command once
  in the server: option parsing, configuration,
  poll lock, logging, the poll, its sender thread) and exits with its status.

A child is a real process: a SIGKILL (`PBEM_TEST_KILL_AT`) kills it mid-poll
exactly as it kills a process started from scratch, and nothing of one run is
left in memory for the next (the server itself never opens a database, a
mailbox or a thread; each child starts from the server's pristine, merely
imported state, and the `random` module is reseeded in every child).  What a
fork does not exercise is the interpreter's start-up, pbem's imports and the
ORM's one-time mapper configuration (done in the server); the
CLI tests and the packaging test run `python -m pbem` and the installed
`pbem` from scratch.

`pbem(args, env, cwd, timeout)` is `subprocess.run` of `python -m pbem` for the other tests that run the
command as a moderator would (tests/mail, tests/test_seeds.py, tests/test_verify_whose_mail.py): the child
ends a command as `pbem.cli.main` does (a home it cannot use: one line, exit 3), unlike the kill points'
wrapper, which runs the app alone as `python -m tests.reliability.killpoints` does.

`PBEM_TEST_FORKSERVER=0` makes `killpoints.run_poll` and `pbem` start a subprocess per
run again.

`python_many(code, runs)` forks `python -c code` scripts the same way (a test's helper processes that import
pbem modules: `tests/mail/test_poll_lock.py`'s six runs contending for the poll lock, four rounds).

Protocol (one server per calling thread, so concurrent callers never wait on
each other): the caller writes one JSON line per run: {"args", "env", "cwd",
"wrapper", "code" (or null), "stdout", "stderr", "timeout"}; the server answers one JSON line:
{"returncode", "cpu"} (negative: killed by that signal; the child's CPU seconds) or {"timeout": true}.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def no_fsync(fd: int) -> None:
    """`os.fsync` in the test processes and the `pbem` runs forked here: nothing.  It makes a write survive a
    power cut or a crash of the machine, which no test makes (a SIGKILLed process's writes are in the page cache,
    and every later reader sees them); on the shared test machine each call waited about 5 ms for the disk, about
    800 of them in one seeded Sixteen Thirty game (every mail the bots and the Maildir sender write: Python's
    `mailbox` syncs each).  The test Dovecot does the same (`mail_fsync = never`).  The CLI tests' first
    command and the packaging test start `pbem` from scratch, with the real `os.fsync`."""
    os.fstat(fd)  # a closed or bad descriptor still fails, as fsync would


def _preload() -> None:
    """Import every pbem module and compile every template, so that a child starts with them ready."""
    import importlib
    import pkgutil

    import pbem

    os.fsync = no_fsync

    for mod in pkgutil.walk_packages(pbem.__path__, "pbem."):
        if not mod.name.endswith("__main__"):
            with contextlib.suppress(Exception):  # an optional dependency missing: the child imports it (or not)
                importlib.import_module(mod.name)
    importlib.import_module("tests.reliability.killpoints")
    from sqlalchemy import create_engine

    create_engine("sqlite://").dispose()  # imports the SQLite dialect; opens nothing
    from sqlalchemy.orm import configure_mappers

    configure_mappers()  # what the first ORM query of every child did: 0.08 s, a third of an idle poll
    with contextlib.suppress(Exception):  # only a warm-up: the child builds it
        _command()
    try:
        from pbem.render.templates import env

        for name in env().list_templates():
            env().get_template(name)
    except Exception:  # only a warm-up: the children compile what is missing
        pass


_COMMAND: list = []


def _command():
    """pbem's click command, built from the typer app once in the server rather than in every child.

    `typer.Typer.__call__` rebuilds it on every call by inspecting each command function's signature and
    type hints: about 0.14 s, two thirds of an idle `pbem poll`.  The command is a pure function of the
    app's definition (no configuration, no environment), and typer's `__call__` adds only an exception
    attribute for its own pretty excepthook, which a child never uses (`_run_cli` prints a plain traceback)."""
    if not _COMMAND:
        import typer.main

        from pbem.cli import app

        _COMMAND.append(typer.main.get_command(app))
    return _COMMAND[0]


def _child(req: dict) -> None:
    """In the forked child: become the requested `pbem` process and exit with its status (never returns)."""
    code = 1
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, path in ((1, req["stdout"]), (2, req["stderr"])):
            out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(out, fd)
            os.close(out)
        os.environ.clear()
        os.environ.update(req["env"])
        os.chdir(req["cwd"])
        if req.get("umask") is not None:  # as `subprocess.run(..., preexec_fn=lambda: os.umask(m))` would set it
            os.umask(req["umask"])
        if req.get("code") is not None:  # `python -c CODE ARGS`
            sys.argv = ["-c", *req["args"]]
            code = _run_code(req["code"])
        else:
            sys.argv = ["pbem", *req["args"]]
            code = _run_cli(bool(req["wrapper"]))
    finally:
        _exit(code)


def _run_cli(wrapper: bool) -> int:
    import traceback

    try:
        if wrapper:  # as `python -m tests.reliability.killpoints` runs: the app itself
            from tests.reliability import killpoints

            killpoints.install()
            _command()(prog_name="pbem")
            return 0
        try:  # as `python -m pbem` runs (`pbem.cli.main`): a home it cannot use is one line and exit 3
            _command()(prog_name="pbem")
        except Exception as exc:
            from pbem.cli import _unusable, clipped

            why = _unusable(exc)
            if why is None:
                raise
            print(f"pbem: {clipped(why)}", file=sys.stderr)
            return 3
        return 0
    except SystemExit as exc:  # as the interpreter reports it: None is 0, an int is itself, anything else printed
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1
    except BaseException:  # as an uncaught exception ends a process: traceback, status 1
        traceback.print_exc()
        return 1


def _run_code(source: str) -> int:
    """As `python -c source` runs it: in a fresh `__main__` namespace, its exit status as the interpreter's."""
    import traceback

    try:
        exec(compile(source, "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
        return 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1


def _exit(code: int) -> None:
    """End the child as the interpreter would (threads joined, logs and streams flushed), without the
    server's own exit handlers."""
    import logging
    import threading

    try:
        for t in threading.enumerate():
            if t is not threading.main_thread() and not t.daemon:
                t.join()
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def _wait(pid: int, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    delay = 0.0005
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return {"returncode": os.waitstatus_to_exitcode(status), "cpu": usage.ru_utime + usage.ru_stime}
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            return {"timeout": True}
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


def _wait_all(pids: list[int], timeout: float) -> list[dict]:
    """`_wait` for children running at the same time: each one's reply, in order, within one `timeout`."""
    deadline = time.monotonic() + timeout
    replies: dict[int, dict] = {}
    while len(replies) < len(pids):
        for pid in pids:
            if pid not in replies:
                done, status, usage = os.wait4(pid, os.WNOHANG)
                if done:
                    replies[pid] = {
                        "returncode": os.waitstatus_to_exitcode(status),
                        "cpu": usage.ru_utime + usage.ru_stime,
                    }
        if len(replies) < len(pids) and time.monotonic() > deadline:
            for pid in pids:
                if pid not in replies:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                    replies[pid] = {"timeout": True}
        time.sleep(0.005)
    return [replies[pid] for pid in pids]


def serve() -> None:
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(2, 1)  # nothing the server prints can reach the protocol
    _preload()
    replies.write('{"ready": true}\n')
    replies.flush()
    for line in requests:
        req = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pids = []
        for one in req.get("many", [req]):  # "many": runs forked at once, answered together (a list)
            pid = os.fork()
            if pid == 0:
                requests.close()
                replies.close()
                _child(one)
            pids.append(pid)
        if "many" in req:
            replies.write(json.dumps(_wait_all(pids, float(req["timeout"]))) + "\n")
        else:
            replies.write(json.dumps(_wait(pids[0], float(req["timeout"]))) + "\n")
        replies.flush()


# --------------------------------------------------------------------------- the caller's side


class ForkServer:
    """One server process and its pipes; `run` is `subprocess.run([python, -m, pbem-or-wrapper, *args])`."""

    def __init__(self, before: list[str] | None = None) -> None:
        """`before`: a command line that ends by running the server's, given as its last argument (a shell's
        `exec "$@"`: a private mount namespace set up first, say), instead of starting the server directly."""
        import subprocess
        import tempfile

        env = dict(os.environ)
        env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
        self.tmp = tempfile.TemporaryDirectory(prefix="pbem-forkserver-")
        self.n = 0
        # "pbem" on its command line, which its children inherit: the poll lock takes a holder whose command line
        # does not name pbem for a dead one (`pbem.app.polllock._alive`: its pid reused by another program) and
        # takes its lock over, so two forked polls started together both ran and mailed twice (suite10)
        self.proc = subprocess.Popen(
            [*(before or []), sys.executable, "-m", "tests.reliability.forkserver", "pbem"],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        ready = self.proc.stdout.readline() if self.proc.stdout else ""
        if not ready:
            raise RuntimeError(f"the fork server did not start (exit {self.proc.wait()})")

    def run(
        self, args: list[str], env: dict[str, str], cwd: str, wrapper: bool, timeout: float, umask: int | None = None
    ):
        import subprocess

        self.n += 1
        out, err = (os.path.join(self.tmp.name, f"{self.n}.{s}") for s in ("out", "err"))
        req = {"args": args, "env": env, "cwd": cwd, "wrapper": wrapper, "stdout": out, "stderr": err, "umask": umask}
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({**req, "timeout": timeout}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the fork server died (exit {self.proc.wait()})")
        reply = json.loads(line)
        texts = []
        for path in (out, err):
            with open(path, encoding="utf-8", errors="replace") as f:
                texts.append(f.read())
            os.unlink(path)
        cmd = [sys.executable, "-m", "tests.reliability.killpoints" if wrapper else "pbem", *args]
        if reply.get("timeout"):
            raise subprocess.TimeoutExpired(cmd, timeout, output=texts[0], stderr=texts[1])
        return subprocess.CompletedProcess(cmd, reply["returncode"], texts[0], texts[1])

    def run_many(
        self,
        runs: list[list[str]],
        env: dict[str, str],
        cwd: str,
        timeout: float,
        wrapper: bool = False,
        code: str | None = None,
    ) -> list:
        """`run` of each of `runs` at the same time (forked together): each one's CompletedProcess, or its
        subprocess.TimeoutExpired if it was still running after `timeout` seconds (killed then).  `wrapper`: each
        runs as `python -m tests.reliability.killpoints` (the test settings of `killpoints.install`), as in `run`.
        `code`: each runs `python -c code *args` instead (with every pbem module imported already)."""
        import subprocess

        reqs, paths = [], []
        for args in runs:
            self.n += 1
            out, err = (os.path.join(self.tmp.name, f"{self.n}.{s}") for s in ("out", "err"))
            reqs.append(
                {"args": args, "env": env, "cwd": cwd, "wrapper": wrapper, "code": code, "stdout": out, "stderr": err}
            )
            paths.append((out, err))
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({"many": reqs, "timeout": timeout}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the fork server died (exit {self.proc.wait()})")
        got = []
        for args, reply, (out, err) in zip(runs, json.loads(line), paths, strict=True):
            texts = []
            for path in (out, err):
                with open(path, encoding="utf-8", errors="replace") as f:
                    texts.append(f.read())
                os.unlink(path)
            what = ["-c", code] if code is not None else ["-m", "tests.reliability.killpoints" if wrapper else "pbem"]
            cmd = [sys.executable, *what, *args]
            if reply.get("timeout"):
                got.append(subprocess.TimeoutExpired(cmd, timeout, output=texts[0], stderr=texts[1]))
            else:
                got.append(subprocess.CompletedProcess(cmd, reply["returncode"], texts[0], texts[1]))
        return got

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait()
        self.tmp.cleanup()


_SERVERS: dict[int, ForkServer] = {}


def pbem(
    args: list[str],
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 120,
    umask: int | None = None,
):
    """`subprocess.run([python, "-m", "pbem", *args], capture_output=True, text=True)` with stdin from /dev/null, in
    `cwd` (default: this one) with `env` (default: this process's): forked from this thread's server, which saves
    Python's start-up and pbem's imports (about 0.6 CPU s a run) to the tests whose subject is what a command does
    rather than how the interpreter starts it (`PBEM_TEST_FORKSERVER=0`: started from scratch, as the first command
    of each test of tests/test_cli.py and tests/test_first_hour.py, and the umask and mount cases of
    tests/test_cli_bad_input.py, always are).  `umask`: the run's umask (default: this process's)."""
    import subprocess

    env = dict(os.environ if env is None else env)
    where = os.fspath(cwd) if cwd is not None else os.getcwd()
    if os.environ.get("PBEM_TEST_FORKSERVER", "1") == "0":
        return subprocess.run(
            [sys.executable, "-m", "pbem", *args],
            env=env,
            cwd=where,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            preexec_fn=None if umask is None else lambda: os.umask(umask),
        )
    return server().run([str(a) for a in args], env, where, False, timeout, umask)


def pbem_many(
    runs: list[list[str]],
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 120,
) -> list:
    """`pbem` of each of `runs`, all running at the same time (one fork each; with `PBEM_TEST_FORKSERVER=0`, one
    `python -m pbem` each): a CompletedProcess per run, or a subprocess.TimeoutExpired for one still running
    after `timeout` seconds from the start (it is killed)."""
    import subprocess

    env = dict(os.environ if env is None else env)
    where = os.fspath(cwd) if cwd is not None else os.getcwd()
    runs = [[str(a) for a in args] for args in runs]
    if os.environ.get("PBEM_TEST_FORKSERVER", "1") != "0":
        return server().run_many(runs, env, where, timeout)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "pbem", *args],
            env=env,
            cwd=where,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        for args in runs
    ]
    ends = time.monotonic() + timeout
    got: list = []
    for proc in procs:
        try:
            out, err = proc.communicate(timeout=max(0.0, ends - time.monotonic()))
            got.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            got.append(subprocess.TimeoutExpired(proc.args, timeout, output=out, stderr=err))
    return got


def python_many(
    code: str,
    runs: list[list[str]],
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 120,
) -> list:
    """`python -c code *args` for each `args` of `runs`, all started at the same time: forked from this thread's
    server, where every pbem module is imported already (each fresh Python imported what `code` imports, 0.1 to 1
    CPU s), or started from scratch with `PBEM_TEST_FORKSERVER=0`.  Stdin is /dev/null.  A CompletedProcess each,
    or a subprocess.TimeoutExpired for one still running after `timeout` seconds (killed)."""
    import subprocess

    env = dict(os.environ if env is None else env)
    where = os.fspath(cwd) if cwd is not None else os.getcwd()
    runs = [[str(a) for a in args] for args in runs]
    if os.environ.get("PBEM_TEST_FORKSERVER", "1") != "0":
        return server().run_many(runs, env, where, timeout, code=code)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, *args],
            env=env,
            cwd=where,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        for args in runs
    ]
    got: list = []
    ends = time.monotonic() + timeout
    for proc in procs:
        try:
            out, err = proc.communicate(timeout=max(0.0, ends - time.monotonic()))
            got.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            got.append(subprocess.TimeoutExpired(proc.args, timeout, output=out, stderr=err))
    return got


def ready() -> None:
    """This thread's server started now, if the fork server is used: a test that times a command against its
    deadline calls it before its clock starts, so that the clock times the command, not the server's start (every
    pbem module imported: 2 to 5 s on an idle machine, 9.1 s at load 10, where `test_waits_servers`'s silent IMAP
    server took 15.3 s of its 16 s bound; `tests/test_no_wall_clock_costs.py` checks that every such test does)."""
    if os.environ.get("PBEM_TEST_FORKSERVER", "1") != "0":
        server()


def server() -> ForkServer:
    """This thread's server (started on first use, stopped when the test process exits)."""
    import atexit
    import threading

    key = threading.get_ident()
    if key not in _SERVERS:
        if not _SERVERS:
            atexit.register(_close_all)
        _SERVERS[key] = ForkServer()
    return _SERVERS[key]


def _close_all() -> None:
    for s in list(_SERVERS.values()):
        s.close()
    _SERVERS.clear()


if __name__ == "__main__":
    serve()
