package dev.tide.am.staging;

import dev.tide.am.AmOptions;
import dev.tide.app.UserClassLoader;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;

/**
 * The user's own jars, files and archives of one submission: the {@code --jar}, and what
 * Hadoop's generic options {@code -libjars}, {@code -files} and {@code -archives} recorded as
 * {@code tmpjars}, {@code tmpfiles} and {@code tmparchives}. Each lands in the working directory
 * of the AM and of every executor under its link name (the URI's {@code #fragment}, else its file
 * name); archives are unpacked into a directory of that name, as MapReduce does; the jars (the
 * {@code --jar} first, then {@code -libjars} in order) make the application's
 * {@link UserClassLoader}.
 *
 * <p>The client copies each into the staging directory ({@link #stage}) and lists them in
 * {@code tide-job.xml} under {@link #STAGED_KEY}; the AM turns that list back into local
 * resources for its executors ({@link #stagedResources}). Stateless.
 */
public final class UserResources {
  /**
   * Set by the client in tide-job.xml, never by users: the staged user resources, comma
   * separated, each {@code TYPE:linkName:percent-encoded path}.
   */
  public static final String STAGED_KEY = "tide.yarn.internal.userResources";

  /** Where a resource came from on the command line. */
  public enum Kind {
    JAR(null, LocalResourceType.FILE),
    LIBJAR("tmpjars", LocalResourceType.FILE),
    FILE("tmpfiles", LocalResourceType.FILE),
    ARCHIVE("tmparchives", LocalResourceType.ARCHIVE);

    private final String confKey;
    private final LocalResourceType type;

    Kind(String confKey, LocalResourceType type) {
      this.confKey = confKey;
      this.type = type;
    }

    boolean onClasspath() {
      return this == JAR || this == LIBJAR;
    }
  }

  /** One of the user's resources as given on the command line. */
  public record Resource(Kind kind, URI source, String linkName) {}

  private UserResources() {}

  /** The URIs that generic options recorded for {@code kind} (not for {@link Kind#JAR}). */
  public static List<URI> uris(Configuration conf, Kind kind) throws BadResourceException {
    List<URI> uris = new ArrayList<>();
    for (String text : conf.getTrimmedStrings(kind.confKey)) {
      try {
        uris.add(new URI(text));
      } catch (URISyntaxException e) {
        throw new BadResourceException("bad " + kind.confKey + " entry '" + text + "': "
            + e.getMessage());
      }
    }
    return uris;
  }

  /**
   * Every resource of the submission, the jars in classpath order.
   *
   * @throws BadResourceException when two resources would have the same link name, or one has a
   *     name Tide uses itself or that cannot be a file name in a container
   */
  public static List<Resource> of(Configuration conf, Optional<String> jar)
      throws BadResourceException {
    List<Resource> resources = new ArrayList<>();
    if (jar.isPresent()) {
      URI uri = new File(jar.get()).getAbsoluteFile().toURI();
      resources.add(new Resource(Kind.JAR, uri, linkName(uri)));
    }
    for (Kind kind : List.of(Kind.LIBJAR, Kind.FILE, Kind.ARCHIVE)) {
      for (URI uri : uris(conf, kind)) {
        resources.add(new Resource(kind, uri, linkName(uri)));
      }
    }
    Set<String> names = new HashSet<>(Set.of(ContainerCommands.APP_JAR,
        ContainerCommands.JOB_CONF));
    for (Resource r : resources) {
      String name = r.linkName();
      if (name.isEmpty() || name.equals(".") || name.equals("..") || name.contains("/")
          || name.contains(",") || name.contains(":")) {
        throw new BadResourceException("'" + name + "' (from " + r.source() + ") cannot be a file"
            + " name in a container; name it with #name");
      }
      if (!names.add(name)) {
        throw new BadResourceException("two resources would be named '" + name + "' in the"
            + " container (the second from " + r.source() + "); rename one with #name");
      }
    }
    return resources;
  }

  private static String linkName(URI uri) {
    if (uri.getFragment() != null) {
      return uri.getFragment();
    }
    return new Path(uri.getPath()).getName();
  }

  /**
   * Copies every resource into the staging directory (each under {@code user/<linkName>/},
   * keeping its file name so that YARN recognizes an archive's format), and records them in
   * {@code jobConf}: {@link #STAGED_KEY} for the AM, {@link UserClassLoader#USER_JARS_KEY}
   * for the class loaders.
   */
  public static void stage(List<Resource> resources, StagingArea staging, Configuration conf,
      Configuration jobConf) throws IOException {
    List<String> staged = new ArrayList<>();
    List<String> jars = new ArrayList<>();
    for (Resource r : resources) {
      Path source = new Path(withoutFragment(r.source()));
      String stagedName = "user/" + r.linkName() + "/" + source.getName();
      Path path = staging.copyIn(source.getFileSystem(conf), source, stagedName, r.linkName(),
          r.kind().type);
      staged.add(r.kind().type.name() + ":" + r.linkName() + ":"
          + URLEncoder.encode(path.toString(), StandardCharsets.UTF_8));
      if (r.kind().onClasspath()) {
        jars.add(r.linkName());
      }
    }
    jobConf.set(STAGED_KEY, String.join(",", staged));
    jobConf.set(UserClassLoader.USER_JARS_KEY, String.join(",", jars));
  }

  private static URI withoutFragment(URI uri) {
    try {
      return new URI(uri.getScheme(), uri.getAuthority(), uri.getPath(), null, null);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("bad resource URI " + uri, e);
    }
  }

  /**
   * The AM's view: the app jar (when the client staged one) and the user's resources, as local
   * resources for executor containers, keyed by their link name.
   */
  public static Map<String, LocalResource> stagedResources(Configuration conf)
      throws IOException {
    Map<String, LocalResource> resources = new LinkedHashMap<>();
    String appJar = conf.getTrimmed(AmOptions.STAGED_JAR_KEY, "");
    if (!appJar.isEmpty()) {
      resources.put(ContainerCommands.APP_JAR,
          localResource(new Path(appJar), LocalResourceType.FILE, conf));
    }
    for (String entry : conf.getTrimmedStrings(STAGED_KEY)) {
      String[] parts = entry.split(":", 3);
      if (parts.length != 3) {
        throw new IOException("bad " + STAGED_KEY + " entry '" + entry + "'");
      }
      Path path = new Path(URLDecoder.decode(parts[2], StandardCharsets.UTF_8));
      resources.put(parts[1], localResource(path, LocalResourceType.valueOf(parts[0]), conf));
    }
    return resources;
  }

  private static LocalResource localResource(Path path, LocalResourceType type,
      Configuration conf) throws IOException {
    FileStatus status = path.getFileSystem(conf).getFileStatus(path);
    return StagingArea.localResource(status, type);
  }
}
