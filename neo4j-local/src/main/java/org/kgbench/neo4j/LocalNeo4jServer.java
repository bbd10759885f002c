package org.kgbench.neo4j;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;

/**
 * kgbench's local Neo4j: Neo4j Community (embedded) with a Bolt connector.
 *
 * <p>Usage: {@code java -cp target/kgbench-neo4j-local.jar:target/lib/* org.kgbench.neo4j.LocalNeo4jServer
 * --data DIR --port N [--host 127.0.0.1] [--pagecache 1g] [--conf key=value]... [--exit-on-stdin-eof]
 * [--import-conf DIR --import-args FILE]}
 *
 * <p>With {@code --import-args}, the database is first replaced by an offline import in this JVM
 * ({@link KgbenchImport}, i.e. {@code neo4j-admin database import full} with kgbench's empty
 * lists): FILE holds the import options, one per line, the last line being the database name;
 * {@code --import-conf} is the directory of the import's {@code neo4j.conf}. The import tool's
 * output goes to stdout/stderr; on success {@code kgbench-neo4j imported SECONDS} is printed and
 * the DBMS starts on the imported store (one JVM: its classes and compiled code are reused). A
 * failed import prints {@code kgbench-neo4j import failed: exit N} on stderr and exits with
 * code {@value #IMPORT_FAILED} without starting the DBMS (the caller removes the partial store).
 *
 * <p>Authentication is disabled: the server listens on the loopback interface only and is meant for
 * development, tests and local benchmarks. When the default database answers a query, one line
 * {@code kgbench-neo4j ready bolt://HOST:PORT} is printed on stdout. SIGTERM (or stdin reaching
 * end-of-file with {@code --exit-on-stdin-eof}) shuts the database down cleanly; the process then
 * prints {@code kgbench-neo4j stopped} and exits 0. Start-up failures print {@code kgbench-neo4j
 * failed: MESSAGE} on stderr and exit 1. Heap size is set with the JVM's {@code -Xmx}.
 */
public final class LocalNeo4jServer {
  /** Exit code of a failed {@code --import-args} import. */
  public static final int IMPORT_FAILED = 3;

  private LocalNeo4jServer() {}

  private static String usage() {
    return "usage: LocalNeo4jServer --data DIR --port N [--host 127.0.0.1] [--pagecache SIZE]"
        + " [--conf key=value]... [--exit-on-stdin-eof] [--import-conf DIR --import-args FILE]";
  }

  public static void main(String[] args) throws InterruptedException {
    String data = null;
    String host = "127.0.0.1";
    int port = -1;
    String pagecache = null;
    boolean exitOnEof = false;
    String importConf = null;
    String importArgs = null;
    Map<String, String> raw = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      boolean hasValue = i + 1 < args.length;
      switch (a) {
        case "--data" -> data = hasValue ? args[++i] : null;
        case "--host" -> host = hasValue ? args[++i] : host;
        case "--port" -> port = hasValue ? Integer.parseInt(args[++i]) : -1;
        case "--pagecache" -> pagecache = hasValue ? args[++i] : null;
        case "--conf" -> {
          String kv = hasValue ? args[++i] : "";
          int eq = kv.indexOf('=');
          if (eq <= 0) {
            fail("--conf expects key=value, got '" + kv + "'");
          }
          raw.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        case "--exit-on-stdin-eof" -> exitOnEof = true;
        case "--import-conf" -> importConf = hasValue ? args[++i] : null;
        case "--import-args" -> importArgs = hasValue ? args[++i] : null;
        default -> fail("unknown argument '" + a + "'; " + usage());
      }
    }
    if (data == null || port < 0 || port > 65535 || (importArgs == null) != (importConf == null)) {
      fail(usage());
    }
    if (importArgs != null) {
      runImport(Path.of(data), Path.of(importConf), Path.of(importArgs));
    }

    DatabaseManagementServiceBuilder builder =
        new DatabaseManagementServiceBuilder(Path.of(data).toAbsolutePath())
            .setConfig(BoltConnector.enabled, true)
            .setConfig(BoltConnector.listen_address, new SocketAddress(host, port))
            .setConfig(BoltConnector.advertised_address, new SocketAddress(host, port))
            .setConfig(GraphDatabaseSettings.auth_enabled, false);
    if (pagecache != null) {
      raw.put("server.memory.pagecache.size", pagecache);
    }
    if (!raw.isEmpty()) {
      // The builder reads extra settings only from a properties file: write one in the data dir.
      Path conf = Path.of(data).toAbsolutePath().resolve("kgbench-neo4j.conf");
      StringBuilder text = new StringBuilder();
      raw.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
      try {
        Files.createDirectories(conf.getParent());
        Files.writeString(conf, text.toString(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        fail("cannot write " + conf + ": " + e);
      }
      builder.loadPropertiesFromFile(conf);
    }

    final DatabaseManagementService service;
    try {
      service = builder.build();
      GraphDatabaseService db = service.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
      try (Transaction tx = db.beginTx()) {
        tx.execute("RETURN 1").close();
        tx.commit();
      }
    } catch (RuntimeException e) {
      fail(e.toString());
      return;
    }

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    service.shutdown();
                  } finally {
                    System.out.println("kgbench-neo4j stopped");
                    System.out.flush();
                    stopped.countDown();
                  }
                },
                "kgbench-neo4j-shutdown"));

    if (exitOnEof) {
      Thread watcher =
          new Thread(
              () -> {
                try {
                  InputStream in = System.in;
                  byte[] buf = new byte[256];
                  while (in.read(buf) >= 0) {
                    // discard input; only end-of-file matters
                  }
                } catch (IOException ignored) {
                  // treat a broken stdin like end-of-file
                }
                System.exit(0);
              },
              "kgbench-neo4j-stdin-watch");
      watcher.setDaemon(true);
      watcher.start();
    }

    System.out.println("kgbench-neo4j ready bolt://" + host + ":" + port);
    System.out.flush();
    stopped.await();
  }

  /** The offline import before the DBMS opens; exits the JVM when it fails. */
  private static void runImport(Path data, Path conf, Path argsFile) {
    String[] importArgs;
    try {
      importArgs =
          Files.readAllLines(argsFile, StandardCharsets.UTF_8).stream()
              .filter(line -> !line.isEmpty())
              .toArray(String[]::new);
    } catch (IOException e) {
      fail("cannot read " + argsFile + ": " + e);
      return;
    }
    long t0 = System.nanoTime();
    int code;
    try {
      code = KgbenchImport.run(data, conf, importArgs, System.out, System.err);
    } catch (RuntimeException e) {
      e.printStackTrace();
      code = 1;
    }
    System.out.flush();
    if (code != 0) {
      System.err.println("kgbench-neo4j import failed: exit " + code);
      System.err.flush();
      System.exit(IMPORT_FAILED);
    }
    System.out.printf(java.util.Locale.ROOT, "kgbench-neo4j imported %.3f%n", (System.nanoTime() - t0) / 1e9);
    System.out.flush();
  }

  private static void fail(String message) {
    System.err.println("kgbench-neo4j failed: " + message);
    System.err.flush();
    System.exit(1);
  }
}
