"""Which open-analyser rules stand in for each CodeQL query NoFunEval names (``codeql_check``).

The key is the query's file name without ``.ql`` (as NoFunEval's harness keys it). Every
entry says how faithful the stand-in is; the full table with reasons is
docs/nofuneval-oracles.md. A query absent from :data:`STAND_INS` has no oracle — never a
pass. ``cppcheck`` ids prefixed ``bp`` come from beyondpass's local rule file
(``data/cppcheck-oracle-rules.xml``); the others are cppcheck's, bandit's or pylint's own.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StandIn:
    analyser: str  # "bandit", "cppcheck" or "pylint"
    rules: tuple[str, ...]
    fidelity: str  # "close", "partial" or "weak"
    note: str


def query_name(codeql_check: str) -> str:
    """``.../CWE-089/SqlInjection.ql`` -> ``SqlInjection`` (shell escapes dropped)."""
    base = codeql_check.replace("\\ ", " ").rstrip("/").rsplit("/", 1)[-1]
    return base[: -len(".ql")] if base.endswith(".ql") else base


_BOUNDS = ("arrayIndexOutOfBounds", "arrayIndexOutOfBoundsCond", "negativeIndex")

#: CodeQL query -> stand-in. Security: every query of security.jsonl that has one.
SECURITY: dict[str, StandIn] = {
    "SqlInjection": StandIn(
        "bandit",
        ("B608",),
        "partial",
        "SQL built by string formatting/concatenation; no taint tracking from the request",
    ),
    "Jinja2WithoutEscaping": StandIn(
        "bandit", ("B701",), "close", "jinja2 Environment without autoescape"
    ),
    "WeakFilePermissions": StandIn("bandit", ("B103",), "close", "os.chmod with a permissive mode"),
    "CommandInjection": StandIn(
        "bandit",
        ("B602", "B604", "B605"),
        "partial",
        "a shell command (os.system, shell=True); no taint tracking from the request",
    ),
    "UnsafeDeserialization": StandIn(
        "bandit",
        ("B301", "B302", "B506"),
        "partial",
        "pickle/marshal loads, yaml.load without a safe loader; no taint tracking",
    ),
    **{
        f"cwe-798_HardcodedCredentials-{v}": StandIn(
            "bandit",
            ("B105", "B106", "B107"),
            "partial",
            "a password-like name bound to a string literal (not every credential sink)",
        )
        for v in "abc"
    },
    "DoNotCreateWorldWritable": StandIn(
        "cppcheck",
        ("bpWorldWritableMode", "bpFopenWithoutUmask"),
        "close",
        "open/creat/chmod/mkdir with an others-writable literal mode; fopen for writing "
        "in a file that never calls umask",
    ),
    "MissingNullTest": StandIn(
        "cppcheck",
        ("bpAllocNoNullTest", "nullPointer", "nullPointerOutOfMemory"),
        "partial",
        "the result of malloc/calloc/realloc dereferenced or used as a copy/read "
        "destination before any NULL test (a pattern over the tokens, not flow-sensitive)",
    ),
    "OverflowBuffer": StandIn(
        "cppcheck",
        ("bufferAccessOutOfBounds", "pointerSize", "sizeofDivisionMemfunc"),
        "partial",
        "buffer overruns cppcheck proves, and sizeof of a pointer as a length",
    ),
    "PotentialBufferOverflow": StandIn(
        "cppcheck",
        ("bpSprintfUnboundedFloat", "bufferAccessOutOfBounds"),
        "partial",
        "sprintf with %f/%e/%g and no precision (unbounded length); proven overruns",
    ),
    "UseAfterFree": StandIn(
        "cppcheck",
        ("deallocuse", "doubleFree", "deallocret"),
        "weak",
        "cppcheck's use-after-free checks (local, no inter-procedural flow)",
    ),
    **{
        q: StandIn(
            "cppcheck",
            _BOUNDS,
            "weak",
            "the authors' own query (not in CodeQL's suite): an index from input used "
            "without both bounds checked; cppcheck flags only indices it can prove out of "
            "range",
        )
        for q in (
            "cwe_125_mitre-eg-1",
            "cwe_125_my-1",
            "cwe_125_my-2",
            "cwe_787_mitre-eg-2",
            "cwe-119_mitre-eg-3",
        )
    },
}

#: Queries of security.jsonl with no stand-in here, and why (reported as "no oracle").
UNMAPPED: dict[str, str] = {
    "ArithmeticTainted": "taint tracking from input to arithmetic; no open C analyser here has it",
    "IRUntrustedDataToExternalAPI": "taint tracking into library calls; none here",
    "ExecTainted": "taint tracking into system(); flawfinder flags every system() call, "
    "the fixed target's too",
    "IncompleteHostnameRegExp": "an unescaped '.' in a hostname regex; bandit has no such test",
    "ReflectedXss": "request data reaching a Flask response; bandit has no such test",
}

#: CodeQL Python maintainability queries -> pylint messages. The subset is not public as a
#: dataset file; its published generations name 29 queries, 5 rows each, and 19 of those
#: are mapped here (docs/nofuneval-oracles.md lists the 10 pylint has no message for).
MAINTAINABILITY: dict[str, StandIn] = {
    "UnguardedNextInGenerator": StandIn(
        "pylint", ("stop-iteration-return",), "close", "next() without default in a generator"
    ),
    "UnusedImport": StandIn("pylint", ("unused-import",), "close", "an import never used"),
    "UnusedLocalVariable": StandIn(
        "pylint", ("unused-variable",), "close", "a local assigned and never read"
    ),
    "UnreachableCode": StandIn("pylint", ("unreachable",), "close", "code after return/raise"),
    "StatementNoEffect": StandIn(
        "pylint",
        ("pointless-statement", "expression-not-assigned"),
        "close",
        "an expression statement with no effect",
    ),
    "ConstantInConditional": StandIn(
        "pylint", ("using-constant-test",), "close", "a constant as an if/while test"
    ),
    "CatchingBaseException": StandIn(
        "pylint",
        ("bare-except", "broad-exception-caught"),
        "partial",
        "bare except (pylint also flags except Exception, CodeQL only BaseException/bare)",
    ),
    "EqualsNone": StandIn("pylint", ("singleton-comparison",), "close", "== None / != None"),
    "RedundantAssignment": StandIn("pylint", ("self-assigning-variable",), "partial", "x = x"),
    "NonSelf": StandIn(
        "pylint", ("no-self-argument",), "close", "first method parameter not named self"
    ),
    "UnnecessaryElseClause": StandIn(
        "pylint", ("useless-else-on-loop",), "close", "else on a loop without break"
    ),
    "UnnecessaryPass": StandIn(
        "pylint", ("unnecessary-pass",), "close", "a pass that does nothing"
    ),
    "MultipleImports": StandIn("pylint", ("reimported",), "close", "a module imported twice"),
    "UnintentionalImport": StandIn("pylint", ("wildcard-import",), "close", "from module import *"),
    "ModificationOfParameterWithDefault": StandIn(
        "pylint",
        ("dangerous-default-value",),
        "partial",
        "a mutable default (pylint flags the default, CodeQL its modification)",
    ),
    "IncorrectExceptOrder": StandIn(
        "pylint", ("bad-except-order",), "close", "a handler shadowed by an earlier one"
    ),
    "UnnecessaryLambda": StandIn("pylint", ("unnecessary-lambda",), "close", "lambda x: f(x)"),
    "ExplicitReturnInInit": StandIn(
        "pylint", ("return-in-init",), "close", "__init__ returning a value"
    ),
    "ShouldUseWithStatement": StandIn(
        "pylint",
        ("consider-using-with",),
        "weak",
        "pylint flags open() outside with; CodeQL flags try/finally close()",
    ),
    "UnintentionalImplicitStringConcatenation": StandIn(
        "pylint",
        ("implicit-str-concat",),
        "partial",
        "adjacent string literals in a list, tuple or set (pylint also in call arguments)",
    ),
    "CallToSuperWrongClass": StandIn(
        "pylint", ("bad-super-call",), "close", "super() naming a class other than its own"
    ),
    "NotImplementedIsNotAnException": StandIn(
        "pylint", ("notimplemented-raised",), "close", "raise NotImplemented"
    ),
    "GlobalAtModuleLevel": StandIn(
        "pylint", ("global-at-module-level",), "close", "a global statement at module level"
    ),
    "UseImplicitNoneReturnValue": StandIn(
        "pylint",
        ("assignment-from-no-return", "assignment-from-none"),
        "partial",
        "the value of a call that returns None used (pylint: only when assigned)",
    ),
    "CompareConstants": StandIn(
        "pylint", ("comparison-of-constants",), "close", "a comparison of two constants"
    ),
}

STAND_INS: dict[str, StandIn] = {**SECURITY, **MAINTAINABILITY}


def stand_in(codeql_check: str) -> StandIn | None:
    return STAND_INS.get(query_name(codeql_check))
