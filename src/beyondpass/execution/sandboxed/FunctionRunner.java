// The trusted Java function runner: calls one function of a program on many cases in one JVM.
//
// Started by the candidate sandbox as `java ... -cp BUILD FunctionRunner METHOD INPUTS
// OUTPUTS` (INPUTS/OUTPUTS: comma-separated PSB2-style types int, float, str, bool,
// vec_int, vec_float; "-" for none) with the judge's channel as its stdin and stdout. It
// speaks exactly BatchRunner's protocol (compiled_judge.py): 'H'; the output cap; per case
// the input text (int length, UTF-8; -1 ends) answered by 'C', status, flags (1 go on, 2
// past the output cap), the case's output and a stderr tail. Unlike BatchRunner it loads
// the program once and calls the function in a loop (no class loader per case: static
// state carries over between calls, as in any harness calling a function repeatedly).
// The output is the function's return value, formatted here; what the function prints is
// counted against the cap and dropped. Expected outputs never come here: the judge compares.
//
// The channel is held only by this class. A security manager, installed before any of the
// program's code runs, refuses to code of the program on the stack: opening file
// descriptors (FileDescriptor.out), files other than the JDK's and the build's (/proc/self/fd,
// /dev/stdout), reflection that suppresses access checks (reading this class's fields),
// native libraries, replacing the security manager; System.exit/halt becomes that case's
// runtime error. A JDK that refuses a security manager gets no case run at all (an error
// of the sample, never a pass). A case that leaves threads running ends the JVM after its
// answer (the judge starts a fresh one for the rest). See docs/psb2.md, "Java function mode".
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.FilePermission;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ReflectPermission;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.Permission;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

public final class FunctionRunner {
    private static final int TAIL = 4000;
    /** The exit status of a case whose function cannot be found or called (drivers.py). */
    static final int NOT_CALLABLE = 97;
    static final String NOT_CALLABLE_MARK = "beyondpass: function not callable:";

    // ExitTrap and OutputFull resemble BatchRunner's on purpose: each trusted runner is one
    // self-contained file compiled with the answer (languages.py), its helpers nested so
    // that no name of ours enters the answer's package, and the Guard trusts exactly them.

    /** System.exit or Runtime.halt called by the program: that case's runtime error. */
    static final class ExitTrap extends SecurityException {
        final int status;

        ExitTrap(int status) {
            super("the function called System.exit(" + status + ")");
            this.status = status;
        }
    }

    /** Thrown into the program when it prints past the output cap (ends the case). */
    static final class OutputFull extends Error {
        OutputFull() {
            super("output limit");
        }
    }

    /** The function returned something the case's outputs cannot be read from. */
    static final class BadReturn extends RuntimeException {
        BadReturn(String message) {
            super(message);
        }
    }

    /** Counts what the program prints in one case and throws past the cap. */
    static final class Sink extends OutputStream {
        long count;
        long cap;
        boolean full;

        @Override
        public void write(int b) {
            write(null, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            count += len;
            if (count > cap) {
                full = true;
                throw new OutputFull();
            }
        }
    }

    static final class Guard extends SecurityManager {
        volatile boolean armed = true;
        private final Set<Class<?>> trusted;
        private final List<String> readable;
        private final ClassLoader program;

        Guard(Set<Class<?>> trusted, List<String> readable) {
            this.trusted = trusted;
            this.readable = readable;
            this.program = FunctionRunner.class.getClassLoader();
        }

        /** The program's classes (and anything it defines) share this runner's loader. */
        private boolean untrusted(Class<?> c) {
            ClassLoader loader = c.getClassLoader();
            return loader != null && loader != program.getParent() && !trusted.contains(c);
        }

        private boolean programOnStack() {
            for (Class<?> c : getClassContext()) {
                if (untrusted(c)) {
                    return true;
                }
            }
            return false;
        }

