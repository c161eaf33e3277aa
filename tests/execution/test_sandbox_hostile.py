"""Hostile programs against what only the executor has: its judge and candidate protocol,
its fork server, its I/O tests and its C++ and Java runners.

What every launcher must withstand — files, network, secrets, a fork bomb, memory, an
output flood, leftovers and a forged verdict, at every level — is the conformance suite's
(test_sandbox_conformance.py). Here: a candidate holding no test, exceptions and objects
across the boundary, ptrace of the fork server, samples disturbing the next one, and the
same attacks through each language's own runner. Each program must end with a non-passing
verdict of the right status and leave the samples around it unaffected. Programs that only
*probe* are written so that they pass exactly when the protection holds.

These tests run real sandboxes (bubblewrap on CI: the suite fails there if it is missing).
"""

from __future__ import annotations

import os
import shutil
import textwrap
import uuid

import pytest
from test_sandbox_conformance import _host_processes

from beyondpass.benchmarks.task import TestCase
from beyondpass.execution import (
    ExecutionLimits,
    ExecutionRequest,
    Status,
    create_executor,
    languages,
)
from beyondpass.execution.sandbox import level_works

TESTS = (TestCase("a", "assert inc(1) == 2"), TestCase("b", "assert inc(41) == 42"))
GOOD = "def inc(x):\n    return x + 1\n"
WRONG = "def inc(x):\n    return 0\n"


@pytest.fixture(scope="module", params=["bwrap", "unshare"])
def executor(request):
    """The executor at each namespace level this machine offers; CI must offer bwrap.

    The ``process`` level is not attacked here: without a PID namespace a program that
    signals every process it may (``kill(-1)``) reaches the test runner itself. It gets the
    verdict tests only (``test_process_level_verdicts``).
    """
    level = request.param
    if not level_works(level):
        if level == "bwrap" and os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI must run the bwrap sandbox: install bubblewrap")
        pytest.skip(f"isolation level {level} does not work on this machine")
    ex = create_executor("sandbox", workers=2, isolation=level)
    yield ex
    ex.close()


def request(program: str, tests=TESTS, **limits) -> ExecutionRequest:
    return ExecutionRequest(
        program=textwrap.dedent(program),
        tests=tests,
        limits=ExecutionLimits(**{"timeout_s": 5, **limits}),
    )


def run_between_good(executor, program: str, **limits):
    """Run the program with correct samples before and after it, concurrently."""
    batch = [request(GOOD), request(program, **limits), request(GOOD), request(GOOD)]
    results = executor.run_many(batch)
    assert [r.status for i, r in enumerate(results) if i != 1] == [Status.PASSED] * 3, [
        (r.status, r.message) for r in results
    ]
    return results[1]


def test_a_correct_sample_passes(executor):
    result = executor.run(request(GOOD))
    assert result.status is Status.PASSED, result.message
    assert [(t.name, t.status) for t in result.tests] == [("a", "passed"), ("b", "passed")]


def test_the_candidate_never_holds_the_tests(executor):
    """The expected values are not in the candidate's process: not as objects, not in memory."""
    program = """
        import gc, re
        def found_in_objects():
            return any(isinstance(o, str) and "inc(41) == 42" in o for o in gc.get_objects())
        def found_in_memory():
            with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
                for line in maps:
                    m = re.match(r"([0-9a-f]+)-([0-9a-f]+) r", line)
                    if not m:
                        continue
                    start, end = int(m[1], 16), int(m[2], 16)
                    try:
                        mem.seek(start)
                        if b"inc(41) == 42" in mem.read(end - start):
                            return True
                    except (OSError, ValueError, OverflowError):
                        pass
            return False
        LEAKED = found_in_objects() or found_in_memory()
        def inc(x):
            return 42 if LEAKED else 0
        """
    result = run_between_good(executor, program, timeout_s=20)
    assert result.status is Status.FAILED, result.message


