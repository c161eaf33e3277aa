"""``beyondpass nofuneval score`` end to end on the published gpt-4 answers and on bad input."""

from __future__ import annotations

import json

import pytest

from nofuneval_data import nofuneval_dir, rows
from nofuneval_helpers import score_cli


def test_compat_scores_equal_reference_and_summary(run_cli, tmp_path):
    gens = nofuneval_dir() / "generations/latency/gpt-4/one_shot/generated_outputs.jsonl"
    out = tmp_path / "out"
    proc = score_cli(
        run_cli,
        tmp_path,
        "--subset",
        "latency",
        "--generations",
        gens,
        "--compat",
        "nofuneval",
        "--out",
        out,
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    refs = rows("generations/latency/gpt-4/one_shot/diffbleu_reference.jsonl")
    scored = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    assert [s["row"] for s in scored] == [r["row"] for r in refs]
    for s, r in zip(scored, refs, strict=True):
        assert s["diffbleu"] == pytest.approx(r["diffbleu"], abs=1e-6)
    assert summary["prompt"] == "one_shot" and summary["reading"] == "compat"
    mean = sum(r["diffbleu"] for r in refs) / len(refs)
    assert summary["diffbleu_score@1"] == pytest.approx(mean, abs=1e-9)
    followed = sum(r["template_followed"] for r in refs) / len(refs)
    assert summary["template_followed_rate"] == pytest.approx(followed)


def _compat_scores(run_cli, tmp_path, gens, *args):
    out = tmp_path / "out"
    proc = score_cli(
        run_cli, tmp_path, "--subset", "latency", "--generations", gens, "--compat", "nofuneval",
        "--out", out, "--json", *args,
    )  # fmt: skip
    return proc, out


def test_the_prompt_of_a_file_outside_a_prompt_folder_is_read_from_its_rows(run_cli, tmp_path):
    """A file of 1-shot answers named answers.jsonl: the rows echo the 1-shot prompt, so the
    compat scores are NoFunEval's own (read as Base, almost no row would agree)."""
    published = nofuneval_dir() / "generations/latency/gpt-4/one_shot/generated_outputs.jsonl"
    gens = tmp_path / "answers.jsonl"
    gens.write_bytes(published.read_bytes())
    proc, out = _compat_scores(run_cli, tmp_path, gens)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["prompt"] == "one_shot"
    refs = rows("generations/latency/gpt-4/one_shot/diffbleu_reference.jsonl")
    scored = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    for s, r in zip(scored, refs, strict=True):
        assert s["diffbleu"] == pytest.approx(r["diffbleu"], abs=1e-6)


def test_a_prompt_nothing_states_stops_the_compat_reading(run_cli, tmp_path):
    """Completions without the prompt echoed, in a folder named after no prompt: compat
    stops and names --prompt; with --prompt it reads them; the robust reading needs none."""
    from beyondpass.methods.nofuneval.extraction.readers import published_answer

    data = rows("latency.jsonl")
    published = rows("generations/latency/gpt-4/one_shot/generated_outputs.jsonl")
    lines = []
    for n in (0, 1):
        answer = published_answer(published[n]["generated_answers"])
        lines.append({"row": n, "generation": answer[len(data[n]["one_shot"]) :]})
    gens = tmp_path / "answers.jsonl"
    gens.write_text("".join(json.dumps(line) + "\n" for line in lines))
    proc, out = _compat_scores(run_cli, tmp_path, gens)
    assert proc.returncode == 2
    assert "pass --prompt" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()  # refused before a run was opened
    proc, _ = _compat_scores(run_cli, tmp_path, gens, "--prompt", "one_shot")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["prompt"] == "one_shot"
    robust = score_cli(run_cli, tmp_path, "--subset", "latency", "--generations", gens, "--json")
    assert robust.returncode == 0, robust.stderr
    assert json.loads(robust.stdout)["prompt"] is None


@pytest.mark.parametrize(
    ("folder", "args", "message"),
    [
        ("one_shot", (), "the folder name in"),  # a Base file filed under one_shot/
        ("mine", ("--prompt", "one_shot"), "--prompt says one_shot"),
        ("mine", ("--prompt", "oneshot"), "--prompt 'oneshot': choose base_prompt"),
    ],
)
def test_a_prompt_the_rows_contradict_is_refused(run_cli, tmp_path, folder, args, message):
    published = nofuneval_dir() / "generations/latency/gpt-4/base_prompt/generated_outputs.jsonl"
    gens = tmp_path / folder / "answers.jsonl"
    gens.parent.mkdir()
    gens.write_bytes(published.read_bytes())
    proc, out = _compat_scores(run_cli, tmp_path, gens, *args)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_beyondpass_lines_with_several_samples(run_cli, tmp_path):
    data = rows("security.jsonl")
    gens = tmp_path / "g.jsonl"
    lines = []
    for n in (0, 1):  # target, then source: score@1 = 0.5, score@2 = 1 on each row
        fence = "```" + data[n]["pl"].lower() + "\n"
        lines.append({"row": n, "generation": fence + data[n]["target_code"] + "```"})
        lines.append({"row": n, "generation": fence + data[n]["source_code"] + "```"})
    gens.write_text("".join(json.dumps(line) + "\n" for line in lines))
    proc = score_cli(
        run_cli,
        tmp_path,
        "--subset",
        "security",
        "--generations",
        gens,
        "--out",
        tmp_path / "o",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["samples"] == 4 and summary["rows_scored"] == 2
    assert summary["diffbleu_score@1"] == pytest.approx(0.5)
    assert summary["diffbleu_score@2"] == pytest.approx(1.0)


def test_classification_both_orderings(run_cli, tmp_path):
    data = rows("humanevalclassify.jsonl")
    lab = [(r["classification_left_label"], r["classification_right_label"]) for r in data[:3]]
    lines = [
        {"row": 0, "ordering": "left", "generation": f"Code-{lab[0][0]} is better."},
        {"row": 0, "ordering": "right", "generation": f"({lab[0][1]})"},
        {"row": 1, "ordering": "left", "generation": lab[1][0]},
        {"row": 1, "ordering": "right", "generation": lab[1][0]},  # same letter: wrong
        {"row": 2, "ordering": "left", "generation": "I cannot tell."},
    ]
    assert lab[1][0] != lab[1][1]
    gens = tmp_path / "c.jsonl"
    gens.write_text("".join(json.dumps(line) + "\n" for line in lines))
    proc = score_cli(
        run_cli,
        tmp_path,
        "--subset",
        "humanevalclassify",
        "--generations",
        gens,
        "--out",
        tmp_path / "o",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["examples"] == 3
    assert summary["accuracy"] == pytest.approx(1 / 3)
    assert summary["parse_rate"] == pytest.approx(4 / 6)  # row 2: one unparsed, one missing


@pytest.mark.parametrize(
    ("subset", "content", "message"),
    [
        ("nosuch", '{"row": 0, "generation": "x"}\n', "unknown subset 'nosuch'"),
        ("latency", "{not json\n", "invalid JSON"),
        ("latency", '{"row": 99, "generation": "x"}\n', "row 99 is not a row of"),
        ("latency", '{"row": 0}\n', 'expected "row" and "generation"'),
        ("humanevalclassify", '{"row": 0, "generation": "A"}\n', "ordering must be"),
    ],
)
def test_bad_input_is_one_line(run_cli, tmp_path, subset, content, message):
    gens = tmp_path / "g.jsonl"
    gens.write_text(content)
    proc = score_cli(run_cli, tmp_path, "--subset", subset, "--generations", gens)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_generations_of_another_subset_are_refused(run_cli, tmp_path):
    gens = nofuneval_dir() / "generations/latency/gpt-4/base_prompt/generated_outputs.jsonl"
    out = tmp_path / "o"
    out.mkdir()
    (out / "scores.jsonl").write_text("kept\n")
    proc = score_cli(run_cli, tmp_path, "--subset", "security", "--generations", gens, "--out", out)
    assert proc.returncode == 2
    assert "not for this subset" in proc.stderr and "Traceback" not in proc.stderr
    assert (out / "scores.jsonl").read_text() == "kept\n"  # nothing lost


def test_benchmarks_list_shows_the_subsets(run_cli, tmp_path):
    data = nofuneval_dir().parent
    proc = run_cli(["benchmarks", "list", "--data-dir", data, "--json"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    by_name = {r["name"]: r for r in json.loads(proc.stdout)}
    sizes = {
        "nofuneval-latency": 47,
        "nofuneval-resource_util": 51,
        "nofuneval-runtime_efficiency": 113,
        "nofuneval-security": 41,
        "nofuneval-classify": 164,
    }
    for name, size in sizes.items():
        assert by_name[name]["n_tasks"] == size, name
    assert "not public" in by_name["nofuneval-maintainability"]["unavailable"]