        /** Whether the first frame past the reflection machinery belongs to the program. */
        private boolean programReflects() {
            for (Class<?> c : getClassContext()) {
                String n = c.getName();
                if (c == Guard.class || c == SecurityManager.class
                        || n.startsWith("java.lang.reflect.") || n.startsWith("java.lang.invoke.")
                        || n.startsWith("jdk.internal.reflect.") || n.equals("java.lang.Class")
                        || n.equals("java.lang.System")) {
                    continue;
                }
                return untrusted(c);
            }
            return false;
        }

        @Override
        public void checkPermission(Permission perm, Object context) {
            checkPermission(perm);
        }

        @Override
        public void checkPermission(Permission perm) {
            if (!armed) {
                return;
            }
            String name = perm.getName();
            if (perm instanceof ReflectPermission) {
                if (name.equals("suppressAccessChecks") && programReflects()) {
                    throw new SecurityException("refused: " + perm);
                }
            } else if (perm instanceof FilePermission) {
                if (perm.getActions().equals("read") && readableFile(name)) {
                    return;
                }
                if (programOnStack()) {
                    throw new SecurityException("refused: " + perm);
                }
            } else if (perm instanceof RuntimePermission) {
                if ((name.equals("writeFileDescriptor") || name.equals("readFileDescriptor")
                        || name.equals("setSecurityManager") || name.startsWith("loadLibrary.")
                        || name.equals("createSecurityManager"))
                        && programOnStack()) {
                    throw new SecurityException("refused: " + perm);
                }
            }
        }

        private boolean readableFile(String name) {
            for (String root : readable) {
                if (name.startsWith(root)) {
                    return !name.contains("..");
                }
            }
            return false;
        }

        @Override
        public void checkExit(int status) {
            if (armed) {
                throw new ExitTrap(status);
            }
        }
    }

    // ---- finding the function -------------------------------------------------------

    /** A method of the program and how to call it, or why none can be called. */
    static final class Target {
        Method method;
        Constructor<?> maker; // an instance method: a fresh instance per case
        String problem = "";
    }

    static Target resolve(String wanted, String[] inputs, Path build) {
        Target target = new Target();
        List<String> names = new ArrayList<>();
        names.add("Solution");
        try (Stream<Path> files = Files.walk(build)) {
            for (Path file : files.collect(Collectors.toList())) {
                String rel = build.relativize(file).toString();
                if (rel.endsWith(".class") && !rel.startsWith("FunctionRunner")) {
                    String cls = rel.substring(0, rel.length() - 6).replace(File.separatorChar, '.');
                    if (!names.contains(cls)) {
                        names.add(cls);
                    }
                }
            }
        } catch (IOException e) {
            target.problem = "cannot list the build directory: " + e;
            return target;
        }
        ClassLoader loader = FunctionRunner.class.getClassLoader();
        for (String cls : names) {
            Class<?> c;
            try {
                c = Class.forName(cls, false, loader);
            } catch (Throwable e) {
                continue;
            }
            Method[] methods;
            try {
                methods = c.getDeclaredMethods();
            } catch (Throwable e) {
                continue;
            }
            for (Method m : methods) {
                if (!m.getName().equals(wanted) || m.getParameterCount() != inputs.length
                        || m.isSynthetic() || !fits(m.getParameterTypes(), inputs)) {
                    continue;
                }
                if (!Modifier.isStatic(m.getModifiers())) {
                    try {
                        target.maker = c.getDeclaredConstructor();
                        target.maker.setAccessible(true);
                    } catch (Throwable e) {
                        continue; // an instance method of a class without a no-argument constructor
                    }
                }
                m.setAccessible(true);
                target.method = m;
                return target;
            }
        }
        target.problem = "no method " + wanted + "(" + String.join(", ", inputs)
                + ") in class Solution or any other class of the program (static, or an"
                + " instance method of a class with a no-argument constructor)";
        return target;
    }

