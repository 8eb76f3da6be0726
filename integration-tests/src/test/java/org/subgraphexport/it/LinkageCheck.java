package org.subgraphexport.it;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Links the packaged plugin jar against a server's {@code lib/} the way the JVM would, ahead of time: every class,
 * method and field the plugin's bytecode refers to outside its own jar and the JDK must exist in that server's
 * jars with the same descriptor, and every Neo4j interface or class the plugin implements or extends must have no
 * abstract method the plugin leaves unimplemented. The plugin's internal Neo4j APIs change between releases
 * without notice; this names the missing class or method before a user meets it as a NoClassDefFoundError,
 * NoSuchMethodError or AbstractMethodError in an export.
 *
 * <p>Two things are not problems: an enum constant missing on a line, when the only reference to it is in the
 * switch map javac generates for a {@code switch} over that enum (javac guards each entry with a catch of
 * NoSuchFieldError), and a member only {@code org.subgraphexport.neo4j.Neo4jLine} looks up by name: that class
 * is loaded in the server's class path here and its own {@code check()} must pass, which covers those.
 *
 * <p>Run by {@code LinkageIT} against every server line the build assembles, and by {@code scripts/neo4j-lines}
 * against any Neo4j release: {@code java -cp plugin/target/test-classes org.subgraphexport.it.LinkageCheck
 * <plugin.jar> <lib-dir>}.
 */
final class LinkageCheck {
    private static final Pattern CLASS_IN_DESCRIPTOR = Pattern.compile("L([\\w/$]+);");
    private static final String OWN = "org/subgraphexport/";
    private static final String SWITCH_MAP = "$SwitchMap$";
    private static final String NEO4J_LINE = "org.subgraphexport.neo4j.Neo4jLine";

    private LinkageCheck() {}

    /**
     * A reference from {@code user} to {@code owner.name descriptor}; name is null for a class reference.
     * {@code guarded}: a field read in a javac switch map, whose absence the class itself tolerates.
     */
    private record Ref(String user, String owner, String name, String descriptor, boolean field, boolean guarded) {}

