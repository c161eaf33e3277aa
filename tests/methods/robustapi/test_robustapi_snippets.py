"""Every rule of RobustAPI's pat_list.txt against small Java snippets of our own.

For each rule: a snippet that uses the API correctly (the rule is not reported) and one
that breaks it (the rule is reported), in beyondpass's semantics. Rules that cannot be
broken in that semantics (their only requirement is that the receiver or an argument was
produced, or they state no requirement at all) are listed in NEVER_BROKEN with the reason,
and their negative example is checked in the original semantics instead, which reports
every call a rule covers.
"""

from __future__ import annotations

import pytest

from beyondpass.methods.robustapi.checker import ApiMisuseChecker, load_ruleset


@pytest.fixture(scope="module")
def checkers(data_dir):
    return {
        sem: ApiMisuseChecker(load_ruleset(data_dir=data_dir, semantics=sem), sem)
        for sem in ("correct", "original")
    }


def answer(code: str) -> str:
    return f"<<<api>>>: X\n<<<code>>>:\n```java\n{code.strip()}\n```\n<<<explanation>>>: -"


def violated(checker: ApiMisuseChecker, code: str, api: str | None = None) -> set[str]:
    verdict = checker.check(answer(code), api)
    assert verdict.verdict in ("pass", "violation"), verdict.error
    return {
        v.pattern.split("#", 2)[2] if v.pattern.count("#") >= 2 else v.pattern
        for v in verdict.violations
    }


# rule sequence as written in pat_list.txt -> (good snippet, bad snippet, api hint)
FC1 = "TRY, write(ByteBuffer)@true, END_BLOCK, CATCH(Exception), END_BLOCK"
FC2 = "TRY, getChannel()@true, write(ByteBuffer)@true, END_BLOCK, CATCH(Exception), END_BLOCK"
FC3 = "TRY, write(ByteBuffer)@true, close()@true, END_BLOCK, CATCH(Exception), END_BLOCK"
PW1 = "TRY, write(String)@true, END_BLOCK, CATCH(Exception), END_BLOCK"
PW2 = "TRY, write(String)@true, close()@true, END_BLOCK, CATCH(Exception), END_BLOCK"
PW3 = "write(String)@true, close()@true"
TA1 = "getString(int)@true, recycle()@true"
TA2 = "getString(int)@true, IF, END_BLOCK"
JS1 = "getAsString()@rcv!=null"
JS2 = "TRY, getAsString()@rcv!=null, END_BLOCK, CATCH(Exception), END_BLOCK"
JS3 = "getAsString()@rcv.isJsonPrimitive()"
JS4 = "TRY, getAsString()@rcv.isJsonPrimitive(), END_BLOCK, CATCH(Exception), END_BLOCK"
BR1 = "TRY, readLine()@true, END_BLOCK, CATCH(Exception), END_BLOCK"
BR3 = (
    "TRY, new BufferedReader(InputStreamReader)@true, readLine()@true, END_BLOCK, "
    "CATCH(Exception), END_BLOCK"
)
BR4 = "TRY, readLine()@true, END_BLOCK, CATCH(IOException), END_BLOCK"
CI1 = "TRY, init(int,Key)@true, END_BLOCK, CATCH(Exception), END_BLOCK"
CI2 = "TRY, getInstance(String)@true, init(int,Key)@true, END_BLOCK, CATCH(Exception), END_BLOCK"
SDF_NEW = "TRY, new SimpleDateFormat(String)@true, END_BLOCK, CATCH(Exception), END_BLOCK"
SDF_PARSE = "TRY, parse(String)@true, END_BLOCK, CATCH(Exception), END_BLOCK"