def test_candidate_exceptions_keep_their_type_for_the_tests(executor):
    tests = (
        TestCase(
            "raises",
            "try:\n    inc(-1)\nexcept ValueError as e:\n    assert 'neg' in str(e)\n"
            "else:\n    raise AssertionError('no error')",
        ),
        TestCase("custom", "try:\n    inc(-2)\nexcept LookupError:\n    pass"),
    )
    program = """
        class Mine(KeyError):
            pass
        def inc(x):
            if x == -1:
                raise ValueError("negative")
            raise Mine("custom")
        """
    assert executor.run(request(program, tests=tests)).status is Status.PASSED


def test_in_place_changes_to_arguments_reach_the_tests(executor):
    tests = (
        TestCase(
            "sort", "xs = [3, 1, 2]\nassert sort_in_place(xs) is None\nassert xs == [1, 2, 3]"
        ),
    )
    program = "def sort_in_place(xs):\n    xs.sort()\n"
    assert executor.run(request(program, tests=tests)).status is Status.PASSED


def test_objects_stay_in_the_candidate_and_are_used_through_handles(executor):
    tests = (
        TestCase("iter", "assert list(evens(6)) == [0, 2, 4]"),
        TestCase("len", "assert len(Box([1, 2, 3])) == 3 and Box([1]).first() == 1"),
        TestCase("eq", "assert evens(2) != [0]"),
    )
    program = """
        def evens(n):
            return (i for i in range(n) if i % 2 == 0)
        class Box:
            def __init__(self, items): self.items = items
            def __len__(self): return len(self.items)
            def first(self): return self.items[0]
        """
    result = executor.run(request(program, tests=tests))
    assert result.status is Status.PASSED, result.message


# -- the fork server ---------------------------------------------------------------------
def test_ptrace_of_the_fork_server_is_refused(executor):
    program = """
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        ATTACHED = libc.ptrace(16, os.getppid(), 0, 0) == 0  # PTRACE_ATTACH
        def inc(x):
            return x + 1 if not ATTACHED else 0
        """
    assert executor.run(request(program)).status is Status.PASSED


# -- resources ----------------------------------------------------------------------------
def test_infinite_loop_ignoring_sigterm_times_out(executor):
    program = """
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        def inc(x):
            while True:
                pass
        """
    result = run_between_good(executor, program, timeout_s=1)
    assert result.status is Status.TIMEOUT


def test_a_memory_error_in_the_call_is_a_memory_verdict(executor):
    # at load: the conformance suite (test_sandbox_conformance.py)
    in_call = run_between_good(
        executor, "def inc(x):\n    return len(bytearray(8 * 1024**3))\n", memory_mb=512
    )
    assert in_call.status is Status.MEMORY


def test_huge_return_value_is_an_error_not_a_crash(executor):
    # building and refusing 100 MB takes seconds on a loaded machine: a generous limit keeps
    # the verdict about the size, not about the load
    huge = "def inc(x):\n    return 'x' * (100 * 1024 * 1024)\n"
    result = run_between_good(executor, huge, timeout_s=30)
    assert result.status is Status.ERROR
    assert "TransferError" in result.message


def test_segfault_is_killed(executor):
    result = run_between_good(executor, "import ctypes\nctypes.string_at(0)\n" + GOOD)
    assert result.status is Status.KILLED
    assert "SIGSEGV" in result.message


def test_deep_recursion(executor):
    python_level = run_between_good(executor, "def inc(x):\n    return inc(x)\n")
    assert python_level.status is Status.ERROR
    assert "RecursionError" in python_level.message
    c_level = run_between_good(
        executor,
        "import sys\nsys.setrecursionlimit(10**7)\ndef inc(x):\n    return inc(x) + 1\n",
    )
    assert c_level.status in (Status.KILLED, Status.ERROR, Status.MEMORY, Status.TIMEOUT)


def test_stdin_is_empty(executor):
    program = "import sys\nDATA = sys.stdin.read()\ndef inc(x):\n    return x + 1 + len(DATA)\n"
    assert executor.run(request(program)).status is Status.PASSED


