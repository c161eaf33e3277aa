"""NoFunEval's report sections: Table 1 (min – max over prompts, each end marked with its
prompt, of DiffBLEU, or DiffBLEU x oracle for security) and Table 2 (classification), each
through a whole study over the local HTTP model and on hand-made rows."""

from __future__ import annotations

from beyondpass.methods.nofuneval.report import NoFunEditTable
from beyondpass.report.sections import ReportContext
from beyondpass.store.run_store import ResultRecord, Row, SampleRecord
from nofuneval_helpers import need_analysers, run_study


def _row(model, bench, cond, task, index, value, oracle=None):
    key = f"{model}{bench}{cond}{task}{index}"
    sample = SampleRecord(key, bench, task, model, cond, index, "", "", "", {})
    metrics = {"diffbleu": value}
    if oracle is not None:
        metrics.update(oracle_pass=oracle, diffbleu_x_oracle=value * oracle)
    return Row(sample, ResultRecord(key, "passed", True, metrics))


def test_cells_are_min_max_over_conditions(tmp_path):
    rows = [
        # base: task 1 has samples 0.2 and 0.4 (mean 0.3), task 2 has 0.5 -> 0.4
        _row("m_1", "nofuneval-latency", "base_prompt", "1", 0, 0.2),
        _row("m_1", "nofuneval-latency", "base_prompt", "1", 1, 0.4),
        _row("m_1", "nofuneval-latency", "base_prompt", "2", 0, 0.5),
        # one_shot: 0.1 and 0.3 -> 0.2
        _row("m_1", "nofuneval-latency", "one_shot", "1", 0, 0.1),
        _row("m_1", "nofuneval-latency", "one_shot", "2", 0, 0.3),
    ]
    out = NoFunEditTable().build(ReportContext({}, rows, 0, tmp_path))
    assert out is not None
    # the ends are marked with their prompt, as the seed's Table 1: one-shot low, base high
    assert "| m_1 | 0.200^1S – 0.400^B |" in out.markdown
    tex = "m\\_1 & 0.200\\textasciicircum{}1S -- 0.400\\textasciicircum{}B"
    assert tex in out.artifacts["nofuneval-table1.tex"]
    assert "<td>0.200^1S – 0.400^B</td>" in out.html


def test_a_condition_without_a_score_is_left_out_and_other_conditions_keep_their_name(tmp_path):
    from beyondpass.methods.nofuneval.edit.table1_cells import table1_cells

    scores = {
        ("m", "b", "base_prompt"): float("nan"),  # no score (e.g. no edit ran): not the low end
        ("m", "b", "one_shot"): 0.5,
        ("m", "b", "my-prompt"): 0.75,  # a study's own condition: shown by its name
        ("n", "c", "one_shot"): 0.25,
    }
    rows = table1_cells(scores, ["m", "n"], ["b", "c"], lambda v: f"{v:.2f}")
    assert rows == [["m", "0.50^1S – 0.75^my-prompt", "—"], ["n", "—", "0.25^1S – 0.25^1S"]]


def test_no_section_without_diffbleu(tmp_path):
    key = "k"
    sample = SampleRecord(key, "humaneval", "1", "m", "c", 0, "", "", "", {})
    rows = [Row(sample, ResultRecord(key, "passed", True, {"tests_passed": 3}))]
    assert NoFunEditTable().build(ReportContext({}, rows, 0, tmp_path)) is None


def test_model_names_are_escaped_in_html(tmp_path):
    rows = [_row("<b>x</b>", "nofuneval-security", "base_prompt", "0", 0, 1.0)]
    out = NoFunEditTable().build(ReportContext({}, rows, 0, tmp_path))
    assert "<b>x</b>" not in out.html and "&lt;b&gt;x&lt;/b&gt;" in out.html


