"""Data-source resolution: explicit dir, cache, download (from a server on 127.0.0.1)."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from beyondpass.benchmarks.sources import DataFile, resolve
from beyondpass.errors import DataError


@pytest.fixture
def file_server(tmp_path):
    root = tmp_path / "served"
    root.mkdir()
    (root / "tasks.jsonl").write_text('{"x": 1}\n')
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None  # type: ignore[method-assign]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_order_explicit_dir_then_cache_then_download(tmp_path, monkeypatch, file_server):
    monkeypatch.delenv("BEYONDPASS_DATA", raising=False)
    monkeypatch.delenv("BEYONDPASS_OFFLINE", raising=False)
    monkeypatch.setenv("BEYONDPASS_CACHE_DIR", str(tmp_path / "cache"))
    data_file = DataFile("bench/tasks.jsonl", f"{file_server}/tasks.jsonl")

    downloaded = resolve(data_file)  # nothing local: fetched into the cache
    assert downloaded == tmp_path / "cache" / "data" / "bench" / "tasks.jsonl"
    assert downloaded.read_text() == '{"x": 1}\n'
    assert not list(downloaded.parent.glob(".download-*"))

    downloaded.write_text("cached\n")  # the cache now wins over the network
    assert resolve(data_file).read_text() == "cached\n"

    explicit = tmp_path / "mine" / "bench"
    explicit.mkdir(parents=True)
    (explicit / "tasks.jsonl").write_text("mine\n")
    assert resolve(data_file, tmp_path / "mine").read_text() == "mine\n"
    monkeypatch.setenv("BEYONDPASS_DATA", str(tmp_path / "mine"))
    assert resolve(data_file).read_text() == "mine\n"


def test_failed_download_leaves_nothing_and_says_what_to_do(tmp_path, monkeypatch, file_server):
    monkeypatch.delenv("BEYONDPASS_DATA", raising=False)
    monkeypatch.delenv("BEYONDPASS_OFFLINE", raising=False)
    monkeypatch.setenv("BEYONDPASS_CACHE_DIR", str(tmp_path / "cache"))
    data_file = DataFile("bench/missing.jsonl", f"{file_server}/missing.jsonl")
    with pytest.raises(DataError, match="could not download .* pass --data-dir"):
        resolve(data_file)
    assert list((tmp_path / "cache" / "data" / "bench").iterdir()) == []


def test_offline_mode_never_downloads(tmp_path, monkeypatch, file_server):
    monkeypatch.setenv("BEYONDPASS_OFFLINE", "1")
    monkeypatch.setenv("BEYONDPASS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("BEYONDPASS_DATA", raising=False)
    with pytest.raises(DataError, match="downloads are off"):
        resolve(DataFile("bench/tasks.jsonl", f"{file_server}/tasks.jsonl"))