def test_a_fork_bombs_dying_processes_do_not_fail_the_next_sample(executor):
    """The next sample in the same sandbox can fork as soon as it starts: the bomb's killed
    processes no longer count against the sandbox's process budget. (Before the fork
    server waited for them, the next sample's forks failed in most rounds at both levels.)"""
    bomb = """
        import os
        while True:
            try:
                os.fork()
            except OSError:
                pass
        """
    forker = """
        import os
        kids = []
        for _ in range(60):
            kid = os.fork()
            if kid == 0:
                os._exit(0)
            kids.append(kid)
        for k in kids:
            os.waitpid(k, 0)
        def inc(x):
            return x + 1
        """
    one = create_executor("sandbox", workers=1, isolation=executor.level)  # one sandbox
    try:
        for _ in range(2):
            ended, after = one.run_many([request(bomb, timeout_s=2), request(forker)])
            assert ended.status in (Status.TIMEOUT, Status.KILLED, Status.ERROR)
            assert after.status is Status.PASSED, after.message
    finally:
        one.close()


def test_a_forked_child_that_fails_to_load_does_not_speak_for_the_program(executor):
    """A process the program forks does not hold the judge's channel: its failure (here a
    raise; on a loaded machine, a fork of its own that the process limit refuses) is not
    the program's answer."""
    program = """
        import os
        if os.fork() == 0:
            raise RuntimeError("the child fails")
        def inc(x):
            return 0
        """
    result = run_between_good(executor, program)
    assert result.status is Status.FAILED, result.message


def test_killing_its_parent_and_everything_it_can_see(executor):
    for program in (
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n" + WRONG,
        "import os, signal\nos.kill(-1, signal.SIGKILL)\n" + WRONG,
        "import os, signal\ndef inc(x):\n    os.kill(os.getppid(), signal.SIGKILL)\n    return 0\n",
    ):
        result = run_between_good(executor, program)
        assert result.status is not Status.PASSED, result.message


def test_files_of_one_sample_are_gone_for_the_next(executor):
    writer = "open('left-behind.txt', 'w').write('x')\nimport os\nos.chmod('.', 0o500)\n" + GOOD
    reader = "import os\nLEFT = os.listdir('.')\ndef inc(x):\n    return x + 1 if not LEFT else 0\n"
    ex = create_executor("sandbox", workers=1, isolation=executor.level)
    try:
        results = ex.run_many([request(writer), request(reader), request(reader)])
    finally:
        ex.close()
    assert [r.status for r in results] == [Status.PASSED] * 3, [r.message for r in results]


def test_nothing_a_sample_writes_anywhere_reaches_the_next(executor):
    """Files, directories and links planted anywhere the sample may write — its working
    directory, the scratch root, next to its output files — are gone for the next sample."""
    planted = [
        "os.path.join(os.getcwd(), 'w.txt')",
        "os.path.join(os.path.dirname(os.getcwd()), 'root.txt')",
        "os.path.join(os.path.dirname(os.getcwd()), 'logs', 'extra.txt')",
        "os.path.join(os.environ['TMPDIR'], 'tmp.txt')",
    ]
    writer = (
        "import os\n"
        f"PLANTED = [{', '.join(planted)}]\n"
        "for p in PLANTED:\n"
        "    try:\n"
        "        open(p, 'w').write('x')\n"
        "    except OSError:\n"
        "        pass\n"
        "try:\n"
        "    os.symlink('/etc/passwd', os.path.join(os.path.dirname(os.getcwd()), 'link'))\n"
        "except OSError:\n"
        "    pass\n" + GOOD
    )
    reader = (
        "import os\n"
        f"SEEN = [p for p in [{', '.join(planted)}] if os.path.lexists(p)]\n"
        "SEEN += [p for p in [os.path.join(os.path.dirname(os.getcwd()), 'link')]"
        " if os.path.lexists(p)]\n"
        "print(SEEN)\n"
        "def inc(x):\n    return x + 1 if not SEEN else 0\n"
    )
    ex = create_executor("sandbox", workers=1, isolation=executor.level)
    try:
        results = ex.run_many([request(writer), request(reader)])
    finally:
        ex.close()
    assert results[0].status is Status.PASSED, results[0].message
    assert results[1].status is Status.PASSED, results[1].stdout