def test_security_shows_diffbleu_x_oracle_latency_diffbleu(tmp_path):
    rows = [
        _row("m", "nofuneval-latency", "base_prompt", "1", 0, 0.4),
        _row("m", "nofuneval-latency", "one_shot", "1", 0, 0.2),
        # security: DiffBLEU 0.9 but the oracle fails -> 0; task 3 has no oracle (left out)
        _row("m", "nofuneval-security", "base_prompt", "1", 0, 0.9, oracle=0),
        _row("m", "nofuneval-security", "base_prompt", "2", 0, 0.5, oracle=1),
        _row("m", "nofuneval-security", "base_prompt", "3", 0, 1.0),
        _row("m", "nofuneval-security", "one_shot", "1", 0, 0.6, oracle=1),
        _row("m", "nofuneval-security", "one_shot", "2", 0, 0.2, oracle=1),
        _row("m", "nofuneval-security", "one_shot", "3", 0, 1.0),
    ]
    out = NoFunEditTable().build(ReportContext({}, rows, 0, tmp_path, {"plots": False}))
    assert out is not None
    assert (
        "| model | nofuneval-latency (DiffBLEU) | nofuneval-security (DiffBLEU x oracle) |"
        in out.markdown
    )
    # security: base (0 + 0.5) / 2 = 0.25, one_shot (0.6 + 0.2) / 2 = 0.4
    assert "| m | 0.200^1S – 0.400^B | 0.250^B – 0.400^1S |" in out.markdown
    assert "2 of 3 tasks with an oracle" in out.markdown
    # without oracle verdicts the security column says it shows DiffBLEU
    for r in rows:
        r.result.metrics.pop("diffbleu_x_oracle", None)
    out = NoFunEditTable().build(ReportContext({}, rows, 0, tmp_path, {"plots": False}))
    # DiffBLEU, all three tasks: base (0.9 + 0.5 + 1) / 3, one-shot (0.6 + 0.2 + 1) / 3
    assert "| m | 0.200^1S – 0.400^B | 0.600^1S – 0.800^B |" in out.markdown
    assert "nofuneval-security (DiffBLEU) |" in out.markdown
    assert "no oracle verdicts in this run" in out.markdown


def test_score_at_k_over_each_tasks_samples(tmp_path):
    """score@2,3 of a task's values (1, 0, 0) is 1 - C(2,2)/C(3,2) = 2/3 (brute force: of the
    three pairs, two contain the 1)."""
    from itertools import combinations

    values = {"1": [1.0, 0.0, 0.0], "2": [0.3, 0.6, 0.9]}
    rows = [
        _row("m", "nofuneval-latency", "base_prompt", t, i, v)
        for t, vs in values.items()
        for i, v in enumerate(vs)
    ]
    brute = [
        sum(max(pair) for pair in combinations(vs, 2)) / len(list(combinations(vs, 2)))
        for vs in values.values()
    ]
    want = sum(brute) / len(brute)
    ctx = ReportContext({}, rows, 0, tmp_path, {"plots": False, "nofuneval_k": 2})
    out = NoFunEditTable().build(ctx)
    assert f"| m | {want:.3f}^B – {want:.3f}^B |" in out.markdown
    assert "score@2,n" in out.markdown
    ctx = ReportContext({}, rows, 0, tmp_path, {"plots": False, "nofuneval_k": 4})
    out = NoFunEditTable().build(ctx)
    assert "| m | — |" in out.markdown and "fewer than 4 samples" in out.markdown


# -- Table 1 through a whole study over the local HTTP model ----------------------------------
#: security rows -> the oracle verdict of the row's own target_code, as measured on the
#: dataset (docs/nofuneval-oracles.md): the source fails on every judged row; row 11's target
#: is not valid Python and fails; row 0 (ArithmeticTainted) has no oracle
TARGET_PASSES = {8: True, 11: False, 21: True, 25: True}
NO_ORACLE_ROW = 0
#: (row, condition) -> what the model answers to its two samples: the target or the source
ANSWERS = {
    "base_prompt": {8: ("target", "source"), 11: ("target", "target"), 21: ("target", "target"),
                    25: ("source", "source"), 0: ("target", "target")},
    "one_shot": {8: ("target", "target"), 11: ("source", "target"), 21: ("source", "target"),
                 25: ("target", "source"), 0: ("source", "source")},
}  # fmt: skip


