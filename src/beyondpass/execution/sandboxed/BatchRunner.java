// The trusted Java batch runner: runs a program's main on many I/O tests in one JVM.
//
// Started by the candidate sandbox as `java ... -cp BUILD BatchRunner MAIN_CLASS` with the
// judge's channel as its stdin and stdout. Protocol (big-endian): the runner says 'H';
// the judge sends the output cap (int); then per test the judge sends the input (int
// length, UTF-8 bytes; length -1 ends the batch) and the runner answers 'C', the exit
// status (int), flags (byte: 1 it can go on, 2 the output passed the cap), stdout (int length, bytes: at most cap + 1)
// and the tail of stderr (int length, bytes). The expected output never comes here: the
// judge compares. Every test loads the program's classes in a fresh class loader (no
// static state carries over) with System.in/out/err pointed at that test's own streams;
// System.exit is trapped and becomes the test's exit status. What this runner says
// shares a process with the program, so a hostile program can forge a status (never an
// expected output): docs/sandbox.md, "Java: many tests per JVM launch".
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.security.Permission;

public final class BatchRunner {
    private static final int TAIL = 4000;

    static final class ExitTrap extends SecurityException {
        final int status;

        ExitTrap(int status) {
            super("System.exit(" + status + ")");
            this.status = status;
        }
    }

    static final class NoExit extends SecurityManager {
        volatile boolean armed = true;

        @Override
        public void checkPermission(Permission perm) {}

        @Override
        public void checkPermission(Permission perm, Object context) {}

        @Override
        public void checkExit(int status) {
            if (armed) {
                throw new ExitTrap(status);
            }
        }
    }

    /** Thrown into the program when it writes past the output limit (ends the test). */
    static final class OutputFull extends Error {
        OutputFull() {
            super("output limit");
        }
    }

    /** Keeps the first `cap` + 1 bytes written; a write past them throws OutputFull. */
    static final class Capped extends OutputStream {
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private final int cap;
        volatile boolean full;

        Capped(int cap) {
            this.cap = cap;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            int room = cap + 1 - kept.size();
            kept.write(b, off, Math.max(0, Math.min(room, len)));
            if (len > room) {
                full = true;
                throw new OutputFull();
            }
        }

        synchronized byte[] bytes() {
            return kept.toByteArray();
        }
    }

    public static void main(String[] args) throws Exception {
        DataInputStream in = new DataInputStream(new FileInputStream(FileDescriptor.in));
        DataOutputStream out = new DataOutputStream(new FileOutputStream(FileDescriptor.out));
        PrintStream jvmErr = System.err;
        String mainClass = args[0];
        URL[] path = {Paths.get(System.getProperty("java.class.path")).toUri().toURL()};
        NoExit guard = new NoExit();
        try {
            System.setSecurityManager(guard);
        } catch (Throwable refused) {  // a JDK without security managers: exit ends the JVM
        }
        out.writeByte('H');
        out.flush();
        int cap = in.readInt();
        while (true) {
            int length = in.readInt();
            if (length < 0) {
                break;
            }
            byte[] input = new byte[length];
            in.readFully(input);
            Capped stdout = new Capped(cap);
            Capped stderr = new Capped(cap);
            PrintStream caseOut = new PrintStream(stdout, false, StandardCharsets.UTF_8);
            PrintStream caseErr = new PrintStream(stderr, true, StandardCharsets.UTF_8);
            System.setIn(new ByteArrayInputStream(input));
            System.setOut(caseOut);
            System.setErr(caseErr);
            int status = 0;
            boolean goOn = true;
            try (URLClassLoader loader = new URLClassLoader(path, ClassLoader.getPlatformClassLoader())) {
                Method main = Class.forName(mainClass, true, loader).getMethod("main", String[].class);
                main.invoke(null, (Object) new String[0]);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                ExitTrap trap = exitOf(cause);
                if (trap != null) {
                    status = trap.status;
                } else {
                    status = 1;
                    describe(caseErr, cause);
                    goOn = !(cause instanceof OutOfMemoryError);
                }
            } catch (ExitTrap trap) {
                status = trap.status;
            } catch (Throwable e) {  // the class is missing, has no main, or failed to load
                status = 1;
                describe(caseErr, e);
                goOn = !(e instanceof OutOfMemoryError);
            }
            try {
                caseOut.flush();
                caseErr.flush();
            } catch (Throwable full) {  // past the output limit: already recorded
            }
            System.setOut(jvmErr);
            System.setErr(jvmErr);
            byte[] outBytes = stdout.bytes();
            byte[] errBytes = stderr.bytes();
            int from = Math.max(0, errBytes.length - TAIL);
            out.writeByte('C');
            out.writeInt(status & 0xFF);
            out.writeByte((goOn ? 1 : 0) | (stdout.full || stderr.full ? 2 : 0));
            out.writeInt(outBytes.length);
            out.write(outBytes);
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

    private static void describe(PrintStream err, Throwable error) {
        try {
            err.print("Exception in thread \"main\" ");
            error.printStackTrace(err);
        } catch (Throwable full) {  // stderr past the output limit: already recorded
        }
    }

    private static ExitTrap exitOf(Throwable error) {
        for (int depth = 0; error != null && depth < 20; depth++, error = error.getCause()) {
            if (error instanceof ExitTrap) {
                return (ExitTrap) error;
            }
        }
        return null;
    }
}