    private static boolean fits(Class<?>[] params, String[] inputs) {
        for (int i = 0; i < params.length; i++) {
            if (!accepts(params[i], inputs[i])) {
                return false;
            }
        }
        return true;
    }

    private static boolean accepts(Class<?> p, String type) {
        switch (type) {
            case "int":
                return p == int.class || p == long.class || p == Integer.class || p == Long.class;
            case "float":
                return p == double.class || p == Double.class || p == float.class || p == Float.class;
            case "str":
                return p == String.class || p == CharSequence.class;
            case "bool":
                return p == boolean.class || p == Boolean.class;
            case "vec_int":
                return p == int[].class || p == long[].class || p == Integer[].class
                        || p == Long[].class || p.isAssignableFrom(ArrayList.class);
            case "vec_float":
                return p == double[].class || p == Double[].class || p == float[].class
                        || p.isAssignableFrom(ArrayList.class);
            default:
                return false;
        }
    }

    // ---- reading a case's inputs ------------------------------------------------------

    static Object[] arguments(String text, String[] inputs, Class<?>[] params) {
        String[] lines = text.split("\n", -1);
        Object[] args = new Object[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            String line = i < lines.length ? lines[i] : "";
            args[i] = value(line, inputs[i], params[i]);
        }
        return args;
    }

    private static Object value(String line, String type, Class<?> p) {
        switch (type) {
            case "int": {
                long v = Long.parseLong(line.trim());
                return (p == int.class || p == Integer.class) ? (Object) (int) v : (Object) v;
            }
            case "float": {
                double v = Double.parseDouble(line.trim());
                return (p == float.class || p == Float.class) ? (Object) (float) v : (Object) v;
            }
            case "str":
                return line;
            case "bool":
                return line.trim().equals("true");
            default:
                break;
        }
        String[] tokens = line.trim().isEmpty() ? new String[0] : line.trim().split(" +");
        boolean ints = type.equals("vec_int");
        if (p == int[].class) {
            int[] out = new int[tokens.length];
            for (int i = 0; i < tokens.length; i++) {
                out[i] = Integer.parseInt(tokens[i]);
            }
            return out;
        }
        if (p == long[].class) {
            long[] out = new long[tokens.length];
            for (int i = 0; i < tokens.length; i++) {
                out[i] = Long.parseLong(tokens[i]);
            }
            return out;
        }
        if (p == double[].class) {
            double[] out = new double[tokens.length];
            for (int i = 0; i < tokens.length; i++) {
                out[i] = Double.parseDouble(tokens[i]);
            }
            return out;
        }
        if (p == float[].class) {
            float[] out = new float[tokens.length];
            for (int i = 0; i < tokens.length; i++) {
                out[i] = Float.parseFloat(tokens[i]);
            }
            return out;
        }
        Object[] boxed = p == Long[].class ? new Long[tokens.length]
                : p == Integer[].class ? new Integer[tokens.length]
                : ints ? new Integer[tokens.length] : new Double[tokens.length];
        for (int i = 0; i < tokens.length; i++) {
            boxed[i] = p == Long[].class ? (Object) Long.parseLong(tokens[i])
                    : ints ? (Object) Integer.parseInt(tokens[i]) : (Object) Double.parseDouble(tokens[i]);
        }
        if (p.isArray()) {
            return boxed;
        }
        List<Object> list = new ArrayList<>(boxed.length);
        for (Object o : boxed) {
            list.add(o);
        }
        return list;
    }

    // ---- writing a case's outputs -----------------------------------------------------

    static String render(Object result, String[] outputs) {
        StringBuilder out = new StringBuilder();
        if (outputs.length == 1) {
            line(out, result, outputs[0]);
            return out.toString();
        }
        List<Object> parts = elements(result);
        if (parts == null || parts.size() != outputs.length) {
            throw new BadReturn("expected " + outputs.length + " values (an array or a list), got "
                    + describe(result));
        }
        for (int i = 0; i < outputs.length; i++) {
            line(out, parts.get(i), outputs[i]);
        }
        return out.toString();
    }