# -- I/O tests: the whole program on stdin, its output compared by the judge ------------------
IO_TESTS = (
    TestCase("io1", stdin="2 3\n", expected_stdout="5\n"),
    TestCase("io2", stdin="40 2\n", expected_stdout="42\n"),
)
IO_GOOD = "a, b = map(int, input().split())\nprint(a + b)\n"


def io_request(program: str, tests=IO_TESTS, **limits) -> ExecutionRequest:
    return request(program, tests=tests, **limits)


def run_io_between_good(executor, program: str, tests=IO_TESTS, **limits):
    """The I/O program with correct I/O samples before and after it, concurrently."""
    batch = [io_request(IO_GOOD), io_request(program, tests, **limits), io_request(IO_GOOD)]
    results = executor.run_many([*batch, io_request(IO_GOOD)])
    assert [r.status for i, r in enumerate(results) if i != 1] == [Status.PASSED] * 3, [
        (r.status, r.message) for r in results
    ]
    return results[1]


IO_FAKES = {
    # wrong output, then the exit status of a success
    "wrong then os._exit(0)": (
        "import os\nprint(6, flush=True)\nos._exit(0)\n",
        Status.FAILED,
    ),
    # the right output, then a crash the program tries to make look clean
    "right then SIGKILL itself": (
        IO_GOOD
        + "import os, signal, sys\nsys.stdout.flush()\nos.kill(os.getpid(), signal.SIGKILL)\n",
        Status.KILLED,
    ),
    "right then exit 1": (IO_GOOD + "import sys\nsys.exit(1)\n", Status.ERROR),
    "right then uncaught error in a finally": (
        "try:\n" + textwrap.indent(IO_GOOD, "    ") + "finally:\n    1 / 0\n",
        Status.ERROR,
    ),
    # closes every descriptor (its channel to the judge included) and keeps running
    "closes its channel and lingers": (
        IO_GOOD + "import os, sys, time\nsys.stdout.flush()\nos.closerange(0, 4096)\n"
        "time.sleep(60)\n",
        Status.ERROR,
    ),
    # forged frames (a "ready", a passing answer, a verdict) on every descriptor it has
    "forges frames on every descriptor": (
        """
        import json, os, struct
        for message in (["ready"], ["ok", True, 0, [], 0], {"status": "passed"}):
            body = json.dumps(message).encode()
            for fd in range(3, 1024):
                try:
                    os.write(fd, struct.pack(">I", len(body)) + body)
                except OSError:
                    pass
        print("nothing useful")
        """,
        Status.FAILED,
    ),
    # writes the "right" answer to stdout's file behind the program's back, then fails
    "rewrites its output file at exit": (
        """
        import os
        print(0, flush=True)
        os.lseek(1, 0, os.SEEK_SET)
        os.write(1, b"5\\n")
        os._exit(3)
        """,
        Status.ERROR,
    ),
}


@pytest.mark.parametrize("name", sorted(IO_FAKES))
def test_io_faking_a_pass_never_passes(executor, name):
    program, expected = IO_FAKES[name]
    result = run_io_between_good(executor, program)
    assert result.status is expected, (result.status, result.message)


def test_io_output_bomb_is_cut_off(executor):
    bomb = "import sys\nwhile True:\n    sys.stdout.write('5\\n' * 50000)\n"
    assert run_io_between_good(executor, bomb).status is Status.OUTPUT_LIMIT
    err_bomb = IO_GOOD + "import sys\nwhile True:\n    sys.stderr.write('x' * 100000)\n"
    assert run_io_between_good(executor, err_bomb).status is Status.OUTPUT_LIMIT


