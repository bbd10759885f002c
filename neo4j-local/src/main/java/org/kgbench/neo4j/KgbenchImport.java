package org.kgbench.neo4j;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.neo4j.batchimport.api.InputIterable;
import org.neo4j.batchimport.api.InputIterator;
import org.neo4j.batchimport.api.input.Collector;
import org.neo4j.batchimport.api.input.IdType;
import org.neo4j.batchimport.api.input.Input;
import org.neo4j.batchimport.api.input.InputChunk;
import org.neo4j.batchimport.api.input.InputEntityVisitor;
import org.neo4j.batchimport.api.input.PropertySizeCalculator;
import org.neo4j.batchimport.api.input.ReadableGroups;
import org.neo4j.cli.ExecutionContext;
import org.neo4j.configuration.Config;
import org.neo4j.importer.ImportCommand;
import org.neo4j.io.fs.FileSystemAbstraction;
import org.neo4j.io.layout.DatabaseLayout;
import org.neo4j.io.pagecache.context.CursorContextFactory;
import org.neo4j.io.pagecache.tracing.PageCacheTracer;
import org.neo4j.logging.InternalLogProvider;
import org.neo4j.logging.internal.LogService;
import org.neo4j.memory.MemoryTracker;
import org.neo4j.scheduler.JobScheduler;
import picocli.CommandLine;

/**
 * {@code neo4j-admin database import full} with one addition: empty lists.
 *
 * <p>Neo4j's CSV importer drops empty array fields (an empty list cannot be written in its CSV
 * syntax, and {@code [""]} reads as empty), while kgbench's Bolt loader stores {@code []} for an
 * entity without aliases or provenance. This command runs the stock import command unchanged
 * except that it wraps the importer's input: a string-array column named {@value #MARKER} lists,
 * per entity, the properties to store as empty lists ({@code key}) or as a list of one empty
 * string ({@code key=}); the column itself is not stored.
 *
 * <p>Usage: {@code java -cp target/kgbench-neo4j-local.jar:target/lib/* org.kgbench.neo4j.KgbenchImport HOME CONF
 * [import full options...] DATABASE} — HOME is the server's data directory ({@code NEO4J_HOME}),
 * CONF a directory with a {@code neo4j.conf}. Exit code as {@code neo4j-admin}.
 */
public final class KgbenchImport {
  /** Column carrying the empty-list properties of an entity (not a valid kgbench property). */
  public static final String MARKER = "kgbench-empty-lists";

  private static final String[] EMPTY = new String[0];
  private static final String[] ONE_EMPTY = new String[] {""};

  private KgbenchImport() {}

  public static void main(String[] args) {
    if (args.length < 2) {
      System.err.println("usage: KgbenchImport HOME CONF [import full options...] DATABASE");
      System.exit(2);
    }
    String[] rest = new String[args.length - 2];
    System.arraycopy(args, 2, rest, 0, rest.length);
    System.exit(run(Path.of(args[0]), Path.of(args[1]), rest, System.out, System.err));
  }

  /**
   * Runs the import in this JVM (used by {@link LocalNeo4jServer} {@code --import-args}).
   *
   * @param home the server's data directory ({@code NEO4J_HOME})
   * @param conf a directory with a {@code neo4j.conf}
   * @param args {@code import full} options followed by the database name
   * @return the exit code {@code neo4j-admin} would give (0 on success)
   */
  public static int run(Path home, Path conf, String[] args, PrintStream out, PrintStream err) {
    ExecutionContext ctx = new ExecutionContext(home.toAbsolutePath(), conf.toAbsolutePath());
    return new CommandLine(new FullWithEmptyLists(ctx))
        .setOut(new java.io.PrintWriter(out, true))
        .setErr(new java.io.PrintWriter(err, true))
        .execute(args);
  }

  /** The stock full import with its input wrapped by {@link EmptyListInput}. */
  @CommandLine.Command(name = "full", description = "full import with kgbench empty lists")
  static final class FullWithEmptyLists extends ImportCommand.Full {
    FullWithEmptyLists(ExecutionContext ctx) {
      super(ctx);
    }

