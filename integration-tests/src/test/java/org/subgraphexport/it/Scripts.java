package org.subgraphexport.it;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the shell scripts of docker/ and scripts/ the way a user would, for the integration tests. */
final class Scripts {
    private Scripts() {}

    record Result(int exitCode, String output) {
        @Override
        public String toString() {
            return "exit " + exitCode + ":\n" + output;
        }
    }

    /** True if {@code tool} is an executable on the PATH. */
    static boolean onPath(String tool) {
        String path = System.getenv("PATH");
        if (path == null) return false;
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) return true;
        }
        return false;
    }

    /** docker/smoke.sh with {@code args}, run by bash with the client jar under test (alone) and this JVM's java. */
    static Result smoke(String... args) throws IOException, InterruptedException {
        Map<String, String> env = Map.of(
                "JAVA_HOME", System.getProperty("java.home"),
                "CLIENT_JAR", RealNeo4jServer.CLIENT_JAR.toString());
        List<String> command = new ArrayList<>(List.of("bash", RealNeo4jServer.DOCKER_DIR.resolve("smoke.sh").toString()));
        command.addAll(List.of(args));
        return run(env, command);
    }

    /** Runs {@code command} with extra environment variables, stdout and stderr together; killed after 120 s. */
    static Result run(Map<String, String> env, List<String> command) throws IOException, InterruptedException {
        return run(env, command, null, Duration.ofSeconds(120));
    }

    /**
     * Runs {@code command} in {@code dir} (null: this JVM's working directory) with extra environment variables,
     * stdout and stderr together; killed, with its children, after {@code timeout} (exit code -1).
     */
    static Result run(Map<String, String> env, List<String> command, Path dir, Duration timeout)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        if (dir != null) pb.directory(dir.toFile());
        pb.environment().putAll(env);
        Path out = Files.createTempFile("script", ".log");
        try {
            Process p = pb.redirectOutput(out.toFile()).start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor();
                return new Result(-1, "timed out after " + timeout.toSeconds() + " s\n" + Files.readString(out));
            }
            return new Result(p.exitValue(), Files.readString(out));
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