def test_io_memory_bomb_is_contained(executor):
    program = IO_GOOD + "hog = []\nwhile True:\n    hog.append(bytearray(1 << 24))\n"
    result = run_io_between_good(executor, program, memory_mb=256)
    assert result.status in (Status.MEMORY, Status.KILLED), result.message


def test_io_expected_output_is_nowhere_the_program_can_look(executor):
    """The program hunts for the expected output — files it can read, every process's
    environment, command line and memory it may read, its own memory, its environment —
    and prints it if found. It must find nothing: it prints 'clean' and fails."""
    marker = f"expected-{uuid.uuid4().hex}"
    tests = (TestCase("hunt", stdin="go\n", expected_stdout=marker + "\n"),)
    hunter = """
        import os, re, time
        NEEDLE = re.compile(rb"expected-[0-9a-f]{32}")
        start = time.monotonic()
        found = []

        def look(data):
            found.extend(m.decode() for m in NEEDLE.findall(data))

        def read(path, limit=1 << 20):
            try:
                with open(path, "rb") as fh:
                    look(fh.read(limit))
            except (OSError, ValueError):
                pass

        def memory(pid):
            try:
                with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb") as mem:
                    for line in maps:
                        span, perms = line.split()[:2]
                        if "r" not in perms or "[vvar" in line or "[vsyscall" in line:
                            continue
                        lo, hi = (int(x, 16) for x in span.split("-"))
                        if hi - lo > 1 << 28:
                            continue
                        try:
                            mem.seek(lo)
                            look(mem.read(hi - lo))
                        except (OSError, ValueError, OverflowError):
                            pass
            except OSError:
                pass

        input()
        look(repr(dict(os.environ)).encode())
        for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
            for part in ("environ", "cmdline"):
                read(f"/proc/{pid}/{part}")
            memory(pid)
        for top in ("/tmp", "/dev/shm", "/run", "/var/tmp", "/home", "/root", "/opt", os.getcwd()):
            for root, dirs, files in os.walk(top):
                if time.monotonic() - start > 3:
                    break
                for name in files:
                    read(os.path.join(root, name))
        print(found[0] if found else "clean")
    """
    result = run_io_between_good(executor, textwrap.dedent(hunter), tests)
    assert result.status is Status.FAILED, result.message
    assert result.tests[0].message.endswith("got 'clean'"), result.tests[0].message


# -- C++ and Java programs: compiled once in the candidate sandbox, then every I/O test --------
# Each hostile program runs between correct programs of its language (concurrently); Java
# runs many tests per JVM (the batch runner), so these also show that a test that hangs,
# exits or breaks the runner is charged to that test alone. Programs that only probe the
# sandbox pass exactly when the protection holds.
COMPILED_TESTS = (*IO_TESTS, TestCase("io3", stdin="3 4\n", expected_stdout="7\n"))
COMPILED_GOOD = {
    "cpp": """
        #include <iostream>
        int main() { long long a, b; std::cin >> a >> b; std::cout << a + b << "\\n"; }
        """,
    "java": """
        import java.util.Scanner;
        public class Main {
            public static void main(String[] args) {
                Scanner in = new Scanner(System.in);
                System.out.println(in.nextLong() + in.nextLong());
            }
        }
        """,
}


@pytest.fixture(params=["cpp", "java"])
def language(request, executor):
    missing = [t for t in ("g++", "javac", "java") if shutil.which(t) is None]
    if missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must install {', '.join(missing)} (.ci/run)")
        pytest.skip(f"{', '.join(missing)} not installed")
    return request.param


def compiled_request(language: str, program: str, tests=COMPILED_TESTS, batch=True, **limits):
    limits = ExecutionLimits(**{"timeout_s": 30, "test_timeout_s": 4, **limits})
    return languages.io_request(language, textwrap.dedent(program), tests, limits, batch)