def test_security_study_over_http_gives_table1_diffbleu_x_oracle(tmp_path, data_dir, monkeypatch):
    import threading

    from beyondpass.report.render import render_report
    from beyondpass.store.run_store import RunStore
    from fake_endpoints import OPENAI_PATH, FakeEndpoint
    from nofuneval_data import rows as dataset_rows

    need_analysers("cppcheck", "gcc")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    data = dataset_rows("security.jsonl")
    script = {}  # prompt -> the two answers, in the order asked
    for cond, per_row in ANSWERS.items():
        for n, kinds in per_row.items():
            fence = "```" + data[n]["pl"].lower() + "\n{}\n```"
            script[data[n][cond]] = [fence.format(data[n][f"{k}_code"]) for k in kinds]
    asked: dict[str, int] = {}
    lock = threading.Lock()

    def answer(prompt: str) -> str:
        with lock:
            i = asked.get(prompt, 0)
            asked[prompt] = i + 1
        return script[prompt][i]

    # expected, from the answer plan and the dataset's documented behaviour alone: the target
    # scores DiffBLEU 1 and passes where its row's target passes; the source scores 0
    def value(n: int, kind: str) -> float:
        return 1.0 if kind == "target" and TARGET_PASSES[n] else 0.0

    score1, score2 = {}, {}
    for cond, per_row in ANSWERS.items():
        judged = [(n, kinds) for n, kinds in per_row.items() if n != NO_ORACLE_ROW]
        score1[cond] = sum(sum(value(n, k) for k in kinds) / 2 for n, kinds in judged) / 4
        score2[cond] = sum(max(value(n, k) for k in kinds) for n, kinds in judged) / 4
    marks = {"base_prompt": "B", "one_shot": "1S"}

    def cell(scores: dict[str, float]) -> str:  # the seed's "low^prompt – high^prompt"
        low, high = min(scores, key=scores.get), max(scores, key=scores.get)
        return f"{scores[low]:.3f}^{marks[low]} – {scores[high]:.3f}^{marks[high]}"

    cell1, cell2 = cell(score1), cell(score2)
    assert cell1 != cell2

    tasks = ", ".join(f'"{n}"' for n in ANSWERS["base_prompt"])
    with FakeEndpoint(responder=answer) as server:
        run_study(
            tmp_path,
            'name = "t1"\nseed = 0\n[[benchmarks]]\nname = "nofuneval-security"\n'
            f"tasks = [{tasks}]\n"
            '[prompts]\nplan = "nofuneval-edit"\nselect = ["base_prompt", "one_shot"]\n'
            f'[[models]]\nspec = "openai:chat-7b@{server.openai_base_url}"\nlabel = "chat-7b"\n'
            "[sampling]\nn = 2\ntemperature = 0.8\nmax_tokens = 64\n"
            '[evaluation]\nevaluators = ["nofuneval-oracle"]\n',
            data_dir,
        )
        assert {r.path for r in server.requests} == {OPENAI_PATH}
    assert sorted(asked.values()) == [2] * len(script)  # each prompt asked for both samples

    paths = render_report(tmp_path / "run", tmp_path / "report")
    markdown = paths.markdown.read_text()
    assert "| model | nofuneval-security (DiffBLEU x oracle) |" in markdown
    assert f"| chat-7b | {cell1} |" in markdown
    assert "nofuneval-security: DiffBLEU x oracle over the 4 of 5 tasks" in markdown
    tex = (tmp_path / "report" / "nofuneval-table1.tex").read_text()
    caret = "\\textasciicircum{}"
    latex = cell1.replace("^", caret).replace("–", "--")
    assert f"chat-7b & {latex} \\\\" in tex
    page = paths.html.read_text()
    assert f"<td>{cell1}</td>" in page and 'id="nf-t1"' in page
    # score@2,2: the better of each task's two samples
    with RunStore(tmp_path / "run", create=False) as store:
        meta, stored = store.all_meta(), list(store.rows())
    ctx = ReportContext(meta, stored, 0, tmp_path, {"plots": False, "nofuneval_k": 2})
    out = NoFunEditTable().build(ctx)
    assert out is not None and f"| chat-7b | {cell2} |" in out.markdown


# -- Table 2 through a whole study over the local HTTP model ----------------------------------
#: answer forms a model gives, with the choice each one names (None: nothing readable)
FORMS = (
    ("{c}", True),
    (" {c}\n\n### Instruction:", True),
    ("Code-{c} is better.", True),
    ("({c})", True),
    ("I cannot tell which one.", False),
    ("", False),
)
CLASSIFY_BENCHES = {  # benchmark -> (dataset file, rows asked)
    "nofuneval-classify-latency": ("latency.jsonl", 8),
    "nofuneval-classify-security": ("security.jsonl", 13),
    "nofuneval-classify": ("humanevalclassify.jsonl", 8),
}


def _scripted_answer(prompt: str) -> tuple[str, str | None]:
    """A fixed pseudo-random answer per prompt: (text, the choice it names or None)."""
    import hashlib

    digest = hashlib.sha256(prompt.encode()).digest()
    choice = "AB"[digest[0] % 2]
    form, readable = FORMS[digest[1] % len(FORMS)]
    return form.format(c=choice), choice if readable else None