    /**
     * The problems of linking {@code pluginJar} against the jars in {@code libDir}, one line each, sorted; empty
     * when every reference resolves and {@code Neo4jLine.check()} passes there.
     */
    static List<String> problems(Path pluginJar, Path libDir) throws IOException {
        List<URL> urls = new ArrayList<>();
        urls.add(pluginJar.toUri().toURL());
        try (Stream<Path> jars = Files.list(libDir)) {
            for (Path jar : jars.filter(p -> p.toString().endsWith(".jar")).sorted().toList()) {
                urls.add(jar.toUri().toURL());
            }
        }
        Set<Ref> refs = new LinkedHashSet<>();
        List<String> ownClasses = new ArrayList<>();
        try (ZipFile zip = new ZipFile(pluginJar.toFile())) {
            for (ZipEntry entry : zip.stream().toList()) {
                String name = entry.getName();
                if (!name.endsWith(".class") || !name.startsWith(OWN) || name.startsWith(OWN + "shaded/")) {
                    continue;
                }
                String className = name.substring(0, name.length() - ".class".length());
                ownClasses.add(className);
                try (InputStream in = zip.getInputStream(entry)) {
                    references(className, new DataInputStream(in), refs);
                }
            }
        }
        Set<String> problems = new TreeSet<>();
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            for (Ref ref : refs) {
                if (ref.owner.startsWith(OWN) || ClassLoader.getPlatformClassLoader().getResource(ref.owner + ".class") != null) {
                    continue; // the plugin's own classes and the JDK's
                }
                String problem = resolve(loader, ref);
                if (problem != null && !(ref.guarded && problem.startsWith("missing field"))) {
                    problems.add(problem + "  (used by " + ref.user.replace('/', '.') + ")");
                }
            }
            for (String own : ownClasses) {
                String problem = unimplemented(loader, own);
                if (problem != null) {
                    problems.add(problem);
                }
            }
            String line = lineCheck(loader);
            if (line != null) {
                problems.add(line);
            }
        }
        return List.copyOf(problems);
    }

    /** Runs {@code Neo4jLine.check()} with the server's jars: what every export calls before it starts. */
    private static String lineCheck(ClassLoader loader) {
        try {
            Class.forName(NEO4J_LINE, true, loader).getMethod("check").invoke(null);
            return null;
        } catch (InvocationTargetException e) {
            return NEO4J_LINE + ".check(): " + e.getCause().getMessage();
        } catch (ReflectiveOperationException | LinkageError e) {
            return NEO4J_LINE + " cannot be loaded: " + e;
        }
    }

    private static String resolve(ClassLoader loader, Ref ref) {
        Class<?> owner;
        try {
            owner = Class.forName(ref.owner.replace('/', '.'), false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return "missing class " + ref.owner.replace('/', '.');
        }
        if (ref.name == null) {
            return null;
        }
        try {
            return member(owner, ref) ? null : "missing " + (ref.field ? "field " : "method ")
                    + owner.getName() + "." + ref.name + ref.descriptor;
        } catch (LinkageError e) {
            return "cannot link " + owner.getName() + "." + ref.name + ref.descriptor + ": " + e;
        }
    }

    /** Whether the member is declared by the owner or inherited from any superclass or superinterface. */
    private static boolean member(Class<?> owner, Ref ref) {
        Deque<Class<?>> todo = new ArrayDeque<>(List.of(owner));
        Set<Class<?>> seen = new HashSet<>();
        while (!todo.isEmpty()) {
            Class<?> type = todo.pop();
            if (!seen.add(type)) {
                continue;
            }
            if (ref.field) {
                for (Field f : type.getDeclaredFields()) {
                    if (f.getName().equals(ref.name) && f.getType().descriptorString().equals(ref.descriptor)) {
                        return true;
                    }
                }
            } else if (ref.name.equals("<init>")) {
                for (Constructor<?> c : type.getDeclaredConstructors()) {
                    if (descriptor(c, void.class).equals(ref.descriptor)) {
                        return true;
                    }
                }
                return false; // constructors are not inherited
            } else {
                for (Method m : type.getDeclaredMethods()) {
                    if (m.getName().equals(ref.name) && descriptor(m, m.getReturnType()).equals(ref.descriptor)) {
                        return true;
                    }
                }
            }
            if (type.getSuperclass() != null) {
                todo.add(type.getSuperclass());
            }
            todo.addAll(List.of(type.getInterfaces()));
        }
        return false;
    }

    private static String descriptor(Executable e, Class<?> returnType) {
        return MethodType.methodType(returnType, e.getParameterTypes()).toMethodDescriptorString();
    }

    /** A concrete class of the plugin that leaves an abstract method of a supertype unimplemented, or null. */
    private static String unimplemented(ClassLoader loader, String own) {
        Class<?> type;
        try {
            type = Class.forName(own.replace('/', '.'), false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return "cannot load " + own.replace('/', '.') + ": " + e;
        }
        if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
            return null;
        }
        try {
            for (Method m : type.getMethods()) {
                if (Modifier.isAbstract(m.getModifiers())) {
                    return own.replace('/', '.') + " does not implement " + m.getDeclaringClass().getName() + "."
                            + m.getName() + descriptor(m, m.getReturnType());
                }
            }
        } catch (LinkageError e) {
            return "cannot link " + own.replace('/', '.') + ": " + e;
        }
        return null;
    }

    /** Reads a class file's constant pool: its class, field and method references and every class a descriptor names. */
    private static void references(String user, DataInputStream in, Set<Ref> refs) throws IOException {
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException(user + " is not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        Object[] pool = new Object[count];
        boolean switchMap = false;
        int[][] links = new int[count][];
        byte[] tags = new byte[count];
        for (int i = 1; i < count; i++) {
            byte tag = in.readByte();
            tags[i] = tag;
            switch (tag) {
                case 1 -> {
                    pool[i] = in.readUTF();
                    switchMap |= ((String) pool[i]).startsWith(SWITCH_MAP);
                }
                case 3, 4 -> in.readInt();
                case 5, 6 -> {
                    in.readLong();
                    i++;
                }
                case 7, 8, 16, 19, 20 -> links[i] = new int[] {in.readUnsignedShort()};
                case 9, 10, 11, 12, 17, 18 -> links[i] = new int[] {in.readUnsignedShort(), in.readUnsignedShort()};
                case 15 -> links[i] = new int[] {in.readUnsignedByte(), in.readUnsignedShort()};
                default -> throw new IOException(user + ": unknown constant pool tag " + tag);
            }
        }
        for (int i = 1; i < count; i++) {
            switch (tags[i]) {
                case 1 -> {
                    Matcher m = CLASS_IN_DESCRIPTOR.matcher((String) pool[i]);
                    while (m.find()) {
                        refs.add(new Ref(user, m.group(1), null, null, false, false));
                    }
                }
                case 7 -> {
                    String name = (String) pool[links[i][0]];
                    if (!name.startsWith("[")) {
                        refs.add(new Ref(user, name, null, null, false, false));
                    }
                }
                case 9, 10, 11 -> {
                    String owner = (String) pool[links[links[i][0]][0]];
                    int[] nameAndType = links[links[i][1]];
                    if (!owner.startsWith("[")) {
                        refs.add(new Ref(user, owner, (String) pool[nameAndType[0]], (String) pool[nameAndType[1]],
                                tags[i] == 9, switchMap && tags[i] == 9));
                    }
                }
                default -> {}
            }
        }
    }

    /** {@code LinkageCheck <plugin.jar> <lib-dir>}: prints the problems, exits 1 if any. */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: LinkageCheck <plugin.jar> <lib-dir>");
            System.exit(2);
        }
        List<String> problems = problems(Path.of(args[0]), Path.of(args[1]));
        problems.forEach(System.out::println);
        System.exit(problems.isEmpty() ? 0 : 1);
    }
}