CASES = [
    # FileChannel.write: all three rules hold
    (
        "FileChannel.write",
        """
void save(File f, ByteBuffer buf) {
    try (FileOutputStream out = new FileOutputStream(f)) {
        FileChannel ch = out.getChannel();
        ch.write(buf);
        ch.close();
    } catch (IOException e) {
        log(e);
    }
}""",
        set(),
    ),
    (
        "FileChannel.write",
        """
void save(FileOutputStream out, ByteBuffer buf) {
    FileChannel ch = out.getChannel();
    ch.write(buf);
}""",
        {FC1, FC2, FC3},
    ),
    (
        "FileChannel.write",
        """
void save(File f, ByteBuffer buf) {
    try {
        FileOutputStream out = new FileOutputStream(f);
        FileChannel ch = out.getChannel();
        ch.write(buf);
    } catch (IOException e) {
        log(e);
    }
}""",
        {FC3},
    ),
    # SimpleDateFormat constructor
    (
        None,
        """
try {
    DateFormat f = new SimpleDateFormat(pattern);
} catch (IllegalArgumentException e) {
    log(e);
}""",
        set(),
    ),
    (None, 'DateFormat f = new SimpleDateFormat("yyyy-MM-dd");', {SDF_NEW}),
    # Activity.setContentView
    (
        "Activity.setContentView",
        """
public class Main extends AppCompatActivity {
    @Override
    protected void onCreate(Bundle state) {
        super.onCreate(state);
        setContentView(R.layout.main);
    }
}""",
        set(),
    ),
    (
        "Activity.setContentView",
        """
public class Main extends Activity {
    void showOther(View view) {
        setContentView(view);
    }
}""",
        {"onCreate(Bundle)@true, setContentView(View)@true"},
    ),
    # List.get
    (
        "List.get",
        """
List<String> names = load();
for (int i = 0; i < names.size(); i++) {
    print(names.get(i));
}
if (!names.isEmpty()) {
    print(names.get(0));
}
for (int j = names.size() - 1; j >= 0; j--) {
    print(names.get(j));
}""",
        set(),
    ),
    (
        "List.get",
        """
List<String> names = load();
for (int i = 0; i < 10; i++) {
    print(names.get(i));
}""",
        {"LOOP, get(int)@arg0<rcv.size(), END_BLOCK"},
    ),
    (
        "List.get",
        """
ArrayList<String> names = load();
String last = names.get(names.size() - 1);""",
        {"LOOP, get(int)@arg0<rcv.size(), END_BLOCK"},
    ),
    # String.indexOf
    (
        None,
        """
String s = read();
int at = s.indexOf(":");
if (at >= 0) {
    s = s.substring(at + 1);
}""",
        set(),
    ),
    (
        None,
        'String s = read();\nString t = s.substring(s.indexOf(":"));',
        {"indexOf(String)@true, IF, END_BLOCK"},
    ),
    # RandomAccessFile.write
    (
        "RandomAccessFile.write",
        """
try (RandomAccessFile raf = new RandomAccessFile(f, "rw")) {
    raf.write(data);
} catch (IOException e) {
    log(e);
}""",
        set(),
    ),
    (
        "RandomAccessFile.write",
        """
void save(File f, byte[] data) throws IOException {
    RandomAccessFile raf = new RandomAccessFile(f, "rw");
    raf.write(data);
}""",
        {"TRY, write(byte[])@true, close()@true, END_BLOCK, CATCH(Exception), END_BLOCK"},
    ),
    # PrintWriter.write
    (
        "PrintWriter.write",
        """
try (PrintWriter pw = new PrintWriter(new FileWriter(f))) {
    pw.write("hello");
} catch (Exception e) {
    log(e);
}""",
        set(),
    ),
    (
        "PrintWriter.write",
        """
try {
    PrintWriter pw = new PrintWriter(new FileWriter(f));
    pw.write("hello");
} catch (Exception e) {
    log(e);
}""",
        {PW2, PW3},
    ),
    (
        "PrintWriter.write",
        """
PrintWriter pw = new PrintWriter(new FileWriter(f));
pw.write("hello");
pw.close();""",
        {PW1, PW2},
    ),
    # TypedArray.getString
    (
        "TypedArray.getString",
        """
TypedArray a = ctx.obtainStyledAttributes(attrs, R.styleable.V);
try {
    String label = a.getString(0);
    if (label != null) {
        show(label);
    }
} finally {
    a.recycle();
}""",
        set(),
    ),
    (
        "TypedArray.getString",
        """
TypedArray a = ctx.obtainStyledAttributes(attrs, R.styleable.V);
String label = a.getString(0);
if (label != null) {
    show(label);
}""",
        {TA1},
    ),
    (
        "TypedArray.getString",
        """
TypedArray a = ctx.obtainStyledAttributes(attrs, R.styleable.V);
show(a.getString(0).trim());
a.recycle();""",
        {TA2},
    ),
    # StringTokenizer.nextToken
    (
        "StringTokenizer.nextToken",
        """
StringTokenizer st = new StringTokenizer(line, ",");
while (st.hasMoreTokens()) {
    add(st.nextToken());
}
if (st.countTokens() >= 2) {
    String a = st.nextToken();
    String b = st.nextToken();
}""",
        set(),
    ),
    (
        "StringTokenizer.nextToken",
        """
StringTokenizer st = new StringTokenizer(line, ",");
if (st.hasMoreTokens()) {
    String a = st.nextToken();
    String b = st.nextToken();
}""",
        {"new StringTokenizer(String,String)@true, nextToken()@rcv.hasMoreTokens()"},
    ),
    # Map.get
    (
        "Map.get",
        """
Map<String, Integer> m = new HashMap<>();
Integer v = m.get(key);
if (v != null) {
    use(v);
}
if (m.containsKey(other)) {
    use(m.get(other));
}
for (String k : m.keySet()) {
    use(m.get(k));
}""",
        set(),
    ),
    (
        "Map.get",
        "Map<String, Integer> m = load();\nint v = m.get(key);",
        {"get(String)@true, IF, END_BLOCK"},
    ),
    # File.createNewFile
    (
        "File.createNewFile",
        """
File f = new File(dir, "a.txt");
try {
    f.createNewFile();
} catch (IOException e) {
    log(e);
}""",
        set(),
    ),
    (
        "File.createNewFile",
        'File f = new File(dir, "a.txt");\nf.createNewFile();',
        {"TRY, createNewFile()@true, END_BLOCK, CATCH(Exception), END_BLOCK"},
    ),
    # SQLiteDatabase.query
    (
        "SQLiteDatabase.query",
        """
SQLiteDatabase db = helper.getReadableDatabase();
Cursor c = db.query("t", null, null, null, null, null, null);
try {
    read(c);
} finally {
    c.close();
}""",
        set(),
    ),
    (
        "SQLiteDatabase.query",
        """
SQLiteDatabase db = helper.getReadableDatabase();
Cursor c = db.query("t", null, null, null, null, null, null);
read(c);""",
        {"query(String,String[],String,String[],String,String,String)@true, close()@true"},
    ),
    # JsonElement.getAsString
    (
        "JsonElement.getAsString",
        """
try {
    JsonElement e = obj.get("name");
    if (e != null && e.isJsonPrimitive()) {
        show(e.getAsString());
    }
} catch (IllegalStateException ex) {
    log(ex);
}""",
        set(),
    ),
    (
        "JsonElement.getAsString",
        """
try {
    JsonElement e = obj.get("name");
    if (e.isJsonPrimitive()) {
        show(e.getAsString());
    }
} catch (Exception ex) {
    log(ex);
}""",
        {JS1, JS2},
    ),
    (
        "JsonElement.getAsString",
        """
try {
    JsonElement e = obj.get("name");
    if (e != null) {
        show(e.getAsString());
    }
} catch (Exception ex) {
    log(ex);
}""",
        {JS3, JS4},
    ),
    (
        "JsonElement.getAsString",
        """
JsonElement e = obj.get("name");
if (e != null && e.isJsonPrimitive()) {
    show(e.getAsString());
}""",
        {JS2, JS4},
    ),
    # JFrame.setPreferredSize
    (None, "JFrame frame = new JFrame();\nframe.setPreferredSize(size);\nframe.pack();", set()),
    (
        None,
        "JFrame frame = new JFrame();\nframe.setPreferredSize(size);\nframe.setVisible(true);",
        {"setPreferredSize(Dimension)@true, pack()@true"},
    ),
    # FileInputStream constructor
    (
        "InputStream.read",
        """
try (InputStream in = new FileInputStream(f)) {
    int b = in.read();
} catch (IOException e) {
    log(e);
}""",
        set(),
    ),
    (
        None,
        "FileInputStream in = new FileInputStream(f);",
        {"TRY, new FileInputStream(File)@true, END_BLOCK, CATCH(Exception), END_BLOCK"},
    ),
    # SimpleDateFormat.parse
    (
        None,
        """
try {
    SimpleDateFormat f = new SimpleDateFormat("yyyy");
    Date d = f.parse(text);
} catch (ParseException e) {
    log(e);
}""",
        {SDF_NEW},  # ParseException does not handle what the constructor throws
    ),
    (
        None,
        """
try {
    SimpleDateFormat f = new SimpleDateFormat("yyyy");
    Date d = f.parse(text);
} catch (Exception e) {
    log(e);
}""",
        set(),
    ),
    (
        None,
        """
void read(SimpleDateFormat f, String text) {
    Date d = f.parse(text);
}""",
        {SDF_PARSE},
    ),
    # ProgressDialog.dismiss
    ("ProgressDialog.dismiss", "if (dialog != null) {\n    dialog.dismiss();\n}", set()),
    (
        "ProgressDialog.dismiss",
        "dialog.dismiss();",
        {"IF, dismiss()@rcv!=null, END_BLOCK"},
    ),
    # InputStream.read
    (
        "InputStream.read",
        """
void copy(InputStream in) {
    try {
        int b;
        while ((b = in.read()) != -1) {
            out(b);
        }
    } catch (IOException e) {
        log(e);
    }
}""",
        set(),
    ),
    (
        "InputStream.read",
        """
void copy(InputStream in) {
    try {
        int b = in.read();
    } catch (NumberFormatException e) {
        log(e);
    }
}""",
        {"TRY, read()@true, END_BLOCK, CATCH(Exception), END_BLOCK"},
    ),
    # Cipher.init
    (
        "Cipher.init",
        """
try {
    Cipher c = Cipher.getInstance("AES");
    c.init(Cipher.ENCRYPT_MODE, key);
} catch (GeneralSecurityException e) {
    log(e);
}""",
        set(),
    ),
    (
        "Cipher.init",
        """
void enc(Cipher c, Key key) {
    c.init(Cipher.ENCRYPT_MODE, key);
}""",
        {CI1, CI2},
    ),
    # File.mkdirs (erratum: exists() before mkdirs())
    ("File.mkdirs", "File d = new File(p);\nif (!d.exists()) {\n    d.mkdirs();\n}", set()),
    ("File.mkdirs", "File d = new File(p);\nd.mkdirs();", {"exists()@true, mkdirs()@true"}),
    # ApplicationInfo.loadIcon
    (
        "ApplicationInfo.loadIcon",
        """
PackageManager pm = getPackageManager();
try {
    Drawable d = info.loadIcon(pm);
} catch (Exception e) {
    log(e);
}""",
        set(),
    ),
    (
        "ApplicationInfo.loadIcon",
        "ApplicationInfo info = getApplicationInfo();\n"
        "Drawable d = info.loadIcon(getPackageManager());",
        {"TRY, loadIcon(PackageManager)@true, END_BLOCK, CATCH(Exception), END_BLOCK"},
    ),
    # BufferedReader.readLine
    (
        "BufferedReader.readLine",
        """
try (BufferedReader r = new BufferedReader(new FileReader(f))) {
    String line = r.readLine();
} catch (IOException e) {
    log(e);
}""",
        set(),
    ),
    (
        "BufferedReader.readLine",
        """
void first(BufferedReader r) {
    try {
        String line = r.readLine();
    } catch (NumberFormatException e) {
        log(e);
    }
}""",
        {BR1, BR3, BR4},
    ),
    # Iterator.next
    (
        "Iterator.next",
        """
Iterator<String> it = names.iterator();
while (it.hasNext()) {
    use(it.next());
}
if (!names.isEmpty()) {
    String first = names.iterator().next();
}""",
        set(),
    ),
    (
        "Iterator.next",
        """
Iterator<String> it = names.iterator();
while (it.hasNext()) {
    use(it.next(), it.next());
}""",
        {"next()@rcv.hasNext()"},
    ),
]