def test_classification_study_over_http_gives_table2(tmp_path, data_dir, monkeypatch):
    import re

    from beyondpass.report.render import render_report
    from beyondpass.store.run_store import RunStore
    from fake_endpoints import COMPLETIONS_PATH, FakeEndpoint
    from nofuneval_data import rows as dataset_rows

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # what the test expects, from the dataset files and the scripted answers alone
    expected: dict[str, dict[str, bool]] = {}  # bench -> task -> both orderings right
    parsed = answers = 0
    prompts: dict[str, str] = {}
    for bench, (file, limit) in CLASSIFY_BENCHES.items():
        expected[bench] = {}
        for n, row in enumerate(dataset_rows(file)[:limit]):
            ok = []
            for side in ("left", "right"):
                prompt = row[f"classification_{side}_prompt"]
                _, choice = _scripted_answer(prompt)
                ok.append(choice == row[f"classification_{side}_label"])
                parsed += choice is not None
                answers += 1
                prompts[prompt] = side
            expected[bench][str(row.get("unique_id", n)) if "humaneval" in file else str(n)] = all(
                ok
            )
    assert 0 < sum(v for t in expected.values() for v in t.values()) < 29  # not trivial

    with FakeEndpoint(responder=lambda p: _scripted_answer(p)[0]) as server:
        benches = "".join(
            f'[[benchmarks]]\nname = "{b}"\nlimit = {limit}\n'
            for b, (_, limit) in CLASSIFY_BENCHES.items()
        )
        run_study(
            tmp_path,
            f'name = "t2"\n{benches}[prompts]\nplan = "nofuneval-classify"\n'
            f'[[models]]\nspec = "openai:base-7b@{server.openai_base_url}#api=completions"\n'
            'label = "base-7b"\n[sampling]\nmax_tokens = 8\n',
            data_dir,
        )
        sent_prompts = [r.body["prompt"] for r in server.requests]
        assert {r.path for r in server.requests} == {COMPLETIONS_PATH}
    assert sorted(sent_prompts) == sorted(prompts)  # each dataset prompt, verbatim, once

    with RunStore(tmp_path / "run", create=False) as store:
        stored = list(store.rows())
    for row in stored:  # provenance: how each sample was asked, and what was sent
        sent = row.sample.generation["sent"]
        assert sent["api"] == "completions"
        assert prompts[sent["prompt"]] == row.sample.condition.rsplit("_", 1)[1]
        assert sent["params"] == {"temperature": 0.0, "max_tokens": 8, "n": 1}

    paths = render_report(tmp_path / "run", tmp_path / "report")
    markdown = paths.markdown.read_text()
    line = next(ln for ln in markdown.splitlines() if ln.startswith("| base-7b |"))
    cells = [c.strip() for c in line.strip("|").split("|")][1:]
    header = next(
        ln for ln in markdown.splitlines() if ln.startswith("| model |") and "Latency" in ln
    )
    columns = [c.strip() for c in header.strip("|").split("|")][1:]
    assert columns == ["Latency", "Security", "NoFunClassify", "HumanEvalClassify"]

    def pct(values: list[bool]) -> str:
        return f"{100 * sum(values) / len(values):.1f}"

    lat = list(expected["nofuneval-classify-latency"].values())
    sec = list(expected["nofuneval-classify-security"].values())
    hum = list(expected["nofuneval-classify"].values())
    assert cells == [pct(lat), pct(sec), pct(lat + sec), pct(hum)]
    # the micro-average pools examples: it differs from the mean of the two columns here
    assert pct(lat + sec) != f"{50 * (sum(lat) / len(lat) + sum(sec) / len(sec)):.1f}"
    # the parse-rate table: same shape, answers from which a choice was read
    parse_line = [ln for ln in markdown.splitlines() if ln.startswith("| base-7b |")][1]
    parse_cells = [c.strip() for c in parse_line.strip("|").split("|")][1:]
    by_bench: dict[str, list[bool]] = {b: [] for b in CLASSIFY_BENCHES}
    for bench, (file, limit) in CLASSIFY_BENCHES.items():
        for row in dataset_rows(file)[:limit]:
            for side in ("left", "right"):
                by_bench[bench].append(
                    _scripted_answer(row[f"classification_{side}_prompt"])[1] is not None
                )
    nofun = by_bench["nofuneval-classify-latency"] + by_bench["nofuneval-classify-security"]
    assert parse_cells == [
        pct(by_bench["nofuneval-classify-latency"]),
        pct(by_bench["nofuneval-classify-security"]),
        pct(nofun),
        pct(by_bench["nofuneval-classify"]),
    ]
    assert sum(map(sum, by_bench.values())) == parsed < answers  # some answers unreadable
    tex = (tmp_path / "report" / "nofuneval-table2.tex").read_text()
    assert "base-7b & " + " & ".join(cells) + " \\\\" in tex
    page = paths.html.read_text()
    assert re.search(r'<svg class="plot" role="img" id="nf-t2"', page)
    assert f"<td>{cells[0]}</td>" in page


