package io.junction.tools.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.junction.api.JoinSpec;
import io.junction.api.Row;
import io.junction.api.Side;
import io.junction.internal.durable.DirectoryLock;
import io.junction.json.JoinSpecException;
import io.junction.json.JoinSpecJson;
import io.junction.metrics.KeyState;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.tools.JunctionCli;
import io.junction.tools.replay.Replay;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code junction inspect SPEC ROOT --side S --key JSON}: what a durable state root holds of one join key
 * (docs/SEMANTICS.md 14), offline. The root is never written: it is copied (under its lock, when it has one, so that
 * no engine starts on it meanwhile) and the copy is opened as an engine restores it (a clean close's state, else the
 * newest complete checkpoint), asked with {@code JoinEngine.inspection().inspect}, closed and deleted. A root that a running
 * engine holds is refused.
 */
@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description = {
        "Lists what a durable state root holds of one join key, offline (docs/SEMANTICS.md, \"Asking a running engine\").",
        "ROOT is an engine's state root (the directory with its ENGINE file) or a durable replay's --state directory. "
            + "The root is copied and the copy restored as an engine would restore it; the root itself is never written, "
            + "and one that a running engine holds is refused. Prints one JSON object: the key's rows per side with their "
            + "partition, ts, match count and due time."},
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
        "0:the key's state was printed (no rows for a key the root holds nothing of)",
        "1:a file could not be read or copied",
        "2:an option, the key or the join spec was rejected",
        "4:the root is no state root, is held by a running engine, or its state cannot be restored"})
public final class InspectCommand implements Callable<Integer>
{
    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SPEC.join.json", description = "the join spec the state was written with")
    private Path specFile;

    @Parameters(index = "1", paramLabel = "ROOT", description = "the state root, or a durable replay's --state directory")
    private Path root;

    @Option(names = "--side", required = true, paramLabel = "left|right", description = "the side the key's fields are named for")
    private String side;

    @Option(names = "--key", required = true, paramLabel = "JSON",
        description = "the key: a JSON object of that side's key fields, such as {\"log_id\": \"1\"}")
    private String key;

    @Option(names = "--events", paramLabel = "EVENTS.events.jsonl",
        description = "the event log a durable replay ran, whose rows' field names its state was written with; not needed "
            + "when the spec declares a schema")
    private Path eventsFile;

    @Option(names = "--partitions", paramLabel = "P",
        description = "the partitions the state was written with (default: ${DEFAULT-VALUE})")
    private int partitions = EngineConfig.defaultPartitions();

    @Option(names = "--max-keys", paramLabel = "N", description = "the key capacity per partition it was written with (default: ${DEFAULT-VALUE})")
    private long maxKeys = Replay.MAX_KEYS_DEFAULT;

    @Option(names = "--cap", paramLabel = "N", description = "the most rows listed per side, 1 to 10000 (default: ${DEFAULT-VALUE})")
    private int cap = 100;

    @Override
    public Integer call()
    {
        final PrintWriter err = spec.commandLine().getErr();
        if (partitions < 1 || partitions > ReplayCommand.MAX_PARTITIONS)
        {
            throw new ParameterException(spec.commandLine(), "--partitions must be in [1, " + ReplayCommand.MAX_PARTITIONS + "], got " + partitions);
        }
        if (cap < 1 || cap > 10_000)
        {
            throw new ParameterException(spec.commandLine(), "--cap must be in [1, 10000], got " + cap);
        }
        final Side keySide = side(side);
        final Row keyRow = keyRow(key);
        final JoinSpecJson.Parsed joinSpec;
        try
        {
            joinSpec = JoinSpecJson.read(specFile);
        }
        catch (final JoinSpecException e)
        {
            return fail(err, ReplayCommand.EXIT_SPEC, "rejected join spec " + specFile + ": " + e.getMessage());
        }
        catch (final IOException e)
        {
            return fail(err, ReplayCommand.EXIT_IO, "cannot read join spec " + specFile + ": " + JunctionCli.describe(e));
        }
        final Path engineRoot = engineRoot(root);
        if (engineRoot == null)
        {
            return fail(err, JunctionCli.EXIT_STATE, root + " is no Junction state root: it has no ENGINE file (nor has " +
                root.resolve("engine") + ", a durable replay's)");
        }
        final Path copy;
        try
        {
            copy = copyUnderLock(engineRoot);
        }
        catch (final CliError e)
        {
            return fail(err, e.exitCode(), e.getMessage());
        }
        catch (final IOException | UncheckedIOException e)
        {
            return fail(err, ReplayCommand.EXIT_IO, "cannot copy " + engineRoot + ": " + e.getMessage());
        }
        try
        {
            final EngineConfig config = ReplayCommand.withSystemProperties(Replay.config(partitions), maxKeys).withStateRoot(copy);
            final JoinSpec join;
            try
            {
                join = eventsFile == null ? joinSpec.spec() : joinSpec.spec(Replay.schema(joinSpec, Replay.events(eventsFile),
                    config.slotCapacity()));
            }
            catch (final IOException e)
            {
                return fail(err, ReplayCommand.EXIT_IO, "cannot read event log " + eventsFile + ": " + JunctionCli.describe(e));
            }
            final KeyState state;
            try (JoinEngine engine = JoinEngine.builder(join).config(config)
                .resultHandler((kind, left, right, ts, step) -> { }).start())
            {
                state = engine.inspection().inspect(keySide, keyRow, cap);
            }
            catch (final IllegalArgumentException e)
            {
                return fail(err, ReplayCommand.EXIT_SPEC, e.getMessage());
            }
            catch (final RuntimeException e)
            {
                return fail(err, JunctionCli.EXIT_STATE, "cannot restore the state of " + engineRoot + ": " + e.getMessage() +
                    (eventsFile == null && joinSpec.schema() == null ? " (a spec without a schema: give the log the state was "
                        + "replayed from, --events, so that its rows' fields are the ones it was written with)" : ""));
            }
            final PrintWriter out = spec.commandLine().getOut();
            out.println(state.toJson());
            out.flush();
            return ReplayCommand.EXIT_OK;
        }
        finally
        {
            deleteQuietly(copy);
        }
    }