CASES += [
    # the rule is its call alone: it demands the overload that names a charset
    ("String.getBytes", 'String s = "a";\nbyte[] b = s.getBytes();', {"getBytes(String)@true"}),
    ("String.getBytes", 'String s = "a";\nbyte[] b = s.getBytes("UTF-8");', set()),
]


@pytest.mark.parametrize(
    ("api", "code", "expected"), CASES, ids=[f"{i}" for i in range(len(CASES))]
)
def test_rule_verdicts(checkers, api, code, expected):
    assert violated(checkers["correct"], code, api) == expected


#: rules that never report in the correct semantics, and why
NEVER_BROKEN = {
    "onCreate(Bundle)@true, setContentView(LinearLayout)@true": "keyed on method 'super'",
    "new SimpleDateFormat(String)@true, parse(String)@true": "says the receiver was built",
    "new SimpleDateFormat(String)@true, format(Date)@true": "says the receiver was built",
    "getInstance(String)@true, init(int,Key)@true": "says the Cipher came from getInstance",
    "getPackageManager()@true, loadIcon(PackageManager)@true": "says where the argument came from",
    "new BufferedReader(InputStreamReader)@true, readLine()@true": "says the reader was built",
}

NEGATIVE_ORIGINAL = {
    "getBytes(String)@true": (
        'String s = "a";\nbyte[] b = s.getBytes("UTF-8");',
        "String.getBytes",
    ),
    "new SimpleDateFormat(String)@true, parse(String)@true": (
        "SimpleDateFormat f = getFormat();\ntry { f.parse(t); } catch (Exception e) { }",
        "SimpleDateFormat.parse",
    ),
    "new SimpleDateFormat(String)@true, format(Date)@true": (
        "SimpleDateFormat f = getFormat();\nString s = f.format(d);",
        "SimpleDateFormat.format",
    ),
    "getInstance(String)@true, init(int,Key)@true": (
        'Cipher c = Cipher.getInstance("AES");\ntry { c.init(1, k); } catch (Exception e) { }',
        "Cipher.init",
    ),
    "getPackageManager()@true, loadIcon(PackageManager)@true": (
        "ApplicationInfo i = get();\ntry { i.loadIcon(pm); } catch (Exception e) { }",
        "ApplicationInfo.loadIcon",
    ),
    "new BufferedReader(InputStreamReader)@true, readLine()@true": (
        "BufferedReader r = get();\ntry { r.readLine(); } catch (IOException e) { }",
        "BufferedReader.readLine",
    ),
}