    private static String describe(Object value) {
        if (value == null) {
            return "null";
        }
        List<Object> parts = elements(value);
        return value.getClass().getSimpleName() + (parts == null ? "" : " of " + parts.size());
    }

    private static List<Object> elements(Object value) {
        if (value == null) {
            return null;
        }
        if (value.getClass().isArray()) {
            int n = Array.getLength(value);
            List<Object> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(Array.get(value, i));
            }
            return out;
        }
        if (value instanceof Collection) {
            return new ArrayList<Object>((Collection<?>) value);
        }
        return null;
    }

    private static void line(StringBuilder out, Object value, String type) {
        if (type.startsWith("vec_")) {
            List<Object> items = elements(value);
            if (items == null) {
                throw new BadReturn("expected a vector (an array or a list), got " + describe(value));
            }
            String elem = type.substring(4);
            for (int i = 0; i < items.size(); i++) {
                if (i > 0) {
                    out.append(' ');
                }
                scalar(out, items.get(i), elem);
            }
        } else {
            scalar(out, value, type);
        }
        out.append('\n');
    }

    private static void scalar(StringBuilder out, Object value, String type) {
        if (type.equals("float") && value instanceof Number) {
            out.append(pythonRepr(((Number) value).doubleValue()));
        } else if (type.equals("int") && (value instanceof Integer || value instanceof Long
                || value instanceof Short || value instanceof Byte)) {
            out.append(((Number) value).longValue());
        } else {
            out.append(value); // the text of whatever came back: a wrong type is a wrong output
        }
    }