    /** No parent {@code import} command here: Community features only. */
    @Override
    public boolean allowEnterpriseFeatures() {
      return false;
    }

    @Override
    protected void doImport(
        FileSystemAbstraction fs,
        DatabaseLayout layout,
        Config config,
        JobScheduler scheduler,
        InternalLogProvider logProvider,
        PageCacheTracer tracer,
        CursorContextFactory contextFactory,
        org.neo4j.batchimport.api.Configuration importConfig,
        LogService logService,
        PrintStream out,
        PrintStream err,
        boolean verbose,
        Collector collector,
        MemoryTracker memoryTracker,
        Input input)
        throws IOException {
      super.doImport(
          fs,
          layout,
          config,
          scheduler,
          logProvider,
          tracer,
          contextFactory,
          importConfig,
          logService,
          out,
          err,
          verbose,
          collector,
          memoryTracker,
          new EmptyListInput(input));
    }
  }

  /** Delegates everything; nodes and relationships pass through {@link MarkerVisitor}. */
  static final class EmptyListInput implements Input {
    private final Input inner;

    EmptyListInput(Input inner) {
      this.inner = inner;
    }

    @Override
    public InputIterable nodes(Collector collector) {
      return wrap(inner.nodes(collector));
    }

    @Override
    public InputIterable relationships(Collector collector) {
      return wrap(inner.relationships(collector));
    }

    @Override
    public IdType idType() {
      return inner.idType();
    }

    @Override
    public ReadableGroups groups() {
      return inner.groups();
    }

    @Override
    public Estimates validateAndEstimate(PropertySizeCalculator calculator) throws IOException {
      return inner.validateAndEstimate(calculator);
    }

    @Override
    public java.util.Map<String, org.neo4j.internal.schema.SchemaDescriptor> referencedNodeSchema(
        org.neo4j.token.TokenHolders tokenHolders) {
      return inner.referencedNodeSchema(tokenHolders);
    }

    @Override
    public java.util.List<org.neo4j.internal.schema.SchemaCommand> schemaCommands() {
      return inner.schemaCommands();
    }

    @Override
    public org.neo4j.internal.schema.SchemaTokens schemaTokens() {
      return inner.schemaTokens();
    }

    @Override
    public void close() {
      inner.close();
    }

    private static InputIterable wrap(InputIterable iterable) {
      return () -> {
        InputIterator it = iterable.iterator();
        return new InputIterator() {
          @Override
          public InputChunk newChunk() {
            return new Chunk(it.newChunk());
          }

          @Override
          public boolean next(InputChunk chunk) throws IOException {
            return it.next(((Chunk) chunk).inner);
          }

          @Override
          public void close() throws IOException {
            it.close();
          }
        };
      };
    }
  }

  /** A chunk whose entities are visited through a {@link MarkerVisitor}. */
  static final class Chunk implements InputChunk {
    final InputChunk inner;
    private InputEntityVisitor lastVisitor;
    private MarkerVisitor marker;

    Chunk(InputChunk inner) {
      this.inner = inner;
    }

    @Override
    public boolean next(InputEntityVisitor visitor) throws IOException {
      if (visitor != lastVisitor) { // the importer passes the same visitor for a whole chunk
        lastVisitor = visitor;
        marker = new MarkerVisitor(visitor);
      }
      return inner.next(marker);
    }

    @Override
    public void close() throws IOException {
      inner.close();
    }
  }

  /** Turns the {@value #MARKER} property into the empty-list properties it names. */
  static final class MarkerVisitor extends InputEntityVisitor.Delegate {
    MarkerVisitor(InputEntityVisitor actual) {
      super(actual);
    }

    @Override
    public boolean property(String key, Object value) {
      if (!MARKER.equals(key)) {
        return super.property(key, value);
      }
      if (value instanceof String[] names) {
        for (String name : names) {
          if (name.endsWith("=")) {
            super.property(name.substring(0, name.length() - 1), ONE_EMPTY.clone());
          } else {
            super.property(name, EMPTY);
          }
        }
      }
      return true;
    }

    @Override
    public boolean properties(ByteBuffer properties, boolean offloaded) {
      return super.properties(properties, offloaded);
    }
  }
}