def test_pair_with_a_missing_ordering_is_left_out(tmp_path):
    from beyondpass.methods.nofuneval.report import NoFunClassifyTable

    def row(task, cond, correct, parsed=True):
        key = f"{task}{cond}"
        sample = SampleRecord(key, "nofuneval-classify", task, "m", cond, 0, "", "", "", {})
        metrics = {"choice_correct": correct, "choice_parsed": parsed}
        return Row(sample, ResultRecord(key, "passed" if correct else "failed", correct, metrics))

    rows = [
        row("1", "classification_left", True),
        row("1", "classification_right", True),
        row("2", "classification_left", True),
        row("2", "classification_right", False, parsed=False),
        row("3", "classification_left", True),  # right ordering never answered
    ]
    out = NoFunClassifyTable().build(ReportContext({}, rows, 0, tmp_path, {"plots": False}))
    assert out is not None
    assert "| m | 50.0 |" in out.markdown  # task 1 right, task 2 wrong, task 3 left out
    assert "| m | 80.0 |" in out.markdown  # 4 of 5 answers parsed
    assert out.notes == ["1 pair(s) with an ordering not answered are left out."]
    assert "<svg" not in out.html


def test_table1_has_a_plot_unless_plots_are_off(tmp_path):
    rows = [
        _row("m", "nofuneval-latency", "base_prompt", "1", 0, 0.2),
        _row("m", "nofuneval-latency", "one_shot", "1", 0, 0.6),
    ]
    with_plot = NoFunEditTable().build(ReportContext({}, rows, 0, tmp_path))
    assert with_plot is not None and 'id="nf-t1"' in with_plot.html
    without = NoFunEditTable().build(ReportContext({}, rows, 0, tmp_path, {"plots": False}))
    assert without is not None and "<svg" not in without.html


def test_classify_evaluator_reads_the_ordering_from_the_condition(data_dir):
    from beyondpass.benchmarks import load_benchmark
    from beyondpass.evaluators.base import Candidate
    from beyondpass.extraction.result import Extraction
    from beyondpass.methods.nofuneval.classify.evaluator import ClassifyEvaluator

    task = load_benchmark("nofuneval-classify-security", str(data_dir)).tasks["0"]
    left = task.metadata["classification_left_label"]
    right = task.metadata["classification_right_label"]
    other = {"A": "B", "B": "A"}
    none = Extraction("no_code", "", "", "none")
    cands = [
        Candidate(task, none, f"Code-{left}", "classification_left"),
        Candidate(task, none, f"({right})", "classification_right"),
        Candidate(task, none, other[right], "classification_right"),
        Candidate(task, none, "no idea", "classification_left"),
        Candidate(task, none, left, "base_prompt"),
    ]
    got = ClassifyEvaluator().evaluate(cands)
    assert [e.status for e in got] == ["correct", "correct", "wrong", "no_code", "error"]
    assert {e.passed for e in got} == {None}  # a label is no test run: no pass@1
    assert [e.metrics.get("choice_parsed") for e in got] == [True, True, True, False, None]
    assert "use plan nofuneval-classify" in got[4].details["error"]


def test_studies_expose_greedy_sampled_and_classify():
    from beyondpass.study.config import load_study

    spec = ["openai:m@http://127.0.0.1:9/v1#api=completions"]
    greedy = load_study("studies/nofuneval.toml", spec)
    sampled = load_study("studies/nofuneval-sampled.toml", spec)
    classify = load_study("studies/nofuneval-classify.toml", spec)
    assert (greedy.n, greedy.sampling.temperature, greedy.sampling.top_k) == (1, 0.0, None)
    s = sampled.sampling
    assert (sampled.n, s.temperature, s.top_p, s.top_k, s.seed) == (20, 0.8, 0.95, 50, None)
    assert [b.name for b in sampled.benchmarks] == [b.name for b in greedy.benchmarks]
    assert classify.plan.name == "nofuneval-classify"
    assert all(b.name.startswith("nofuneval-classify") for b in classify.benchmarks)
