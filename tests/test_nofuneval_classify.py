"""NoFunClassify answers: NoFunEval's own reading (compat) against the robust one, in
``nofuneval score`` and the ``nofuneval-classify`` evaluator; a plan made for the other kind
of NoFunEval benchmark is refused before any model is asked."""

from __future__ import annotations

import pytest

from nofuneval_data import nofuneval_dir


# -- a plan for the other kind of benchmark ------------------------------------------------
@pytest.mark.parametrize(
    ("plan", "bench", "field"),
    [
        ("nofuneval-classify", "nofuneval-latency", "classification_left_prompt"),
        ("nofuneval-edit", "nofuneval-classify-security", "base_prompt"),
    ],
)
def test_plan_for_the_other_benchmark_kind_is_one_line_and_asks_nothing(
    run_cli, tmp_path, plan, bench, field
):
    from fake_endpoints import FakeEndpoint

    data = nofuneval_dir().parent
    with FakeEndpoint() as server:
        study = tmp_path / "study.toml"
        study.write_text(
            f'name = "mismatch"\n[[benchmarks]]\nname = "{bench}"\nlimit = 2\n'
            f'[prompts]\nplan = "{plan}"\n'
            f'[[models]]\nspec = "openai:m@{server.openai_base_url}#api=completions"\n'
        )
        proc = run_cli(
            ["run", study, "--out", tmp_path / "run", "--no-cache", "--data-dir", data],
            cwd=tmp_path,
            unset=["OPENAI_API_KEY"],
        )
        asked = server.request_count
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"prompt plan '{plan}'" in lines[0] and repr(field) in lines[0]
    assert f"benchmark {bench} does not have" in lines[0]
    assert asked == 0  # refused before any request reached the model
    assert not (tmp_path / "run").exists()  # and before the run directory was made


def test_matching_plans_pass_the_field_check(data_dir):
    """The check refuses only the mismatch: each plan on its own kind of benchmark passes."""
    from beyondpass.benchmarks import load_benchmark
    from beyondpass.errors import ConfigError
    from beyondpass.methods.nofuneval.prompts import CLASSIFY_PLAN, EDIT_PLAN
    from beyondpass.prompts.plan import check_prompt_fields

    edit = list(load_benchmark("nofuneval-security", str(data_dir)).tasks.values())
    pairs = list(load_benchmark("nofuneval-classify-security", str(data_dir)).tasks.values())
    check_prompt_fields(EDIT_PLAN, {"nofuneval-security": edit})
    check_prompt_fields(CLASSIFY_PLAN, {"nofuneval-classify-security": pairs})
    humaneval = list(load_benchmark("nofuneval-classify", str(data_dir)).tasks.values())
    check_prompt_fields(CLASSIFY_PLAN, {"nofuneval-classify": humaneval})
    with pytest.raises(ConfigError, match="'classification_left_prompt'"):
        check_prompt_fields(CLASSIFY_PLAN, {"nofuneval-security": edit})
    with pytest.raises(ConfigError, match="benchmark nofuneval-classify does not have"):
        check_prompt_fields(EDIT_PLAN, {"nofuneval-classify": humaneval})
