package dev.tide.am.security;

import dev.tide.am.AmOptions;
import dev.tide.driver.conf.TideOptions;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.security.token.TokenIdentifier;
import org.apache.hadoop.security.token.delegation.AbstractDelegationTokenIdentifier;
import org.apache.hadoop.yarn.security.AMRMTokenIdentifier;

/**
 * The delegation tokens of an application on a Kerberized cluster: which FileSystems a job
 * touches, obtaining their tokens, and the tokens an executor gets. Used by the client (at
 * submission) and the ApplicationMaster (when it obtains fresh ones from a keytab). Stateless.
 */
public final class DelegationTokens {
  private DelegationTokens() {}

  /**
   * The FileSystems the application uses: the default one (staging, job input and output
   * without a scheme), the event log's, every job argument that is a URI of a FileSystem
   * ({@code hdfs://nn2:8020/in}), and {@code tide.kerberos.access.hadoopFileSystems}. Local
   * ({@code file:}) ones need no token and are left out.
   *
   * @throws IllegalArgumentException naming a malformed URI of the setting
   */
  public static Set<URI> fileSystems(Configuration conf, Collection<String> jobArgs) {
    Set<URI> uris = new LinkedHashSet<>();
    uris.add(FileSystem.getDefaultUri(conf));
    String eventLog = TideOptions.EVENT_LOG_DIR.get(conf);
    if (TideOptions.EVENT_LOG_ENABLED.get(conf) && !eventLog.isEmpty()) {
      filesystemOf(eventLog, conf).ifPresent(uris::add);
    }
    for (String arg : jobArgs) {
      if (arg.contains("://")) {
        filesystemOf(arg, conf).ifPresent(uris::add);
      }
    }
    for (String entry : conf.getTrimmedStrings(AmOptions.KERBEROS_FILESYSTEMS.key())) {
      try {
        URI uri = new URI(entry);
        if (uri.getScheme() == null) {
          throw new URISyntaxException(entry, "no scheme");
        }
        uris.add(root(uri));
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException(AmOptions.KERBEROS_FILESYSTEMS.key() + ": '" + entry
            + "' is not a FileSystem URI such as hdfs://namenode:8020 (" + e.getMessage() + ")");
      }
    }
    uris.removeIf(u -> "file".equals(u.getScheme()));
    return uris;
  }

  /** The FileSystem root of a path or URI; empty for text that is no path of a FileSystem. */
  private static Optional<URI> filesystemOf(String path, Configuration conf) {
    try {
      URI uri = new Path(path).toUri();
      if (uri.getScheme() == null) {
        return Optional.of(FileSystem.getDefaultUri(conf));
      }
      FileSystem.getFileSystemClass(uri.getScheme(), conf);
      return Optional.of(root(uri));
    } catch (IllegalArgumentException | IOException e) {
      return Optional.empty(); // a job argument that only looks like a URI
    }
  }

  private static URI root(URI uri) {
    return URI.create(uri.getScheme() + "://" + (uri.getAuthority() == null ? ""
        : uri.getAuthority()) + "/");
  }

  /**
   * Adds to {@code credentials} a token for each of {@code filesystems} it does not hold yet,
   * with {@code renewer} as the renewer.
   *
   * @return the tokens added
   * @throws IOException naming the FileSystem whose token could not be obtained
   */
  public static List<Token<?>> obtain(Configuration conf, String renewer,
      Collection<URI> filesystems, Credentials credentials) throws IOException {
    List<Token<?>> added = new ArrayList<>();
    for (URI uri : filesystems) {
      try {
        Token<?>[] tokens = FileSystem.get(uri, conf).addDelegationTokens(renewer, credentials);
        if (tokens != null) {
          added.addAll(List.of(tokens));
        }
      } catch (IOException e) {
        throw new IOException("cannot get a delegation token for " + uri + " (renewer "
            + renewer + "): " + oneLine(e), e);
      }
    }
    return added;
  }

  /**
   * The credentials an executor gets: the tokens of {@code source} but YARN's AMRM token (which
   * lets its holder act as the ApplicationMaster), and its secret keys (the application
   * secret).
   */
  public static Credentials forExecutors(Credentials source) {
    Credentials executor = new Credentials();
    for (Token<? extends TokenIdentifier> token : source.getAllTokens()) {
      if (!AMRMTokenIdentifier.KIND_NAME.equals(token.getKind())) {
        executor.addToken(token.getService(), token);
      }
    }
    for (org.apache.hadoop.io.Text alias : source.getAllSecretKeys()) {
      executor.addSecretKey(alias, source.getSecretKey(alias));
    }
    return executor;
  }

  /**
   * The earliest maximum date (epoch ms) of the delegation tokens in {@code credentials}: after
   * it none of them can be renewed any more. Empty when none carries a maximum date.
   */
  public static Optional<Long> earliestMaxDate(Credentials credentials) {
    long earliest = Long.MAX_VALUE;
    for (Token<? extends TokenIdentifier> token : credentials.getAllTokens()) {
      Optional<AbstractDelegationTokenIdentifier> id = identifier(token);
      if (id.isPresent() && id.get().getMaxDate() > 0) {
        earliest = Math.min(earliest, id.get().getMaxDate());
      }
    }
    return earliest == Long.MAX_VALUE ? Optional.empty() : Optional.of(earliest);
  }

  /** A delegation token's identifier, when it is one Hadoop can decode. */
  public static Optional<AbstractDelegationTokenIdentifier> identifier(Token<?> token) {
    try {
      TokenIdentifier id = token.decodeIdentifier();
      return id instanceof AbstractDelegationTokenIdentifier d ? Optional.of(d)
          : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** {@code KIND for service} of each token, for logs and events. */
  public static List<String> describe(Collection<Token<?>> tokens) {
    List<String> names = new ArrayList<>();
    for (Token<?> token : tokens) {
      names.add(token.getKind() + " for " + token.getService());
    }
    return names;
  }

  /** The first line of an exception's message, without Hadoop's wiki links. */
  static String oneLine(Throwable e) {
    String message = e.getMessage() == null ? e.toString() : e.getMessage();
    int newline = message.indexOf('\n');
    return (newline < 0 ? message : message.substring(0, newline)).trim();
  }
}
