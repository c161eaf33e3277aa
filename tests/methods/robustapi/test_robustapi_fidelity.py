"""RobustAPI fidelity: the original checker's visitor and parser, echoed prompts, overloads,
prose inside code, releases in other scopes, and a missing ``java`` extra.

Every snippet here is our own; each reading is tested in both directions (a snippet that
meets it and one that does not).
"""

from __future__ import annotations

import json

import pytest

from beyondpass.methods.robustapi.benchmark import load_robustapi
from beyondpass.methods.robustapi.checker import ApiMisuseChecker, load_ruleset
from beyondpass.methods.robustapi.extraction.java_code import strip_echoed_prompt
from beyondpass.methods.robustapi.extraction.java_syntax import parse_java_recovering, prose_line
from beyondpass.methods.robustapi.prompts import prompt_texts


@pytest.fixture(scope="module")
def checkers(data_dir):
    return {
        sem: ApiMisuseChecker(load_ruleset(data_dir=data_dir, semantics=sem), sem)
        for sem in ("correct", "original")
    }


def answer(code: str, api: str = "X") -> str:
    return f"<<<api>>>: {api}\n<<<code>>>:\n```java\n{code.strip()}\n```\n<<<explanation>>>: -"


def verdict(checker: ApiMisuseChecker, code: str, api: str) -> str:
    return checker.check(answer(code, api), api).verdict


def broken(checker: ApiMisuseChecker, code: str, api: str) -> set[str]:
    v = checker.check(answer(code, api), api)
    assert v.verdict in ("pass", "violation"), v.error
    return {x.api for x in v.violations}


# -- the original checker's visitor and parser ---------------------------------------------


def test_original_does_not_see_calls_in_loop_and_if_conditions(checkers):
    """APICallVisitor visits the bodies of if/while/for, never their conditions."""
    declared = "BufferedReader br = new BufferedReader(new FileReader(f));\nString line;\n"
    in_condition = declared + "while ((line = br.readLine()) != null) {\n    use(line);\n}"
    in_body = declared + "while (true) {\n    line = br.readLine();\n}"
    in_if = declared + "if (br.readLine() != null) {\n    use(1);\n}"
    assert verdict(checkers["original"], in_condition, "BufferedReader.readLine") == "pass"
    assert verdict(checkers["original"], in_if, "BufferedReader.readLine") == "pass"
    assert verdict(checkers["original"], in_body, "BufferedReader.readLine") == "violation"


def test_original_visitor_failures_are_parse_failures(checkers):
    """A for loop whose initialiser is an assignment makes the visitor's cast throw."""
    assigned = (
        "List<String> l = get();\nint i;\nfor (i = 0; i < l.size(); i++) {\n    use(l.get(i));\n}"
    )
    declared = (
        "List<String> l = get();\nfor (int i = 0; i < l.size(); i++) {\n    use(l.get(i));\n}"
    )
    assert verdict(checkers["original"], assigned, "List.get") == "unparsable"
    assert verdict(checkers["original"], declared, "List.get") == "violation"
    # our reading has no such failure
    assert verdict(checkers["correct"], assigned, "List.get") != "unparsable"


def test_original_parser_rejects_what_jdt_rejects(checkers):
    """Imports among statements and escapes Java 8 lacks are JDT problems; tree-sitter reads
    both, so beyondpass's own reading keeps them."""
    imports = 'import java.util.*;\n\nMap<String, String> m = new HashMap<>();\nuse(m.get("k"));'
    escape = 'File f = new File("\\\\.\\pipe");\nf.createNewFile();'
    plain = 'File f = new File("\\\\\\\\.\\\\pipe");\nf.createNewFile();'
    assert verdict(checkers["original"], imports, "Map.get") == "unparsable"
    assert verdict(checkers["original"], escape, "File.createNewFile") == "unparsable"
    assert verdict(checkers["original"], plain, "File.createNewFile") == "violation"
    assert verdict(checkers["correct"], imports, "Map.get") == "violation"
    whole_file = "import java.util.*;\nclass A {\n  void f(Map<String, String> m) { m.get(k); }\n}"
    assert verdict(checkers["original"], whole_file, "Map.get") == "violation"


# -- echoed prompts -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def recorded(data_dir):
    path = data_dir / "recorded" / "robustapi-gpt-4-0613-zero_shot.jsonl"
    return [json.loads(x) for x in path.open(encoding="utf-8")]


@pytest.fixture(scope="module")
def bench(data_dir):
    return load_robustapi(data_dir)


