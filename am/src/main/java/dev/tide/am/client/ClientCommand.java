package dev.tide.am.client;

import dev.tide.am.AmOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.GenericOptionsParser;

/**
 * The client's command line, parsed:
 * {@code [generic options] [--jar JAR] [--detach] [--principal P --keytab K] [generic options]
 * <job> [job args...]
 * [-D key=value ...]}. Hadoop's generic options ({@code -D}, {@code -libjars}, {@code -files},
 * {@code -archives}, {@code -conf} ...) are applied to the configuration by
 * {@link GenericOptionsParser}, which records the jars, files and archives as {@code tmpjars},
 * {@code tmpfiles} and {@code tmparchives}; {@code -D} settings after the job's arguments are
 * applied too. Parsing touches no cluster.
 *
 * @param help true for {@code -h}, {@code --help} or {@code help}: print the usage, exit 0
 */
public record ClientCommand(boolean help, Optional<String> jar, boolean detach, String job,
    List<String> jobArgs) {
  public ClientCommand {
    jobArgs = List.copyOf(jobArgs);
  }

  /** A command line the client refuses; the message says why. Exit code 2. */
  public static final class UsageException extends Exception {
    public UsageException(String message) {
      super(message);
    }
  }

  /**
   * Parses {@code args}, applying settings and generic options to {@code conf}.
   *
   * @throws UsageException for a missing job, an unknown option, or a generic option Hadoop
   *     refuses (for example a {@code -libjars} or {@code -files} path that does not exist)
   */
  public static ClientCommand parse(String[] args, Configuration conf) throws UsageException {
    List<String> rest = genericOptions(Arrays.asList(args), conf);
    Optional<String> jar = Optional.empty();
    boolean detach = false;
    while (!rest.isEmpty()) {
      String head = rest.get(0);
      switch (head) {
        case "-h", "--help", "-help", "help" -> {
          return new ClientCommand(true, Optional.empty(), false, "", List.of());
        }
        case "--jar" -> {
          if (rest.size() < 2 || rest.get(1).isBlank()) {
            throw new UsageException("--jar needs the path of a jar");
          }
          jar = Optional.of(rest.get(1));
          rest = genericOptions(rest.subList(2, rest.size()), conf);
        }
        case "--principal", "--keytab" -> {
          if (rest.size() < 2 || rest.get(1).isBlank() || rest.get(1).startsWith("-")) {
            throw new UsageException(head + " needs a value");
          }
          conf.set(head.equals("--principal") ? AmOptions.KERBEROS_PRINCIPAL.key()
              : AmOptions.KERBEROS_KEYTAB.key(), rest.get(1), head);
          rest = genericOptions(rest.subList(2, rest.size()), conf);
        }
        case "--detach" -> {
          detach = true;
          rest = genericOptions(rest.subList(1, rest.size()), conf);
        }
        default -> {
          if (head.isBlank()) {
            throw new UsageException("no job given");
          }
          if (head.startsWith("-")) {
            throw new UsageException("unknown option '" + head + "'");
          }
          List<String> jobArgs =
              TideClient.takeTrailingSettings(rest.subList(1, rest.size()), conf);
          return new ClientCommand(false, jar, detach, head, jobArgs);
        }
      }
    }
    throw new UsageException("no job given");
  }

  /** Applies leading generic options to {@code conf}; returns what follows them. */
  private static List<String> genericOptions(List<String> args, Configuration conf)
      throws UsageException {
    if (args.isEmpty()) {
      return List.of();
    }
    ClassLoader contextLoader = Thread.currentThread().getContextClassLoader();
    try {
      GenericOptionsParser parser =
          new GenericOptionsParser(conf, args.toArray(new String[0]));
      if (!parser.isParseSuccessful()) {
        throw new UsageException("bad generic options in " + String.join(" ", args));
      }
      return new ArrayList<>(Arrays.asList(parser.getRemainingArgs()));
    } catch (IOException | IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    } finally {
      // -libjars makes GenericOptionsParser replace the caller's context class loader; the
      // client loads the user's classes with a loader of its own (JobPreflight).
      Thread.currentThread().setContextClassLoader(contextLoader);
    }
  }
}