def test_every_rule_has_a_positive_and_a_negative_case(checkers):
    sequences = {r.sequence for r in checkers["correct"].ruleset.rules}
    broken = {p for _, _, expected in CASES for p in expected}
    clean = {p for api, code, expected in CASES if not expected for p in [api]}
    assert clean  # positive snippets exist
    missing = sequences - broken - set(NEVER_BROKEN)
    assert not missing, f"rules without a negative snippet: {missing}"


@pytest.mark.parametrize("sequence", sorted(NEGATIVE_ORIGINAL))
def test_rules_never_broken_in_correct_semantics_fire_in_original(checkers, sequence):
    code, api = NEGATIVE_ORIGINAL[sequence]
    assert sequence not in violated(checkers["correct"], code, api)
    verdict = checkers["original"].check(answer(code), api)
    assert verdict.verdict == "violation"
    assert api.split(".")[1] in {v.api.split(".")[1] for v in verdict.violations}


def test_original_semantics_reports_correct_usage_too(checkers):
    """The published checker reports every covered call, guarded or not (issue 5)."""
    guarded = (
        "Iterator<String> it = names.iterator();\nwhile (it.hasNext()) {\n    use(it.next());\n}"
    )
    checked = (
        "Map<String, String> m = load();\nString v = m.get(k);\nif (v != null) {\n    use(v);\n}"
    )
    for code, api in ((guarded, "Iterator.next"), (checked, "Map.get")):
        assert checkers["correct"].check(answer(code), api).verdict == "pass"
        assert checkers["original"].check(answer(code), api).verdict == "violation"


