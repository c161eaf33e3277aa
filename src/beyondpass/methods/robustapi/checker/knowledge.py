"""What the checker knows about Java and Android types, written down as data.

A snippet checker has no classpath: it cannot ask a compiler which class ``list`` is or
whether ``catch (IOException e)`` handles what ``readLine()`` throws. These tables supply
the few facts the RobustAPI rules depend on, each taken from the JDK / Android / Gson API
documentation. They are deliberately small; an unknown type is treated as unknown, never
guessed.
"""

from __future__ import annotations

import functools

#: direct supertypes (classes and interfaces) of the types the rules are about
SUPERTYPES: dict[str, tuple[str, ...]] = {
    # collections
    "HashMap": ("AbstractMap", "Map"),
    "LinkedHashMap": ("HashMap",),
    "TreeMap": ("AbstractMap", "NavigableMap"),
    "NavigableMap": ("SortedMap",),
    "SortedMap": ("Map",),
    "ConcurrentHashMap": ("AbstractMap", "ConcurrentMap"),
    "ConcurrentSkipListMap": ("AbstractMap", "ConcurrentNavigableMap"),
    "ConcurrentNavigableMap": ("ConcurrentMap", "NavigableMap"),
    "ConcurrentMap": ("Map",),
    "Hashtable": ("Dictionary", "Map"),
    "Properties": ("Hashtable",),
    "WeakHashMap": ("AbstractMap", "Map"),
    "IdentityHashMap": ("AbstractMap", "Map"),
    "EnumMap": ("AbstractMap", "Map"),
    "AbstractMap": ("Map",),
    "ArrayList": ("AbstractList", "List"),
    "LinkedList": ("AbstractSequentialList", "List", "Deque"),
    "AbstractSequentialList": ("AbstractList",),
    "Vector": ("AbstractList", "List"),
    "Stack": ("Vector",),
    "CopyOnWriteArrayList": ("List",),
    "AbstractList": ("List",),
    "ListIterator": ("Iterator",),
    "Scanner": ("Iterator",),
    # I/O
    "FileInputStream": ("InputStream",),
    "FilterInputStream": ("InputStream",),
    "BufferedInputStream": ("FilterInputStream",),
    "DataInputStream": ("FilterInputStream",),
    "PushbackInputStream": ("FilterInputStream",),
    "ObjectInputStream": ("InputStream",),
    "ByteArrayInputStream": ("InputStream",),
    "SequenceInputStream": ("InputStream",),
    "PipedInputStream": ("InputStream",),
    "AudioInputStream": ("InputStream",),
    "ZipInputStream": ("InflaterInputStream",),
    "GZIPInputStream": ("InflaterInputStream",),
    "InflaterInputStream": ("FilterInputStream",),
    "CipherInputStream": ("FilterInputStream",),
    "ServletInputStream": ("InputStream",),
    "LineNumberReader": ("BufferedReader",),
    # Android
    "AppCompatActivity": ("FragmentActivity",),
    "FragmentActivity": ("ComponentActivity",),
    "ComponentActivity": ("Activity",),
    "ActionBarActivity": ("AppCompatActivity",),
    "ListActivity": ("Activity",),
    "PreferenceActivity": ("ListActivity",),
    "TabActivity": ("ActivityGroup",),
    "ActivityGroup": ("Activity",),
    "ExpandableListActivity": ("Activity",),
    "Activity": ("ContextThemeWrapper",),
    "ProgressDialog": ("AlertDialog",),
    "AlertDialog": ("Dialog",),
    # Gson
    "JsonObject": ("JsonElement",),
    "JsonArray": ("JsonElement",),
    "JsonPrimitive": ("JsonElement",),
    "JsonNull": ("JsonElement",),
}