def run_compiled_between_good(executor, language: str, program: str, tests=COMPILED_TESTS, **kw):
    good = compiled_request(language, COMPILED_GOOD[language])
    batch = [good, compiled_request(language, program, tests, **kw), good, good]
    results = executor.run_many(batch)
    assert [r.status for i, r in enumerate(results) if i != 1] == [Status.PASSED] * 3, [
        (r.status, r.message) for r in results
    ]
    return results[1]


HOSTILE = {
    ("cpp", "infinite loop in one test"): """
        #include <iostream>
        int main() { long long a, b; std::cin >> a >> b;
          volatile long long spin = 0; while (a == 40) spin++;
          std::cout << a + b << "\\n"; }
        """,
    ("java", "infinite loop in one test"): """
        import java.util.Scanner;
        public class Main {
            static volatile long spin;
            public static void main(String[] args) {
                Scanner in = new Scanner(System.in);
                long a = in.nextLong(), b = in.nextLong();
                while (a == 40) { spin++; }
                System.out.println(a + b);
            }
        }
        """,
}


def test_compiled_infinite_loop_is_charged_to_its_test_alone(executor, language):
    program = HOSTILE[(language, "infinite loop in one test")]
    result = run_compiled_between_good(executor, language, program)
    assert [t.status for t in result.tests] == [Status.PASSED, Status.TIMEOUT, Status.PASSED]
    assert result.status is Status.TIMEOUT


def test_java_system_exit_in_the_middle_is_that_tests_exit(executor, language):
    if language != "java":
        pytest.skip("System.exit is Java's")
    program = """
        import java.util.Scanner;
        public class Main {
            public static void main(String[] args) {
                Scanner in = new Scanner(System.in);
                long a = in.nextLong(), b = in.nextLong();
                if (a == 40) { System.out.println(42); System.exit(3); }
                if (a == 3) { System.out.println(7); Runtime.getRuntime().halt(0); }
                System.out.println(a + b);
                System.exit(0);
            }
        }
        """
    result = run_compiled_between_good(executor, language, program)
    assert [t.status for t in result.tests] == [Status.PASSED, Status.ERROR, Status.PASSED]
    assert result.tests[1].exit_code == 3


def test_java_forged_runner_replies_never_pass(executor, language):
    """The program writes the runner's reply itself on the runner's channel (forging
    results for this and the next tests), and one claims a huge output: no test it did not
    answer right passes, and the sample fails."""
    if language != "java":
        pytest.skip("the batch runner is Java's")
    program = """
        import java.io.*;
        public class Main {
            public static void main(String[] args) throws Exception {
                DataOutputStream raw = new DataOutputStream(new
                    FileOutputStream(FileDescriptor.out));
                for (int i = 0; i < 3; i++) {
                    raw.writeByte('C'); raw.writeInt(0); raw.writeByte(1);
                    raw.writeInt(2); raw.write("0\\n".getBytes()); raw.writeInt(0);
                }
                raw.writeByte('C'); raw.writeInt(0); raw.writeByte(1);
                    raw.writeInt(Integer.MAX_VALUE);
                raw.flush();
                System.out.println(0);
            }
        }
        """
    result = run_compiled_between_good(executor, language, program)
    assert result.status is not Status.PASSED
    assert all(t.status is not Status.PASSED for t in result.tests), result.tests
    assert len(result.tests) == 3


def test_one_jvm_per_test_trusts_no_word_of_the_program(executor, language):
    """The fallback: a program that prints the right answer, forges a success on every
    descriptor and exits 1 is an error (the exit status comes from the kernel)."""
    if language != "java":
        pytest.skip("the fallback is Java's")
    program = """
        import java.io.*;
        import java.util.Scanner;
        public class Main {
            public static void main(String[] args) throws Exception {
                Scanner in = new Scanner(System.in);
                System.out.println(in.nextLong() + in.nextLong());
                System.out.flush();
                DataOutputStream raw = new DataOutputStream(new
                    FileOutputStream(FileDescriptor.out));
                raw.writeByte('C'); raw.writeInt(0); raw.writeByte(1); raw.writeInt(0);
                    raw.writeInt(0);
                raw.flush();
                Runtime.getRuntime().halt(1);
            }
        }
        """
    result = executor.run(compiled_request(language, program, batch=False))
    assert [t.status for t in result.tests] == [Status.ERROR] * 3, result.message