    /** The shortest text that reads back as ``d``, laid out as Python's ``repr`` (textio.py). */
    static String pythonRepr(double d) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return (1 / d < 0) ? "-0.0" : "0.0";
        }
        BigDecimal exact = new BigDecimal(d);
        BigDecimal shortest = exact;
        for (int digits = 1; digits <= 17; digits++) {
            BigDecimal r = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
            if (r.doubleValue() == d) {
                shortest = r;
                break;
            }
        }
        String sign = shortest.signum() < 0 ? "-" : "";
        BigDecimal abs = shortest.abs().stripTrailingZeros();
        String digits = abs.unscaledValue().toString();
        int point = digits.length() - abs.scale(); // value = 0.DIGITS x 10^point
        int exponent = point - 1;
        if (exponent < -4 || exponent >= 16) {
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            String e = String.valueOf(Math.abs(exponent));
            return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + (e.length() < 2 ? "0" + e : e);
        }
        if (point <= 0) {
            return sign + "0." + "0".repeat(-point) + digits;
        }
        if (point >= digits.length()) {
            return sign + digits + "0".repeat(point - digits.length()) + ".0";
        }
        return sign + digits.substring(0, point) + "." + digits.substring(point);
    }

    // ---- the loop ----------------------------------------------------------------------

    private static int threads() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        return root.activeCount();
    }

    public static void main(String[] args) throws Exception {
        DataInputStream in = new DataInputStream(new FileInputStream(FileDescriptor.in));
        DataOutputStream out = new DataOutputStream(new FileOutputStream(FileDescriptor.out));
        String wanted = args[0];
        String[] inputs = args[1].equals("-") ? new String[0] : args[1].split(",");
        String[] outputs = args[2].split(",");
        Path build = Paths.get(System.getProperty("java.class.path")).toAbsolutePath();
        Target target = resolve(wanted, inputs, build);
        Sink sink = new Sink();
        PrintStream printed = new PrintStream(sink, true, StandardCharsets.UTF_8);
        System.setOut(printed);
        System.setErr(printed);
        System.setIn(new java.io.ByteArrayInputStream(new byte[0]));
        Set<Class<?>> trusted = Set.of(FunctionRunner.class, Guard.class, Target.class,
                Sink.class, ExitTrap.class, OutputFull.class, BadReturn.class);
        List<String> readable = List.of(
                Paths.get(System.getProperty("java.home")).toRealPath().toString() + File.separator,
                System.getProperty("java.home") + File.separator,
                build.toString() + File.separator);
        Guard guard = new Guard(trusted, readable);
        try {
            System.setSecurityManager(guard);
        } catch (Throwable refused) {
            // a JDK without security managers: nothing could keep the function away from
            // the channel, so no case runs (the judge: "the runner did not start: <this>")
            PrintStream jvmErr = new PrintStream(
                    new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
            jvmErr.println("FunctionRunner: this JDK refuses a security manager ("
                    + refused.getClass().getSimpleName() + "), so the function could reach "
                    + "the judge's channel; use program mode on this JDK");
            Runtime.getRuntime().halt(3);
        }
        int baseline = threads();
        out.writeByte('H');
        out.flush();
        sink.cap = in.readInt();
        Class<?>[] params = target.method == null ? null : target.method.getParameterTypes();
        while (true) {
            int length = in.readInt();
            if (length < 0) {
                break;
            }
            byte[] input = new byte[length];
            in.readFully(input);
            sink.count = 0;
            sink.full = false;
            int status = 0;
            boolean goOn = true;
            String answer = "";
            String error = "";
            if (target.method == null) {
                status = NOT_CALLABLE;
                error = NOT_CALLABLE_MARK + " " + target.problem;
            } else {
                try {
                    Object[] call = arguments(new String(input, StandardCharsets.UTF_8), inputs, params);
                    Object self = target.maker == null ? null : target.maker.newInstance();
                    Object result = target.method.invoke(self, call);
                    answer = render(result, outputs);
                } catch (InvocationTargetException e) {
                    Throwable cause = e.getCause();
                    status = 1;
                    error = failure(cause);
                    goOn = !(cause instanceof OutOfMemoryError);
                } catch (Throwable e) { // the arguments, the constructor, or the return value
                    status = 1;
                    error = failure(e);
                    goOn = !(e instanceof OutOfMemoryError);
                }
            }
            if (threads() > baseline) { // the function left threads running: a fresh JVM next
                goOn = false;
            }
            byte[] outBytes = answer.getBytes(StandardCharsets.UTF_8);
            byte[] errBytes = error.getBytes(StandardCharsets.UTF_8);
            int from = Math.max(0, errBytes.length - TAIL);
            boolean full = sink.full || outBytes.length > sink.cap;
            int kept = (int) Math.min(outBytes.length, sink.cap + 1L);
            out.writeByte('C');
            out.writeInt(status & 0xFF);
            out.writeByte((goOn ? 1 : 0) | (full ? 2 : 0));
            out.writeInt(kept);
            out.write(outBytes, 0, kept);
            out.writeInt(errBytes.length - from);
            out.write(errBytes, from, errBytes.length - from);
            out.flush();
            if (!goOn) {
                break;
            }
        }
        guard.armed = false;
        Runtime.getRuntime().halt(0);
    }

    /** A failed case's stderr: the line naming the exception, as a JVM prints it. */
    private static String failure(Throwable error) {
        ExitTrap trap = null;
        for (Throwable e = error; e != null && trap == null; e = e.getCause()) {
            if (e instanceof ExitTrap) {
                trap = (ExitTrap) e;
            }
        }
        if (trap != null) {
            return "Exception in thread \"main\" SystemExit: " + trap.getMessage() + "\n";
        }
        String text;
        try {
            text = String.valueOf(error);
        } catch (Throwable e) { // a hostile toString
            text = error.getClass().getName();
        }
        if (error instanceof BadReturn) {
            text = "BadReturn: " + error.getMessage();
        }
        return "Exception in thread \"main\" " + text + "\n";
    }
}
