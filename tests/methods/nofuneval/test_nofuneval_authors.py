"""NoFunEval compat equals the authors' own code, row by row, on published answers.

The fixture (tests/data/nofuneval_authors_rows.json.gz) is a seeded selection of rows of
the authors' published 1-sample generation files — every model and prompt, a row of each
subset in turn, rows their reading could not take from the template (echoed prompts,
chain-of-thought and one-shot answers without a second ``Response:``), one such row per
language — with what their ``post_process_generations`` and ``diff_bleu`` returned when
run once on it (commit and environment recorded in the fixture;
``benchmarks/bench_nofuneval_compat.py --write-fixture`` selects the rows).
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from beyondpass.methods.nofuneval.edit.diffbleu import DiffBleu
from beyondpass.methods.nofuneval.extraction.parsable import GRAMMARS, parser_for
from beyondpass.methods.nofuneval.extraction.readers import compat_extract
from beyondpass.methods.nofuneval.table1.render import PAPER, PAPER_NAMES

#: the paper's marks of the four prompts (Singhal et al., Table 1)
MARKS = {"base_prompt": "B", "one_shot": "1S", "chain_of_thought": "CoT", "coding_concepts": "CoCo"}

FIXTURE = Path(__file__).parents[2] / "data" / "nofuneval_authors_rows.json.gz"
PROMPTS = ("base_prompt", "one_shot", "chain_of_thought", "coding_concepts")


@pytest.fixture(scope="module")
def fixture() -> dict:
    return json.loads(gzip.decompress(FIXTURE.read_bytes()))


def _id(row: dict) -> str:
    return f"{row['subset']}/{row['model']}/{row['prompt']}/{row['row']}"


def test_fixture_covers_every_model_prompt_subset_and_fallback(fixture):
    rows = fixture["rows"]
    assert fixture["environment"]["nofuneval_commit"].startswith("c82a903")
    pairs = Counter((r["model"], r["prompt"]) for r in rows)
    assert len({m for m, _ in pairs}) == 6 and all(
        pairs[(m, p)] >= 1 for m, _ in pairs for p in PROMPTS
    )
    assert {r["subset"] for r in rows} == {
        "latency", "resource_util", "runtime_efficiency", "security", "maintainability"
    }  # fmt: skip
    fallback = [r for r in rows if not r["authors"]["template_followed"]]
    assert {r["prompt"] for r in fallback} >= {"one_shot", "chain_of_thought"}
    # an echoed answer whose second Response: is missing takes their fallback paths
    assert any(
        r["prompt"] in ("one_shot", "chain_of_thought") and r["answer"].count("Response:") < 2
        for r in fallback
    )


def test_every_grammar_of_the_compat_reading_is_installed():
    # without one, compat falls back to the robust reader and differs from the authors'
    assert [lang for lang in GRAMMARS if parser_for(lang) is None] == []


def test_compat_reading_and_diffbleu_equal_the_authors_on_every_fixture_row(fixture):
    differ = []
    with DiffBleu() as scorer:
        for r in fixture["rows"]:
            theirs = r["authors"]
            edited = compat_extract(r["answer"], r["prompt"], r["pl"])
            score = scorer.score(r["source_code"], r["target_code"], edited.code, r["pl"])
            if (
                edited.code != theirs["code"]
                or edited.template_followed != bool(theirs["template_followed"])
                or abs(score - theirs["diffbleu"]) > 1e-9
            ):
                differ.append((_id(r), score, theirs["diffbleu"]))
    assert differ == []


def _checkout(root: Path, rows: list[dict]) -> None:
    """A NoFunEval checkout holding ``rows`` as published files (in fixture order), and
    the authors' values for them beside it (``root/reference``)."""
    files: dict[tuple[str, str, str], list[dict]] = {}
    for r in rows:
        files.setdefault((r["subset"], r["model"], r["prompt"]), []).append(r)
    for (subset, model, prompt), group in files.items():
        folder = root / "generations" / "edit" / subset / model / prompt / "1_samples"
        folder.mkdir(parents=True)
        lines = [
            {"generated_answers": [r["answer"]], "source_code": r["source_code"],
             "target_code": r["target_code"], "pl": r["pl"]}
            for r in group
        ]  # fmt: skip
        (folder / "generated_outputs.jsonl").write_text(
            "".join(json.dumps(x) + "\n" for x in lines)
        )
        ref = root / "reference" / subset / model / f"{prompt}.jsonl"
        ref.parent.mkdir(parents=True, exist_ok=True)
        ref.write_text(
            "".join(json.dumps({"row": i, **r["authors"]}) + "\n" for i, r in enumerate(group))
        )
    lfs = root / "generations/edit/latency/gpt-4/base_prompt/20_samples"
    lfs.mkdir(parents=True)
    (lfs / "generated_outputs.jsonl").write_text("version https://git-lfs.github.com/spec/v1\n")