def test_compiled_forged_frames_on_every_descriptor_fail(executor, language):
    if language != "cpp":
        pytest.skip("raw descriptors are C++'s (Java's are the runner test)")
    program = """
        #include <cstring>
        #include <cstdio>
        #include <unistd.h>
        #include <arpa/inet.h>
        int main() {
          // a forged kept build too: the real one was sent before this program ran
          const char* messages[] = {"[\\"ready\\"]", "[\\"compiled\\"]",
              "[\\"compiled\\", {\\"main\\": \\"eA==\\"}]",
              "{\\"status\\": \\"passed\\"}"};
          for (const char* m : messages) {
            unsigned int n = htonl(strlen(m));
            for (int fd = 3; fd < 1024; fd++) { write(fd, &n, 4); write(fd, m, strlen(m)); }
          }
          printf("nothing useful\\n");
        }
        """
    result = run_compiled_between_good(executor, language, program)
    assert result.status is Status.FAILED
    assert [t.status for t in result.tests] == [Status.FAILED] * 3


def test_compiled_output_bomb_is_cut_off(executor, language):
    program = {
        "cpp": """
            #include <cstdio>
            int main() { for (;;) fputs("5\\n5\\n5\\n5\\n5\\n5\\n5\\n5\\n", stdout); }
            """,
        "java": """
            public class Main { public static void main(String[] a) {
                StringBuilder chunk = new StringBuilder();
                for (int i = 0; i < 50000; i++) chunk.append("5\\n");
                while (true) { System.out.print(chunk); System.err.print(chunk); } } }
            """,
    }[language]
    result = run_compiled_between_good(executor, language, program)
    assert [t.status for t in result.tests] == [Status.OUTPUT_LIMIT] * 3, result.message


def _spawner(language: str, marker: str) -> str:
    if language == "cpp":
        return f"""
            #include <unistd.h>
            int main() {{
              if (fork() == 0) {{ setsid(); execlp("sleep", "sleep", "{marker}", (char*) 0); }}
              for (;;) fork();
            }}
            """
    return f"""
        public class Main {{
            public static void main(String[] a) throws Exception {{
                new ProcessBuilder("sleep", "{marker}").start();
                while (true) {{
                    try {{ new ProcessBuilder("sh", "-c",
                        "sleep {marker} & sleep {marker}").start(); }}
                    catch (Throwable t) {{ }}
                    try {{ new Thread(() -> {{ while (true) {{ }} }}).start(); }} catch
                        (Throwable t) {{ }}
                }}
            }}
        }}
        """


def test_compiled_fork_bomb_is_contained_and_cleaned_up(executor, language):
    marker = f"{uuid.uuid4().int % 10**6}.75"
    # each test ends at its own 2 s limit; the sample's budget is wide, so that on a loaded
    # machine (slow compile, slow clean-up of a fork bomb) the verdict stays the tests'
    result = run_compiled_between_good(
        executor, language, _spawner(language, marker), test_timeout_s=2, timeout_s=120
    )
    assert all(t.status in (Status.TIMEOUT, Status.KILLED, Status.ERROR) for t in result.tests), [
        (t.status, t.message) for t in result.tests
    ]
    assert _host_processes(f"sleep {marker}") == []


