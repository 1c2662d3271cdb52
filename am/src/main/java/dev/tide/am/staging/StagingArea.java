package dev.tide.am.staging;

import dev.tide.am.AmOptions;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.ClassUtil;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.URL;

/**
 * One application's directory in the staging FileSystem ({@code <stagingDir>/<appId>/}): the
 * client copies the app jar and writes {@code tide-job.xml} there, and the files become the AM's
 * local resources. The directory is readable by its owner only and is deleted when the client
 * ends. Not thread-safe; used by the client's main thread.
 */
public final class StagingArea {
  private static final FsPermission OWNER_ONLY = new FsPermission((short) 0700);
  private static final FsPermission OWNER_FILE = new FsPermission((short) 0600);

  private final FileSystem fs;
  private final Path dir;
  private final Map<String, LocalResource> resources = new LinkedHashMap<>();

  private StagingArea(FileSystem fs, Path dir) {
    this.fs = fs;
    this.dir = dir;
  }

  /** Creates {@code <stagingRoot>/<appId>/}. */
  public static StagingArea create(FileSystem fs, Path stagingRoot, String appId)
      throws IOException {
    Path dir = fs.makeQualified(new Path(stagingRoot, appId));
    if (!fs.mkdirs(dir, OWNER_ONLY)) {
      throw new IOException("cannot create staging directory " + dir);
    }
    fs.setPermission(dir, OWNER_ONLY);
    return new StagingArea(fs, dir);
  }

  public Path dir() {
    return dir;
  }

  /** Copies a local file in as {@code name}; returns its qualified path. */
  public Path copyIn(File local, String name) throws IOException {
    Path target = new Path(dir, name);
    fs.copyFromLocalFile(false, true, new Path(local.getAbsolutePath()), target);
    fs.setPermission(target, OWNER_FILE);
    return register(name, target, LocalResourceType.FILE);
  }

  /**
   * Copies {@code source} (a file or a directory, on any FileSystem) in as {@code stagedName}
   * (a path relative to this directory), to be localized as {@code linkName}; returns its
   * qualified path.
   */
  public Path copyIn(FileSystem sourceFs, Path source, String stagedName, String linkName,
      LocalResourceType type) throws IOException {
    Path target = new Path(dir, stagedName);
    if (!FileUtil.copy(sourceFs, source, fs, target, false, true, fs.getConf())) {
      throw new IOException("cannot copy " + source + " to " + target);
    }
    return register(linkName, target, type);
  }

  /** Writes {@code conf} as XML under {@code name}; returns its qualified path. */
  public Path writeConf(Configuration conf, String name) throws IOException {
    Path target = new Path(dir, name);
    try (OutputStream out = fs.create(target, true)) {
      conf.writeXml(out);
    }
    fs.setPermission(target, OWNER_FILE);
    return register(name, target, LocalResourceType.FILE);
  }

  /** The staged files as local resources, keyed by their name in the container. */
  public Map<String, LocalResource> localResources() {
    return Map.copyOf(resources);
  }

  /** Deletes the directory; returns false if it could not. */
  public boolean delete() throws IOException {
    return fs.delete(dir, true);
  }

  private Path register(String name, Path target, LocalResourceType type) throws IOException {
    FileStatus status = fs.getFileStatus(target);
    resources.put(name, localResource(status, type));
    return status.getPath();
  }

  /** A file of an application, to be localized for its containers only. */
  static LocalResource localResource(FileStatus status, LocalResourceType type) {
    return LocalResource.newInstance(URL.fromPath(status.getPath()), type,
        LocalResourceVisibility.APPLICATION, status.getLen(), status.getModificationTime());
  }

  /**
   * The jar {@code type} was loaded from. Under {@code yarn jar} (Hadoop's RunJar) classes load
   * from an unpacked copy of the jar, with the jar itself next on the class loader's path: the
   * jar is found there, as MapReduce's {@code setJarByClass} finds it ({@link ClassUtil}).
   *
   * @throws IOException when it was loaded from a class directory, with the setting to use
   */
  public static File jarOf(Class<?> type) throws IOException {
    String jar = ClassUtil.findContainingJar(type);
    if (jar == null) {
      Object location = type.getProtectionDomain().getCodeSource() == null ? "(unknown)"
          : type.getProtectionDomain().getCodeSource().getLocation();
      throw new IOException(type.getName() + " was loaded from " + location + ", not a jar;"
          + " build the app jar or set " + AmOptions.CONTAINER_CLASSPATH.key());
    }
    return new File(jar);
  }
}