def test_original_semantics_needs_a_declared_receiver(checkers):
    """Only receivers declared as locals or fields have a type for the original checker;
    types are compared as written (HashMap is not Map)."""
    assert (
        checkers["original"].check(answer("it.next();\nx = 1;"), "Iterator.next").verdict == "pass"
    )
    code = "HashMap<String, String> m = new HashMap<>();\nm.get(k);"
    assert checkers["original"].check(answer(code), "Map.get").verdict == "pass"
    assert checkers["correct"].check(answer(code), "Map.get").verdict == "violation"


def test_original_semantics_reads_the_last_rule_of_an_api(checkers):
    """For a class#method with several lines, the original keeps the last one."""
    code = "void f(BufferedReader r) {\n    r.readLine();\n}"
    verdict = checkers["original"].check(answer(code), "BufferedReader.readLine")
    assert [v.pattern for v in verdict.violations] == [
        "BufferedReader#readLine#TRY, readLine()@true, END_BLOCK, CATCH(IOException), END_BLOCK"
    ]


def test_original_semantics_keys_mkdir_rule_on_mkdir(checkers):
    code = "File d = new File(p);\nd.mkdirs();\nd.mkdir();"
    verdict = checkers["original"].check(answer(code), "File.mkdirs")
    assert [v.call for v in verdict.violations] == ["mkdir"]