def test_compiled_expected_output_is_nowhere_the_program_can_look(executor, language):
    """The program hunts for the expected output in its environment, every process's
    command line and environment it may read, and files under the usual places; it prints
    what it found, or 'clean'. It must find nothing."""
    marker = f"expected-{uuid.uuid4().hex}"
    tests = (TestCase("hunt", stdin="go\n", expected_stdout=marker + "\n"),)
    if language == "cpp":
        program = """
            #include <cctype>
            #include <chrono>
            #include <filesystem>
            #include <fstream>
            #include <iostream>
            #include <string>
            extern char** environ;
            namespace fs = std::filesystem;
            static std::string found;
            static void look(const std::string& d) {
              for (size_t p = d.find("expected-"); p != std::string::npos; p =
                  d.find("expected-", p + 1)) {
                if (p + 41 > d.size()) break;
                bool hex = true;
                for (size_t i = p + 9; i < p + 41; i++) hex = hex && std::isxdigit((unsigned
                    char) d[i]);
                if (hex) { found = d.substr(p, 41); return; }
              }
            }
            static void read_file(const fs::path& path) {
              std::ifstream f(path, std::ios::binary);
              std::string d(1 << 20, '\\0');
              f.read(&d[0], d.size());
              d.resize(f.gcount());
              look(d);
            }
            int main() {
              std::string line; std::getline(std::cin, line);
              auto start = std::chrono::steady_clock::now();
              for (char** e = environ; *e; ++e) look(*e);
              std::error_code ec;
              for (auto& d : fs::directory_iterator("/proc", ec)) {
                std::string n = d.path().filename().string();
                if (!n.empty() && std::isdigit((unsigned char) n[0])) {
                  read_file(d.path() / "cmdline"); read_file(d.path() / "environ");
                }
              }
              for (const char* top : {"/tmp", "/dev/shm", "/run", "/var/tmp", "/home", "/root",
                  "/opt"}) {
                fs::recursive_directory_iterator it(top,
                    fs::directory_options::skip_permission_denied, ec), end;
                for (; !ec && it != end; it.increment(ec)) {
                  if (std::chrono::steady_clock::now() - start > std::chrono::seconds(3)) break;
                  if (it->is_regular_file(ec)) read_file(it->path());
                }
              }
              std::cout << (found.empty() ? "clean" : found) << "\\n";
            }
            """
    else:
        program = """
            import java.nio.file.*;
            import java.util.*;
            import java.util.regex.*;
            import java.util.stream.*;
            public class Main {
                static final Pattern NEEDLE = Pattern.compile("expected-[0-9a-f]{32}");
                static String found = null;
                static void look(String data) {
                    Matcher m = NEEDLE.matcher(data);
                    if (found == null && m.find()) found = m.group();
                }
                static void read(Path p) {
                    try { look(new String(Files.readAllBytes(p), "ISO-8859-1")); } catch
                        (Throwable e) { }
                }
                public static void main(String[] args) throws Exception {
                    new Scanner(System.in).nextLine();
                    long start = System.nanoTime();
                    look(System.getenv().toString());
                    look(System.getProperties().toString());
                    try (DirectoryStream<Path> procs =
                        Files.newDirectoryStream(Paths.get("/proc"))) {
                        for (Path p : procs) {
                            if (Character.isDigit(p.getFileName().toString().charAt(0))) {
                                read(p.resolve("cmdline")); read(p.resolve("environ"));
                            }
                        }
                    }
                    for (String top : new String[] {"/tmp", "/dev/shm", "/run", "/var/tmp",
                        "/home", "/root", "/opt"}) {
                        try (Stream<Path> walk = Files.walk(Paths.get(top))) {
                            for (Path p : (Iterable<Path>) walk::iterator) {
                                if (System.nanoTime() - start > 3_000_000_000L) break;
                                if (Files.isRegularFile(p) && Files.size(p) < (1 << 20)) read(p);
                            }
                        } catch (Throwable e) { }
                    }
                    System.out.println(found == null ? "clean" : found);
                }
            }
            """
    result = run_compiled_between_good(executor, language, program, tests, test_timeout_s=15)
    assert result.status is Status.FAILED, result.message
    assert result.tests[0].message.endswith("got 'clean'"), result.tests[0].message