#: exception classes: name -> superclass
EXCEPTION_PARENT: dict[str, str] = {
    "Exception": "Throwable",
    "Error": "Throwable",
    "IOException": "Exception",
    "FileNotFoundException": "IOException",
    "UnsupportedEncodingException": "IOException",
    "EOFException": "IOException",
    "UnknownHostException": "IOException",
    "MalformedURLException": "IOException",
    "SocketException": "IOException",
    "SocketTimeoutException": "InterruptedIOException",
    "InterruptedIOException": "IOException",
    "ClosedChannelException": "IOException",
    "AsynchronousCloseException": "ClosedChannelException",
    "ZipException": "IOException",
    "CharacterCodingException": "IOException",
    "UncheckedIOException": "RuntimeException",
    "GeneralSecurityException": "Exception",
    "InvalidKeyException": "KeyException",
    "KeyException": "GeneralSecurityException",
    "NoSuchAlgorithmException": "GeneralSecurityException",
    "NoSuchPaddingException": "GeneralSecurityException",
    "InvalidAlgorithmParameterException": "GeneralSecurityException",
    "BadPaddingException": "GeneralSecurityException",
    "IllegalBlockSizeException": "GeneralSecurityException",
    "InvalidKeySpecException": "GeneralSecurityException",
    "ParseException": "Exception",
    "InterruptedException": "Exception",
    "SQLException": "Exception",
    "NameNotFoundException": "AndroidException",
    "AndroidException": "Exception",
    "RuntimeException": "Exception",
    "IllegalStateException": "RuntimeException",
    "IllegalArgumentException": "RuntimeException",
    "NumberFormatException": "IllegalArgumentException",
    "UnsupportedOperationException": "RuntimeException",
    "ClassCastException": "RuntimeException",
    "NullPointerException": "RuntimeException",
    "IndexOutOfBoundsException": "RuntimeException",
    "ArrayIndexOutOfBoundsException": "IndexOutOfBoundsException",
    "StringIndexOutOfBoundsException": "IndexOutOfBoundsException",
    "NoSuchElementException": "RuntimeException",
    "InputMismatchException": "NoSuchElementException",
    "ConcurrentModificationException": "RuntimeException",
    "ArithmeticException": "RuntimeException",
    "SecurityException": "RuntimeException",
    "JsonParseException": "RuntimeException",
    "JsonSyntaxException": "JsonParseException",
    "JsonIOException": "JsonParseException",
    "SQLiteException": "SQLException_android",
    "SQLException_android": "RuntimeException",
    "NotFoundException": "RuntimeException",
    "WindowManager.BadTokenException": "RuntimeException",
    "BadTokenException": "RuntimeException",
}

#: what each checked API call can throw (its documented exceptions)
API_THROWS: dict[tuple[str, str], tuple[str, ...]] = {
    ("BufferedReader", "readLine"): ("IOException",),
    ("FileChannel", "write"): ("IOException",),
    ("RandomAccessFile", "write"): ("IOException",),
    ("PrintWriter", "write"): (),  # PrintWriter never throws I/O errors (checkError())
    ("File", "createNewFile"): ("IOException", "SecurityException"),
    ("InputStream", "read"): ("IOException",),
    ("Cipher", "init"): (
        "InvalidKeyException",
        "InvalidAlgorithmParameterException",
        "UnsupportedOperationException",
    ),
    ("JsonElement", "getAsString"): (
        "UnsupportedOperationException",
        "IllegalStateException",
        "ClassCastException",
    ),
    ("String", "getBytes"): ("UnsupportedEncodingException",),
    ("SimpleDateFormat", "parse"): ("ParseException",),
    ("SimpleDateFormat", "SimpleDateFormat"): ("IllegalArgumentException", "NullPointerException"),
    ("FileInputStream", "FileInputStream"): ("FileNotFoundException", "SecurityException"),
    ("ApplicationInfo", "loadIcon"): (),
}

#: calls whose result type does not depend on generics: method name -> type
RETURN_TYPES: dict[str, str] = {
    "iterator": "Iterator",
    "listIterator": "ListIterator",
    "getChannel": "FileChannel",
    "getPackageManager": "PackageManager",
    "getApplicationInfo": "ApplicationInfo",
    "obtainStyledAttributes": "TypedArray",
    "obtainAttributes": "TypedArray",
    "obtainTypedArray": "TypedArray",
    "getReadableDatabase": "SQLiteDatabase",
    "getWritableDatabase": "SQLiteDatabase",
    "openOrCreateDatabase": "SQLiteDatabase",
    "openDatabase": "SQLiteDatabase",
    "getAsJsonObject": "JsonObject",
    "getAsJsonArray": "JsonArray",
    "getAsJsonPrimitive": "JsonPrimitive",
    "parseString": "JsonElement",
    "parseReader": "JsonElement",
    "toJsonTree": "JsonElement",
    "getWriter": "PrintWriter",
    "getInputStream": "InputStream",
    "openInputStream": "InputStream",
    "openStream": "InputStream",
    "getResourceAsStream": "InputStream",
    "openRawResource": "InputStream",
    "getErrorStream": "InputStream",
    "getOutputStream": "OutputStream",
    "getExternalStorageDirectory": "File",
    "getExternalFilesDir": "File",
    "getFilesDir": "File",
    "getCacheDir": "File",
    "getParentFile": "File",
    "getAbsoluteFile": "File",
    "getDir": "File",
    "toFile": "File",
    "newBufferedReader": "BufferedReader",
    "getBytes": "byte[]",
    "substring": "String",
    "trim": "String",
    "toString": "String",
    "nextToken": "String",
    "readLine": "String",
    "getAsString": "String",
    "getString": "String",
}