    private Side side(final String name)
    {
        if ("left".equalsIgnoreCase(name))
        {
            return Side.LEFT;
        }
        if ("right".equalsIgnoreCase(name))
        {
            return Side.RIGHT;
        }
        throw new ParameterException(spec.commandLine(), "--side must be left or right, got " + name);
    }

    /** @return the key as a row: a JSON object of scalars, numbers as the replay format reads them. */
    private Row keyRow(final String text)
    {
        final JsonNode node;
        try
        {
            node = JSON.readTree(text);
        }
        catch (final JsonProcessingException e)
        {
            throw new ParameterException(spec.commandLine(), "--key is not JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject())
        {
            throw new ParameterException(spec.commandLine(), "--key must be a JSON object such as {\"id\": 1}, got " + text);
        }
        final Map<String, Object> fields = new LinkedHashMap<>();
        for (final Map.Entry<String, JsonNode> e : node.properties())
        {
            final JsonNode v = e.getValue();
            if (v.isContainerNode())
            {
                throw new ParameterException(spec.commandLine(), "--key: the value of '" + e.getKey() + "' must be a scalar, got " + v);
            }
            fields.put(e.getKey(), v.isNull() ? null : v.isTextual() ? v.textValue() : v.isBoolean() ? v.booleanValue()
                : v.canConvertToExactIntegral() && v.canConvertToLong() ? v.longValue() : v.doubleValue());
        }
        return Row.of(fields);
    }

    /** @return the root of an engine's state: ROOT itself, or a durable replay directory's {@code engine}; null for neither. */
    private static Path engineRoot(final Path dir)
    {
        if (Files.isRegularFile(dir.resolve("ENGINE")))
        {
            return dir;
        }
        final Path replay = dir.resolve("engine");
        return Files.isRegularFile(replay.resolve("ENGINE")) ? replay : null;
    }

    /**
     * Copies a state root but its lock file into a new temporary directory. When the root has a lock file, its lock
     * is held through the copy (refused while an engine holds it); a root without one has no engine on it, and no
     * lock file is made in it: nothing of the root changes.
     */
    private static Path copyUnderLock(final Path engineRoot) throws IOException
    {
        final boolean hasLock = Files.exists(engineRoot.resolve(DirectoryLock.FILE_NAME));
        DirectoryLock lock = null;
        if (hasLock)
        {
            try
            {
                lock = DirectoryLock.acquire(engineRoot, "the state root");
            }
            catch (final IOException e)
            {
                throw new CliError(JunctionCli.EXIT_STATE, e.getMessage() + " (not inspected)");
            }
        }
        final Path copy = Files.createTempDirectory("junction-inspect");
        try (Stream<Path> walk = Files.walk(engineRoot))
        {
            for (final Path path : (Iterable<Path>) walk::iterator)
            {
                final Path target = copy.resolve(engineRoot.relativize(path).toString());
                if (Files.isDirectory(path))
                {
                    Files.createDirectories(target);
                }
                else if (!path.getFileName().toString().equals(DirectoryLock.FILE_NAME))
                {
                    Files.copy(path, target);
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            deleteQuietly(copy);
            throw e;
        }
        finally
        {
            if (lock != null)
            {
                lock.close();
            }
        }
        return copy;
    }

    private static void deleteQuietly(final Path dir)
    {
        if (dir == null || !Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir))
        {
            final List<Path> paths = new ArrayList<>(walk.toList());
            Collections.reverse(paths);
            for (final Path path : paths)
            {
                Files.deleteIfExists(path);
            }
        }
        catch (final IOException | UncheckedIOException e)
        {
            // a temporary copy: the OS's temporary directory is cleaned in the end
        }
    }

    private static int fail(final PrintWriter err, final int code, final String message)
    {
        err.println("junction inspect: " + message);
        err.flush();
        return code;
    }
}
