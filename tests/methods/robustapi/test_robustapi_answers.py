"""Reading answers: the <<<code>>> format, fences, prose, several blocks, no code; and the
original evaluation script's reading, quirks included."""

from __future__ import annotations

from beyondpass.benchmarks.task import Task
from beyondpass.extraction import extract
from beyondpass.methods.robustapi.extraction.java_code import (
    ELISION_NAME,
    answer_blocks,
    original_code,
)

TASK = Task("robustapi", "1", "java", "q", None, "", ())


def texts(answer: str) -> list[str]:
    return [b.text.strip() for b in answer_blocks(answer).blocks]


def test_fenced_code_after_marker_up_to_next_marker():
    answer = (
        "<<<api>>>: Map.get\n<<<code>>>: \n```java\nInteger v = m.get(k);\n```\n"
        "<<<explanation>>>: ```java\nnotCode();\n```"
    )
    found = answer_blocks(answer)
    assert texts(answer) == ["Integer v = m.get(k);"]
    assert found.blocks[0].line == 4 and found.format_followed


def test_unfenced_code_and_chatty_lines():
    answer = (
        "<<<api>>>: Iterator.next\n<<<code>>>: Here is how you can do it:\n"
        "Iterator<String> it = list.iterator();\nwhile (it.hasNext()) {\n  it.next();\n}\n"
        "<<<explanation>>>: hasNext() guards next()."
    )
    assert texts(answer) == [
        "Iterator<String> it = list.iterator();\nwhile (it.hasNext()) {\n  it.next();\n}"
    ]
    assert answer_blocks(answer).blocks[0].line == 3


def test_several_blocks_and_other_languages():
    answer = (
        "<<<code>>>:\nFor the server:\n```java\nout.write(b);\n```\nLayout:\n```xml\n<View/>\n```\n"
        "For the client:\n```\nin.read(b);\n```\n<<<explanation>>>: x"
    )
    found = answer_blocks(answer)
    assert texts(answer) == ["out.write(b);", "in.read(b);"]
    assert any("skipped a xml block" in n for n in found.notes)


def test_unfenced_file_names_separate_blocks_and_unclosed_fence_reopened():
    answer = "<<<code>>>:\nA.java\nclass A {}\n\nB.java\nclass B {}\n<<<explanation>>>: -"
    assert texts(answer) == ["class A {}", "class B {}"]
    answer = "<<<code>>>:\n```java\nclass A {}\n\nB.java\n```java\nclass B {}\n```"
    assert texts(answer) == ["class A {}", "class B {}"]


def test_answer_without_the_format():
    assert texts("You can write:\n```java\nx.close();\n```\nThat's it.") == ["x.close();"]
    assert texts("The API you mention does not apply to your code. Feel free to ask!") == []
    assert texts("<<<api>>>: Map.get\n<<<code>>>: \n<<<explanation>>>: no code needed") == []


def test_elisions_become_placeholders():
    answer = (
        "<<<code>>>:\n```java\nList<String> l = ... // your list\nfoo(...);\n...\n"
        "void f(String... args) {}\n```"
    )
    (block,) = (texts(answer),)
    code = block[0]
    assert f"List<String> l = {ELISION_NAME}; // your list" in code
    assert f"foo({ELISION_NAME});" in code
    assert "String... args" in code


def test_extract_sets_status():
    ok = extract("<<<code>>>: ```java\nint x = 1;\n```", TASK)
    assert ok.status == "ok" and ok.code == "int x = 1;"
    broken = extract("<<<code>>>: ```java\nint x = ;\n```", TASK)
    assert broken.status == "syntax_error" and "line 1" in broken.error
    assert extract("No code here, sorry.", TASK).status == "no_code"
    lone = extract("<<<code>>>: players.get(i)\n<<<explanation>>>: -", TASK)
    assert lone.status == "ok"


def test_original_reading_reproduces_the_script():
    # no api marker: nothing
    assert original_code("<<<code>>>: x();") == ""
    # first block only, fence language stripped
    two = "<<<api>>>: A\n<<<code>>>: ```java\na();\n```\n```java\nb();\n```"
    assert original_code(two).strip() == "a();"
    # ":\n" keeps the text between the first and second ":\n" (switch cases lose the rest)
    cased = (
        "<<<api>>>: A\n<<<code>>>: Here:\nswitch (x) {\ncase 1:\n  a();\n}\n<<<explanation>>>: e"
    )
    assert original_code(cased) == "switch (x) {\ncase 1}"
    # unmatched braces are balanced
    assert original_code("<<<api>>>: A\n<<<code>>>: a(); }\nb() {") == "{a(); }\nb() {}"