@pytest.mark.parametrize("semantics", ["correct", "original"])
def test_echoed_prompt_is_cut_in_both_semantics(checkers, recorded, bench, semantics):
    """A completion model repeats the real prompt, then answers (a recorded gpt-4 answer)."""
    checker = checkers[semantics]
    rows = recorded[::60]  # 21 answers across the APIs
    outcomes = set()
    for row in rows:
        prompts = prompt_texts(bench.tasks[str(row["id"])])
        plain = checker.check(row["response"], row["api"], prompts)
        for prompt in prompts:
            echoed = prompt + row["response"]
            got = checker.check(echoed, row["api"], prompts)
            shift = prompt.count("\n")
            assert got.verdict == plain.verdict, row["id"]
            assert [v.line - shift for v in got.violations] == [v.line for v in plain.violations]
            assert any("repeats the prompt" in n for n in got.notes)
            outcomes.add(got.verdict)
            # without the prompt texts the echoed instructions are read as the answer
            blind = checker.check(echoed, row["api"])
            if semantics == "original":
                assert blind.verdict == "unparsable"  # the $CODE placeholder
    assert {"pass", "violation"} <= outcomes


def test_only_a_leading_prompt_is_cut(bench, recorded):
    row = recorded[0]
    prompts = prompt_texts(bench.tasks[str(row["id"])])
    quoted = row["response"] + "\n" + prompts[0]
    assert strip_echoed_prompt(quoted, prompts) == (quoted, "")
    other = prompt_texts(bench.tasks[str(recorded[1]["id"])])  # another question's prompt
    assert strip_echoed_prompt(other[0] + row["response"], prompts)[1] == ""
    # whitespace differences in the echo do not matter
    loose = prompts[0].replace("\n", "\n\n ") + row["response"]
    cut, note = strip_echoed_prompt(loose, prompts)
    assert note and cut.strip() == row["response"].strip()


# -- overloads ------------------------------------------------------------------------------


def test_getbytes_without_a_charset_breaks_its_rule(checkers):
    c = checkers["correct"]
    api = "String.getBytes"
    assert broken(c, 'String s = "a";\nbyte[] b = s.getBytes();', api) == {api}
    assert broken(c, 'String s = "a";\nbyte[] b = s.getBytes(42);', api) == {api}  # known int
    assert broken(c, 'String s = "a";\nbyte[] b = s.getBytes("UTF-8");', api) == set()
    # an argument of unknown type is assumed to fit; getBytes(Charset) is equivalent
    assert broken(c, 'String s = "a";\nbyte[] b = s.getBytes(name);', api) == set()
    charset = 'String s = "a";\nCharset cs = StandardCharsets.UTF_8;\nbyte[] b = s.getBytes(cs);'
    assert broken(c, charset, api) == set()


def test_other_overloads_share_a_rules_obligation(checkers):
    """read(byte[]) throws IOException as read() does: the try rule applies to it."""
    c = checkers["correct"]
    api = "InputStream.read"
    bare = "void f(InputStream in) {\n    byte[] b = new byte[8];\n    in.read(b);\n}"
    caught = (
        "void f(InputStream in) {\n    byte[] b = new byte[8];\n    try {\n        in.read(b);\n"
        "    } catch (IOException e) {\n        log(e);\n    }\n}"
    )
    assert broken(c, bare, api) == {api}
    assert broken(c, caught, api) == set()


def test_an_overload_without_the_obligation_is_not_covered(checkers):
    """``new SimpleDateFormat()`` has no pattern to reject: the try rule is not about it."""
    c = checkers["correct"]
    api = "SimpleDateFormat.SimpleDateFormat"
    assert broken(c, "SimpleDateFormat f = new SimpleDateFormat();", api) == set()
    assert broken(c, 'SimpleDateFormat f = new SimpleDateFormat("yyyy");', api) == {api}


# -- prose inside the code section ----------------------------------------------------------

PROSE_ANSWER = """<<<api>>>: Map.get
<<<code>>>:
```java
Map<String, Integer> m = new HashMap<>();
2. Then read the value and check it for null before using it
Integer v = m.get("k");
{check}
```
<<<explanation>>>: -"""


def test_prose_lines_in_code_are_dropped_and_named(checkers):
    c = checkers["correct"]
    checked = c.check(PROSE_ANSWER.replace("{check}", "if (v != null) { use(v); }"), "Map.get")
    assert checked.verdict == "pass"
    assert any("line 5: dropped a prose line" in n and "2. Then read" in n for n in checked.notes)
    unchecked = c.check(PROSE_ANSWER.replace("{check}", "use(v);"), "Map.get")
    assert unchecked.verdict == "violation"
    assert [v.line for v in unchecked.violations] == [6]  # answer lines survive the drop


def test_a_sentence_read_as_declarations_is_dropped():
    """tree-sitter reads "Now we print the string" as declarations missing their ``;``."""
    code = (
        "Iterator<String> it = l.iterator();\nwhile (it.hasNext()) {\n    String s = it.next();\n"
        "    Now we print the string to the console\n    System.out.println(s);\n}"
    )
    recovered = parse_java_recovering(code)
    assert recovered.parsed.ok
    assert recovered.dropped == ((4, "Now we print the string to the console"),)
    # a statement missing its ";" is code, not prose: it stays an error
    missing = "Set<String> set = get();\nString o = set.iterator().next();\nset.remove(o)\nuse(o);"
    assert not parse_java_recovering(missing).parsed.ok