def test_unknown_receiver_takes_the_question_api(checkers):
    verdict = checkers["correct"].check(answer("pDialog.dismiss();"), "ProgressDialog.dismiss")
    assert verdict.verdict == "violation"
    assert any("taken to be a ProgressDialog" in n for n in verdict.notes)
    assert checkers["correct"].check(answer("pDialog.dismiss();"), "Map.get").verdict == "pass"


def test_throws_clause_is_not_handling(checkers):
    """``throws`` hands the exception to a caller the snippet does not have."""
    code = "void f(File f) throws IOException {\n    f.createNewFile();\n}"
    assert violated(checkers["correct"], code, "File.createNewFile") == {
        "TRY, createNewFile()@true, END_BLOCK, CATCH(Exception), END_BLOCK"
    }
    handled = (
        "void f(File f) throws IOException {\n    try {\n        f.createNewFile();\n"
        "    } catch (IOException e) {\n        log(e);\n    }\n}"
    )
    assert violated(checkers["correct"], handled, "File.createNewFile") == set()


def test_call_in_catch_block_is_not_protected_by_its_try(checkers):
    code = """
File f = new File(p);
try {
    work();
} catch (Exception e) {
    f.createNewFile();
}"""
    assert violated(checkers["correct"], code, "File.createNewFile") == {
        "TRY, createNewFile()@true, END_BLOCK, CATCH(Exception), END_BLOCK"
    }


def test_close_of_a_parameter_or_returned_object_is_the_callers_job(checkers):
    code = """
Cursor find(SQLiteDatabase db) {
    return db.query("t", null, null, null, null, null, null);
}
void write(PrintWriter pw) {
    try {
        pw.write("x");
    } catch (Exception e) {
        log(e);
    }
}"""
    assert violated(checkers["correct"], code) == set()
