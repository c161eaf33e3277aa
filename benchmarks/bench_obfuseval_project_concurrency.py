"""Project mode with several model requests in flight vs one, on inflection and cachetools.

Usage::

    python benchmarks/bench_obfuseval_project_concurrency.py --sdists DIR \\
        [--max-functions 4] [--delay 0.2] [--concurrency 1 4]

``DIR`` holds ``inflection-0.5.1.tar.gz`` and ``cachetools-5.5.0.tar.gz`` (the sdists
tests/methods/obfuseval/conftest.py uses; ``pip download --no-binary :all: --no-deps
inflection==0.5.1 cachetools==5.5.0``). Each project is prepared once; then, per
concurrency, ``beyondpass obfuseval project run`` (both conditions, no response cache)
runs in a fresh run directory against a local OpenAI-compatible server on 127.0.0.1 that
answers every request after ``--delay`` seconds with the project's own function. Reported
per run: wall time of the command, the asking phase as the server saw it (first request
in to last answer out), requests and the most in flight at once. Prints one JSON line;
record results in docs/performance.md.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from _common import argument_parser

from beyondpass.execution import Sandboxes
from beyondpass.methods.obfuseval.project.benchmark import (
    TASKS_FILE,
    project_record,
    write_record,
)
from beyondpass.methods.obfuseval.project.runner import prepare, tool_versions
from beyondpass.methods.obfuseval.project.spec import load_project
from beyondpass.methods.obfuseval.project.tasks import obfuscate_task, reference_answer

DESCRIPTIONS = {
    "inflection": 'paths = ["inflection/__init__.py"]\nmax_functions = {n}\n',
    "cachetools": '[build]\npythonpath = ["src"]\n[select]\npaths = ["src/cachetools/*.py"]\n'
    'functions = ["cachetools.keys.hashkey", "cachetools.LFUCache.popitem", '
    '"cachetools.Cache.pop"]\n[descriptions]\n"cachetools.Cache.pop" = "Remove key and '
    "return its value; when key is absent, return default, or raise KeyError when no "
    'default is given."\n',
}


class Model:
    """The local server's state: answers by prompt, request times, requests in flight."""

    def __init__(self, answers: dict[str, str], delay: float) -> None:
        self.answers, self.delay = answers, delay
        self.lock = threading.Lock()
        self.requests = self.in_flight = self.max_in_flight = 0
        self.first_in = self.last_out = 0.0

    def answer(self, prompt: str) -> str:
        with self.lock:
            self.requests += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self.first_in = self.first_in or time.monotonic()
        time.sleep(self.delay)
        text = next((a for stub, a in self.answers.items() if stub in prompt), "no answer")
        with self.lock:
            self.in_flight -= 1
            self.last_out = time.monotonic()
        return text


def serve(model: Model) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            text = model.answer(str(body["messages"][-1]["content"]))
            data = json.dumps(
                {
                    "id": "bench",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", ""),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def answers_of(prepared: Any) -> dict[str, str]:
    """Stub -> the project's own function, for the original and the obfuscated prompt."""
    out = {}
    for task in prepared.tasks:
        source = (prepared.pristine / task.path).read_text(encoding="utf-8")
        for shown in (task, obfuscate_task(task, source, 0)):
            out[shown.stub] = reference_answer(shown)
    return out


def one_run(toml: Path, record: dict, work: Path, model: Model, concurrency: int) -> dict:
    out = work / f"run-{toml.stem}-c{concurrency}"
    out.mkdir()
    write_record(record, out / TASKS_FILE)
    server = serve(model)
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "beyondpass", "obfuseval", "project", "run", str(toml)]
        + ["--model", f"openai:bench@{url}", "--out", str(out), "--json", "--no-cache"]
        + ["--conditions", "original,obfuscated", "--max-concurrency", str(concurrency)],
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    server.shutdown()
    if done.returncode != 0:
        raise SystemExit(f"run failed: {done.stderr.strip()[-500:]}")
    summary = json.loads(done.stdout)
    return {
        "concurrency": concurrency,
        "wall_s": round(wall, 2),
        "ask_s": round(model.last_out - model.first_in, 2),
        "requests": model.requests,
        "max_in_flight": model.max_in_flight,
        "tpr": {c: f["tpr"] for c, f in summary["conditions"].items()},
    }


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--sdists", required=True, type=Path)
    parser.add_argument("--max-functions", type=int, default=4)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4])
    args = parser.parse_args()
    result: dict[str, Any] = {
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "load_before": os.getloadavg()[0],
        "delay_s": args.delay,
    }
    with tempfile.TemporaryDirectory(prefix="bench-project-") as tmp:
        work = Path(tmp)
        for name, version in (("inflection", "0.5.1"), ("cachetools", "5.5.0")):
            sdist = (args.sdists / f"{name}-{version}.tar.gz").resolve()
            select = DESCRIPTIONS[name].format(n=args.max_functions)
            if name == "inflection":
                select = "[select]\n" + select
            toml = work / f"{name}.toml"
            toml.write_text(
                f'name = "{name}"\n[source]\nsdist = "{sdist}"\n[test]\ntimeout_s = 120\n' + select
            )
            start = time.perf_counter()
            prepared = prepare(load_project(toml), work / f"scratch-{name}", Sandboxes())
            record = project_record(prepared, 0, tool_versions())
            entry: dict[str, Any] = {
                "tasks": len(prepared.tasks),
                "prepare_s": round(time.perf_counter() - start, 1),
            }
            for concurrency in args.concurrency:
                model = Model(answers_of(prepared), args.delay)
                entry[f"c{concurrency}"] = one_run(toml, record, work, model, concurrency)
                print(name, json.dumps(entry[f"c{concurrency}"]), file=sys.stderr, flush=True)
            result[name] = entry
    result["load_after"] = os.getloadavg()[0]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