#: calls whose result type is the receiver's element: (receiver type, method) -> type
MEMBER_RETURN_TYPES: dict[tuple[str, str], str] = {
    ("JsonObject", "get"): "JsonElement",
    ("JsonArray", "get"): "JsonElement",
    ("JsonParser", "parse"): "JsonElement",
}

#: static fields with known types
FIELD_TYPES: dict[str, str] = {
    "System.in": "InputStream",
    "System.out": "PrintStream",
    "System.err": "PrintStream",
}

#: Calls that produce an object: rule items naming them state where the receiver or an
#: argument came from ("new BufferedReader(...)" before "readLine()"). ``<class>`` means
#: the class the static factory is called on.
PRODUCES: dict[str, str] = {
    "getInstance": "<class>",
    "getChannel": "FileChannel",
    "getPackageManager": "PackageManager",
}

#: accessors returning a view of their receiver: closing the receiver closes the view, and
#: the view belongs to whoever owns the receiver (``out.getChannel()``,
#: ``response.getWriter()``)
VIEW_ACCESSORS = frozenset(
    {"getChannel", "getWriter", "getOutputStream", "getInputStream", "getReader"}
)

#: calls that use up what a guard established, and the guards they use up
CONSUMERS: dict[str, tuple[str, ...]] = {
    "hasNext": ("next",),
    "hasMoreTokens": ("nextToken", "nextElement"),
    "hasMoreElements": ("nextToken", "nextElement"),
    "countTokens": ("nextToken", "nextElement"),
}


def simple_name(type_name: str) -> str:
    """``java.util.List<String>`` -> ``List``; arrays keep their brackets."""
    text = type_name.strip()
    depth = 0
    base = []
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0 and not ch.isspace():
            base.append(ch)
    name = "".join(base)
    dims = ""
    while name.endswith("[]"):
        dims += "[]"
        name = name[:-2]
    if name.endswith("..."):
        dims += "[]"
        name = name[:-3]
    return name.rsplit(".", 1)[-1] + dims


@functools.cache
def supertypes(
    type_name: str, extra: tuple[tuple[str, tuple[str, ...]], ...] = ()
) -> frozenset[str]:
    """All supertypes of a type (itself included), from the table plus ``extra`` entries
    (the snippet's own ``class A extends B``). A class named ``*Activity`` whose parent is
    unknown is taken to be an Activity, as Android's naming convention has it."""
    table = dict(SUPERTYPES)
    for name, parents in extra:
        table[name] = tuple(table.get(name, ())) + parents
    seen: set[str] = set()
    todo = [type_name]
    while todo:
        t = todo.pop()
        if t in seen:
            continue
        seen.add(t)
        parents = table.get(t, ())
        if not parents and t.endswith("Activity") and t != "Activity":
            parents = ("Activity",)
        todo.extend(parents)
    return frozenset(seen)


def is_subtype(
    type_name: str, of: str, extra: tuple[tuple[str, tuple[str, ...]], ...] = ()
) -> bool:
    return of in supertypes(type_name, extra)


def exception_ancestors(name: str) -> list[str]:
    """``IOException`` -> [IOException, Exception, Throwable]; unknown names only themselves."""
    out = [name]
    while out[-1] in EXCEPTION_PARENT:
        out.append(EXCEPTION_PARENT[out[-1]])
    return out


def catch_handles(caught: str, required: str, thrown: tuple[str, ...]) -> bool:
    """Does ``catch (caught e)`` satisfy a rule's ``CATCH(required)``?

    Yes when ``caught`` is ``required`` or one of its supertypes (catching ``Exception``
    handles a rule asking for ``IOException``), and also when ``caught`` is narrower than
    ``required`` but still covers an exception the API call actually throws (``catch
    (IOException e)`` around ``readLine()`` meets ``CATCH(Exception)``: it is the handler the
    rule's author meant). A catch of an unrelated type (``NumberFormatException`` around
    ``readLine()``) handles nothing the rule is about. For a call that throws nothing in
    particular (``PrintWriter.write`` reports errors through ``checkError()``), any handler
    of an exception type counts: there is nothing more specific to catch.
    """
    caught = simple_name(caught)
    if caught in exception_ancestors(required):
        return True
    if not thrown:
        # the call throws nothing in particular (PrintWriter.write, loadIcon): the rule can
        # only ask for a handler, and any exception handler is one
        return caught not in EXCEPTION_PARENT or required in exception_ancestors(caught)
    if required in exception_ancestors(caught):
        return any(caught in exception_ancestors(t) for t in thrown)
    return False