def test_only_prose_is_dropped_and_only_when_the_rest_parses():
    code = "int x = 1;\nHere, in the onCheckedChanged method, we call setChecked() again.\nx++;"
    recovered = parse_java_recovering(code)
    assert recovered.parsed.ok
    assert recovered.dropped == ((2, code.split("\n")[1]),)
    # a real syntax error with a prose line elsewhere stays an error, nothing dropped
    broken_code = "int x = ;\nHere, in the onCheckedChanged method, we call setChecked() again."
    assert not parse_java_recovering(broken_code).parsed.ok
    assert parse_java_recovering(broken_code).dropped == ()
    assert prose_line("1. Implement the interface in your activity")
    code_lines = ("int x = compute(a, b);", "foo(bar, baz,", "return a && b", "set.remove(obj)")
    for code_line in code_lines:
        assert not prose_line(code_line)


# -- releases in other scopes ---------------------------------------------------------------

QUERY = 'db.query("t", null, null, null, null, null, null)'
RELEASE = "SQLiteDatabase.query"


@pytest.mark.parametrize(
    ("body", "released"),
    [
        # later in the method on every path
        (f"Cursor c = {QUERY};\nuse(c);\nc.close();", True),
        # only when a branch is taken: a leak on the other path
        (f"Cursor c = {QUERY};\nif (c.moveToFirst()) {{\n    use(c);\n    c.close();\n}}", False),
        # both branches release
        (
            f"Cursor c = {QUERY};\nif (c.moveToFirst()) {{\n    use(c);\n    c.close();\n}}"
            " else {\n    c.close();\n}",
            True,
        ),
        # a null test: on the other path there is nothing to release
        (f"Cursor c = {QUERY};\nuse(c);\nif (c != null) {{\n    c.close();\n}}", True),
        # only in a catch: the normal path leaks
        (
            f"Cursor c = {QUERY};\ntry {{\n    use(c);\n}} catch (Exception e) {{\n"
            "    c.close();\n}",
            False,
        ),
        # in a finally of a try around the call
        (f"Cursor c = null;\ntry {{\n    c = {QUERY};\n}} finally {{\n    c.close();\n}}", True),
        # handed to a helper of the snippet that closes its parameter
        (f"Cursor c = {QUERY};\ndone(c);\n}}\nvoid done(Cursor x) {{\n    x.close();", True),
        # handed to a helper that does not
        (f"Cursor c = {QUERY};\nshow(c);\n}}\nvoid show(Cursor x) {{\n    use(x);", False),
        # a known closing helper
        (f"Cursor c = {QUERY};\nuse(c);\nIOUtils.closeQuietly(c);", True),
    ],
)
def test_release_rule(checkers, body, released):
    code = f"void load(SQLiteDatabase db) {{\n{body}\n}}"
    assert (broken(checkers["correct"], code, RELEASE) == set()) is released


def test_field_released_in_another_method(checkers):
    """A field recycled in onDestroy() is released: the framework calls both methods."""
    template = """class V extends Activity {{
    TypedArray a;
    void onCreate(Bundle b) {{
        a = obtainStyledAttributes(attrs, R.styleable.V);
        String s = a.getString(0);
        if (s != null) {{ use(s); }}
    }}
    void onDestroy() {{
        {release}
    }}
}}"""
    api = "TypedArray.getString"
    assert broken(checkers["correct"], template.format(release="a.recycle();"), api) == set()
    assert broken(checkers["correct"], template.format(release="log();"), api) == {api}


# -- the java extra -------------------------------------------------------------------------


def test_check_without_the_java_extra_fails_in_one_line(run_cli, tmp_path, data_dir):
    """An uninstalled extra, for real: a path entry placed first holds packages named like
    the extra's modules whose import raises ModuleNotFoundError, exactly what Python raises
    when a package is not installed (the venv has them, so they cannot simply be absent)."""
    blocker = tmp_path / "blocked"
    for module in ("lark", "tree_sitter", "tree_sitter_java"):
        (blocker / module).mkdir(parents=True)
        (blocker / module / "__init__.py").write_text(
            f"raise ModuleNotFoundError(\"No module named '{module}'\", name='{module}')\n"
        )
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"id": 0, "response": answer("x();")}) + "\n")
    for module in ("lark", "tree_sitter"):
        # block one module at a time: each missing piece is reported the same way
        only = tmp_path / f"only-{module}"
        only.mkdir()
        (only / module).symlink_to(blocker / module)
        proc = run_cli(
            ["robustapi", "check", "--answers", answers, "--data-dir", data_dir],
            cwd=tmp_path,
            pythonpath_first=[only],
        )
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "pip install 'beyondpass[java]'" in lines[0], proc.stderr
        assert module in lines[0] and "Traceback" not in proc.stderr
        assert not (tmp_path / "beyondpass-robustapi").exists()
        rules = run_cli(
            ["robustapi", "rules", "--data-dir", data_dir],
            cwd=tmp_path,
            pythonpath_first=[only],
        )
        assert rules.returncode == 2 and rules.stderr.count("\n") == 1, rules.stderr
        assert "pip install 'beyondpass[java]'" in rules.stderr