def test_table1_command_scores_a_checkout_and_agrees_with_the_authors(fixture, run_cli, tmp_path):
    # maintainability: no dataset file, so nothing is looked up or downloaded
    rows = [r for r in fixture["rows"] if r["subset"] == "maintainability"]
    _checkout(tmp_path / "repo", rows)
    out = tmp_path / "out"
    proc = run_cli(
        ["nofuneval", "table1", "--published", tmp_path / "repo",
         "--reference", tmp_path / "repo" / "reference", "--out", out],
        cwd=tmp_path, unset=["BEYONDPASS_DATA"],
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    table = (out / "table1.md").read_text()
    summary = json.loads((out / "summary.json").read_text())
    assert len(summary) == len({(r["subset"], r["model"], r["prompt"]) for r in rows})
    for key, s in summary.items():
        subset, model, prompt, _ = key.split("/")
        theirs = [
            r["authors"]["diffbleu"]
            for r in rows
            if (r["subset"], r["model"], r["prompt"]) == (subset, model, prompt)
        ]
        assert s["agreement"]["equal"] == s["rows"] == len(theirs)
        assert s["diffbleu_compat"] == pytest.approx(sum(theirs) / len(theirs), abs=1e-9)
        name, short = PAPER_NAMES[model], MARKS[prompt]
        line = next(x for x in table.splitlines() if x.startswith(f"| {name} | {short} |"))
        assert f"{len(theirs)}/{len(theirs)}" in line and "rows" not in line
    for model in {r["model"] for r in rows}:  # the paper's cell beside each model's
        lo, lo_p, hi, hi_p = PAPER["maintainability"][model]
        assert f"| {PAPER_NAMES[model]} |" in table and f"{lo}^{lo_p} – {hi}^{hi_p}" in table
    # Table 1 in the paper's layout: per model, the lowest and highest of the authors' mean
    # DiffBLEU over the prompts, each marked with its prompt
    grid = table.split("## ", 2)[1]
    for model in {r["model"] for r in rows}:
        means = {}
        for prompt in MARKS:
            theirs = [
                r["authors"]["diffbleu"]
                for r in rows
                if (r["model"], r["prompt"]) == (model, prompt)
            ]
            if theirs:
                means[prompt] = 100 * sum(theirs) / len(theirs)
        low, high = min(means, key=means.get), max(means, key=means.get)
        cell = f"{means[low]:.1f}^{MARKS[low]} – {means[high]:.1f}^{MARKS[high]}"
        assert f"| {PAPER_NAMES[model]} | {cell} |" in grid
    # the 20-sample file of this checkout is a Git LFS pointer: named, not scored
    assert "latency/gpt-4/base_prompt/20" not in summary
    # the agreement is an export of the compat runs; every file is a run per reading
    agreement = json.loads((out / "agreement.json").read_text())
    assert agreement == {key: s["agreement"] for key, s in summary.items()}
    for s in summary.values():
        assert sorted(s["runs"]) == ["compat", "default"]
        for folder in s["runs"].values():
            results = (Path(folder) / "results.jsonl").read_text().splitlines()
            assert len(results) == s["rows"]
    again = run_cli(
        ["nofuneval", "table1", "--published", tmp_path / "repo", "--out", out],
        cwd=tmp_path, unset=["BEYONDPASS_DATA"],
    )  # fmt: skip
    assert again.returncode == 0, again.stderr  # complete runs are read back
    tables = (out / "table1.md").read_text().split("## Agreement")[0]
    assert tables.rstrip() == table.split("## Agreement")[0].rstrip()


def test_table1_command_bad_input_is_one_line(run_cli, tmp_path):
    for args, message in (
        (["--published", tmp_path / "nothing"], "not a NoFunEval checkout"),
        ([], "name a checkout of microsoft/NoFunEval"),
    ):
        proc = run_cli(
            ["nofuneval", "table1", *args], cwd=tmp_path, unset=["BEYONDPASS_NOFUNEVAL_REPO"]
        )
        assert proc.returncode == 2 and message in proc.stderr
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_default_reading_of_a_published_answer_skips_the_echoed_example():
    from beyondpass.methods.nofuneval.extraction.echo import unknown_echo
    from beyondpass.methods.nofuneval.extraction.readers import robust_extract

    source = "import math\nimport os\nprint(os.sep)\n"
    prompt = (
        "Below is an instruction that describes a task.\n\n### Instruction:\nRewrite it.\n"
        "```python\nimport math\nprint('Hi')\n```\n\n### Thought:\nmath is unused.\n\n"
        '### Response:\n```python\nprint("Hi")\n```\n\n### Instruction:\nRewrite it.\n'
        f"```python\n{source}```\n\n### Thought:\n"
    )
    answer = prompt + "math is unused, so:\n```python\nimport os\nprint(os.sep)\n```"
    assert unknown_echo(answer, source) == prompt.rstrip("\n")
    read = robust_extract(answer, (unknown_echo(answer, source),), "python")
    assert read.code == "import os\nprint(os.sep)\n" and read.template_followed
    # without it, the example's response is taken for the answer's
    assert robust_extract(answer, (), "python").code == 'print("Hi")\n'
    assert unknown_echo("no echo here", source) == ""


def test_a_published_file_is_a_benchmark_of_its_own_rows(tmp_path):
    """``nofuneval-published:PATH``: the rows of a file whose subset has no dataset file
    here (maintainability), read from the file itself; a file outside the authors' tree
    or a line without its row's fields is one line naming it."""
    from beyondpass.benchmarks import load_benchmark
    from beyondpass.errors import DataError
    from beyondpass.methods.nofuneval.files.generations import model_of

    folder = tmp_path / "generations/edit/maintainability/m-1/one_shot/1_samples"
    folder.mkdir(parents=True)
    path = folder / "generated_outputs.jsonl"
    rows = [{"generated_answers": [f"a{i}"], "source_code": f"x = {i}\n",
             "target_code": f"y = {i}\n", "pl": "Python", "codeql_check": "q.ql"}
            for i in range(2)]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    bench = load_benchmark(f"nofuneval-published:{path}")
    assert bench.name == f"nofuneval-published:{path}" and len(bench) == 2
    for i, task in enumerate(bench.tasks.values()):
        meta = task.metadata
        assert (task.task_id, meta["row"], meta["source_code"]) == (str(i), i, f"x = {i}\n")
        assert (meta["subset"], meta["codeql_check"], task.language) == (
            "maintainability", "q.ql", "python")  # fmt: skip
        assert task.tests == () and meta["prompt_fields"] == {}
    assert model_of(path) == "m-1"
    elsewhere = tmp_path / "gens.jsonl"
    elsewhere.write_text(path.read_text())
    with pytest.raises(DataError, match="not in NoFunEval's generations tree"):
        load_benchmark(f"nofuneval-published:{elsewhere}")
    path.write_text(json.dumps({"generated_answers": ["a"], "source_code": "x"}) + "\n")
    with pytest.raises(DataError, match=r"generated_outputs.jsonl:1: .* lacks"):
        load_benchmark(f"nofuneval-published:{path}")
