package dev.tide.it.secure;

import dev.tide.it.EmbeddedCluster;
import dev.tide.it.SharedCluster;
import dev.tide.testing.Await;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.Properties;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * A Kerberized Hadoop in this JVM: a {@link MiniKdc}, then an {@link EmbeddedCluster} (HDFS and
 * YARN with the {@code tide_shuffle} aux service) whose daemons log in from the KDC's keytab, and
 * two users with keytabs of their own ({@link #ALICE}, {@link #BOB}). One per test JVM, shared by
 * every secure test class ({@link #shared()}, as {@link SharedCluster} does for the plain
 * cluster): it starts when the first class asks, stops the JVM's {@link SharedCluster} first
 * (security is a JVM-wide setting of Hadoop's UserGroupInformation), and stops, turning security
 * off again, when the JVM exits or a class asks for the plain cluster or starts one of its own
 * ({@link SharedCluster#stop()}). Its settings are those every secure class needs at once
 * (NodeManagers that require encrypted shuffle connections, YARN's application ACLs, SPNEGO on
 * the web servers), except the NameNode's token lifetimes, which each class asks for
 * ({@link #shared(TokenLifetimes)}). See {@code integration-tests/SECURE-TESTING.md} for why each is there.
 * Classes keep their HDFS paths and event-log directories to themselves.
 */
public final class SecureCluster implements AutoCloseable {
  public static final String ALICE = "alice";
  public static final String BOB = "bob";
  /**
   * The one principal of every daemon (NameNode, DataNode, ResourceManager, NodeManagers): they
   * share the JVM, and Hadoop's login user is one per JVM (the last daemon's login wins), so
   * distinct principals would make a daemon answer with another's key.
   */
  static final String SERVICE = "hadoop/localhost";
  static final String HTTP = "HTTP/localhost";
  /** The short name of {@link #SERVICE}: HDFS's superuser and YARN's admin. */
  static final String SERVICE_USER = "hadoop";
  public static final int NODE_MANAGERS = 2;
  private static SecureCluster shared;

  /**
   * The NameNode's delegation-token lifetimes: how long a token lives unless renewed, and at
   * most (ms).
   */
  public record TokenLifetimes(long renewIntervalMillis, long maxLifetimeMillis) {
    /** Hadoop's defaults (1 day, 7 days): jobs without a keytab run as long as they need. */
    public static final TokenLifetimes HADOOP_DEFAULTS =
        new TokenLifetimes(86_400_000L, 604_800_000L);
    /** So short that a test outlives several maximum lifetimes (10 s, 30 s). */
    public static final TokenLifetimes SHORT = new TokenLifetimes(10_000, 30_000);
  }

  private TokenLifetimes lifetimes;

  private final MiniKdc kdc;
  private final EmbeddedCluster cluster;
  private final Path keytabs;

  private SecureCluster(MiniKdc kdc, EmbeddedCluster cluster, Path keytabs,
      TokenLifetimes lifetimes) {
    this.kdc = kdc;
    this.cluster = cluster;
    this.keytabs = keytabs;
    this.lifetimes = lifetimes;
  }

  /**
   * The JVM's Kerberized cluster, started on the first call (and after it was stopped), its
   * NameNode issuing tokens of these {@code lifetimes}: when the running cluster's differ, its
   * NameNode restarts with them first (seconds, against about a minute for a new cluster;
   * tokens issued before keep the lifetimes they were issued with). A class that needs short
   * lifetimes and one whose jobs must not meet them can thus share the cluster; naming them so
   * that those of one kind run one after the other (surefire runs classes in alphabetical
   * order) keeps the restarts few.
   */
  public static synchronized SecureCluster shared(TokenLifetimes lifetimes) throws Exception {
    if (shared == null) {
      SecureCluster started = start("tide-secure",
          Path.of("target", "secure-cluster-" + ProcessHandle.current().pid()), lifetimes);
      shared = started;
      SharedCluster.runAlone(() -> stopShared(started));
    }
    shared.useTokenLifetimes(lifetimes);
    return shared;
  }

  /** {@link #shared(TokenLifetimes)} with Hadoop's default lifetimes. */
  public static SecureCluster shared() throws Exception {
    return shared(TokenLifetimes.HADOOP_DEFAULTS);
  }

  /** Restarts the NameNode with {@code wanted} unless it already has them. */
  private void useTokenLifetimes(TokenLifetimes wanted) throws Exception {
    if (wanted.equals(lifetimes)) {
      return;
    }
    MiniDFSCluster dfs = cluster.dfs();
    setTokenLifetimes(dfs.getConfiguration(0), wanted);
    long start = System.nanoTime();
    dfs.restartNameNode(0, true);
    Await.until(Duration.ofSeconds(60), "the restarted NameNode to leave safe mode",
        () -> !dfs.getNamesystem(0).isInSafeMode());
    System.out.printf("NameNode restarted with delegation-token lifetimes %s in %d ms%n",
        wanted, (System.nanoTime() - start) / 1_000_000);
    lifetimes = wanted;
  }

  private static void setTokenLifetimes(Configuration conf, TokenLifetimes lifetimes) {
    conf.setLong("dfs.namenode.delegation.token.renew-interval",
        lifetimes.renewIntervalMillis());
    conf.setLong("dfs.namenode.delegation.token.max-lifetime", lifetimes.maxLifetimeMillis());
  }

  private static synchronized void stopShared(SecureCluster cluster) {
    if (shared == cluster) {
      shared = null;
    }
    cluster.close();
  }

  private static SecureCluster start(String name, Path workDir, TokenLifetimes lifetimes)
      throws Exception {
    SharedCluster.stop();
    Path kdcDir = Files.createDirectories(workDir.toAbsolutePath().resolve("kdc"));
    Properties kdcConf = MiniKdc.createConf();
    MiniKdc kdc = new MiniKdc(kdcConf, kdcDir.toFile());
    kdc.start();
    try {
      Path keytabs = Files.createDirectories(workDir.toAbsolutePath().resolve("keytabs"));
      File service = keytabs.resolve("service.keytab").toFile();
      kdc.createPrincipal(service, SERVICE, HTTP);
      // A user principal is one more entry in the KDC; its keytab is what `kinit -kt` reads.
      kdc.createPrincipal(keytabs.resolve(ALICE + ".keytab").toFile(), ALICE);
      kdc.createPrincipal(keytabs.resolve(BOB + ".keytab").toFile(), BOB);

      Configuration base = new YarnConfiguration();
      secure(base, kdc.getRealm(), service.getAbsolutePath());
      setTokenLifetimes(base, lifetimes);
      // Before any daemon logs in: UserGroupInformation reads "security on" once, JVM-wide.
      UserGroupInformation.setConfiguration(base);
      Path signatureSecret = workDir.toAbsolutePath().resolve("http-signature-secret");
      Files.writeString(signatureSecret, "secure-cluster-" + System.nanoTime());
      // Absolute: the containers' CLASSPATH names the conf dir, from their own working dirs
      // (with a relative one they miss core-site.xml and run with security off).
      EmbeddedCluster cluster = EmbeddedCluster.start(name, NODE_MANAGERS,
          workDir.toAbsolutePath(), base, conf -> {
            conf.setBoolean("tide.shuffle.crypto.required", true);
            applicationAcls(conf);
            spnego(conf, kdc.getRealm(), service.getAbsolutePath(), signatureSecret);
          });
      SecureCluster secure = new SecureCluster(kdc, cluster, keytabs, lifetimes);
      secure.makeHome(ALICE);
      secure.makeHome(BOB);
      FileSystem fs = cluster.fileSystem();
      fs.mkdirs(new org.apache.hadoop.fs.Path("/tmp"));
      fs.setPermission(new org.apache.hadoop.fs.Path("/tmp"), new FsPermission((short) 01777));
      return secure;
    } catch (Exception | Error e) {
      kdc.stop();
      resetSecurity();
      throw e;
    }
  }

  /**
   * YARN's application ACLs on: an application is seen by its owner, the users of its view ACL
   * and the YARN admin ({@link #SERVICE_USER}, the tests' own YarnClient); YARN's default admin
   * ACL and the queues' default administrators ({@code *}) would make every user an admin.
   */
  private static void applicationAcls(Configuration conf) {
    conf.setBoolean("yarn.acl.enable", true);
    conf.set("yarn.admin.acl", SERVICE_USER);
    conf.set("yarn.scheduler.capacity.root.acl_administer_queue", SERVICE_USER);
    conf.set("yarn.scheduler.capacity.root.default.acl_administer_queue", " ");
  }

  /**
   * SPNEGO (Kerberos over HTTP) on YARN's web servers: the ResourceManager's proxy then names
   * the user who authenticated to the AM, as on a real secure cluster (without it the
   * ResourceManager takes any {@code user.name} parameter). The AM drops these filters from its
   * own server (it sits behind the proxy, with no HTTP keytab).
   */
  private static void spnego(Configuration conf, String realm, String keytab,
      Path signatureSecret) {
    conf.set("hadoop.http.filter.initializers",
        "org.apache.hadoop.security.AuthenticationFilterInitializer");
    conf.set("hadoop.http.authentication.type", "kerberos");
    conf.set("hadoop.http.authentication.kerberos.principal", HTTP + "@" + realm);
    conf.set("hadoop.http.authentication.kerberos.keytab", keytab);
    conf.set("hadoop.http.authentication.signature.secret.file", signatureSecret.toString());
    conf.set("yarn.resourcemanager.webapp.spnego-principal", HTTP + "@" + realm);
    conf.set("yarn.resourcemanager.webapp.spnego-keytab-file", keytab);
    conf.set("yarn.nodemanager.webapp.spnego-principal", HTTP + "@" + realm);
    conf.set("yarn.nodemanager.webapp.spnego-keytab-file", keytab);
  }

  /** The settings of a Kerberized HDFS and YARN whose daemons all use {@link #SERVICE}. */
  static void secure(Configuration conf, String realm, String keytab) {
    String service = SERVICE + "@" + realm;
    String http = HTTP + "@" + realm;
    conf.set("hadoop.security.authentication", "kerberos");
    conf.set("dfs.namenode.kerberos.principal", service);
    conf.set("dfs.namenode.keytab.file", keytab);
    conf.set("dfs.datanode.kerberos.principal", service);
    conf.set("dfs.datanode.keytab.file", keytab);
    conf.set("dfs.web.authentication.kerberos.principal", http);
    conf.set("dfs.web.authentication.kerberos.keytab", keytab);
    conf.setBoolean("dfs.block.access.token.enable", true);
    // A secure DataNode needs privileged ports (jsvc) or SASL on its data transfer
    // (dfs.data.transfer.protection, which every client must know too, the NodeManager's
    // localizer included, from an hdfs-site.xml on its classpath): neither, test only.
    conf.setBoolean("ignore.secure.ports.for.testing", true);
    conf.set("yarn.resourcemanager.principal", service);
    conf.set("yarn.resourcemanager.keytab", keytab);
    conf.set("yarn.nodemanager.principal", service);
    conf.set("yarn.nodemanager.keytab", keytab);
  }

  /** {@code /user/<user>} owned by the user (the staging directory is under it). */
  private void makeHome(String user) throws IOException {
    FileSystem fs = cluster.fileSystem();
    org.apache.hadoop.fs.Path home = new org.apache.hadoop.fs.Path("/user/" + user);
    fs.mkdirs(home);
    fs.setOwner(home, user, user);
  }

  public EmbeddedCluster cluster() {
    return cluster;
  }

  public String realm() {
    return kdc.getRealm();
  }

  /** {@code user@REALM}. */
  public String principal(String user) {
    return user + "@" + kdc.getRealm();
  }

  /** The keytab of {@link #ALICE} or {@link #BOB}. */
  public Path keytab(String user) {
    return keytabs.resolve(user + ".keytab");
  }

  /**
   * A client's settings: the cluster's, and the Kerberos configuration (the KDC's
   * {@code krb5.conf}) for the AM's and executors' JVMs, which a real node has in
   * {@code /etc/krb5.conf}.
   */
  public Configuration clientConf() {
    Configuration conf = cluster.clientConf();
    String krb5 = " -D" + MiniKdc.JAVA_SECURITY_KRB5_CONF + "="
        + kdc.getKrb5conf().getAbsolutePath();
    conf.set("tide.am.javaOpts", conf.get("tide.am.javaOpts", "") + krb5);
    conf.set("tide.executor.javaOpts", conf.get("tide.executor.javaOpts", "") + krb5);
    return conf;
  }

  /** {@code user} logged in from its keytab, as after {@code kinit -kt}. */
  public UserGroupInformation login(String user) throws IOException {
    return UserGroupInformation.loginUserFromKeytabAndReturnUGI(principal(user),
        keytab(user).toString());
  }

  /** Runs {@code action} as {@code ugi} (a test's client code). */
  public static <T> T as(UserGroupInformation ugi, PrivilegedExceptionAction<T> action)
      throws Exception {
    return ugi.doAs(action);
  }

  @Override
  public void close() {
    try {
      cluster.close();
    } finally {
      kdc.stop();
      resetSecurity();
    }
  }

  /** Security off again for whatever this JVM runs next. */
  private static void resetSecurity() {
    UserGroupInformation.reset();
    UserGroupInformation.setConfiguration(new Configuration());
  }
}
