package dev.bosun.mysql.rebuild;

import dev.bosun.mysql.backup.ReplicaCopy;
import dev.bosun.mysql.client.Flavour;
import dev.bosun.mysql.client.SqlDialect;
import dev.bosun.mysql.execute.Credentials;
import dev.bosun.mysql.execute.InstanceException;
import dev.bosun.mysql.plan.Address;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The main of a rebuild's copy Job ({@link CopyJobs}), run in the operator image in the cluster's
 * namespace: {@link ReplicaCopy#copy} of {@value #SOURCE} into {@value #TARGET}, logged in with the
 * account in the files of {@value #CREDENTIALS_DIR}. It prints what it does; a failure ends the
 * process with 1 and one line on standard error, the last line of the log, which the kubelet keeps
 * as the container's termination message.
 */
public final class CopyMember {

  /** The member being rebuilt, {@code host:port}. */
  public static final String TARGET = "BOSUN_COPY_TARGET";

  /** The healthy member copied, {@code host:port}. */
  public static final String SOURCE = "BOSUN_COPY_SOURCE";

  /** The cluster's {@link Flavour} by name. */
  public static final String FLAVOUR = "BOSUN_COPY_FLAVOUR";

  /** How long one SQL statement of the copy may wait for an answer. */
  public static final String SQL_TIMEOUT_SECONDS = "BOSUN_COPY_SQL_TIMEOUT_SECONDS";

  /** The directory of the mounted Secret holding the account's name and password. */
  public static final String CREDENTIALS_DIR = "BOSUN_COPY_CREDENTIALS";

  /** The Job's annotation naming the member it rebuilds. */
  public static final String MEMBER_ANNOTATION = "mysql.bosun.dev/rebuild-member";

  private CopyMember() {}

  public static void main(String[] args) {
    try {
      ReplicaCopy.Copied done = copy(System.getenv());
      System.out.println(
          "copied "
              + done.bytes() / 1_048_576
              + " MiB; the member replicates after GTID "
              + done.position());
    } catch (IOException | InstanceException | IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(1);
    }
  }

  /** The copy {@code env} describes, run now. */
  static ReplicaCopy.Copied copy(Map<String, String> env) throws IOException, InstanceException {
    Path dir = Path.of(required(env, CREDENTIALS_DIR));
    Credentials account =
        new Credentials(
            read(dir.resolve(CopyJobs.USER_KEY)),
            read(dir.resolve(CopyJobs.PASSWORD_KEY)),
            null,
            null);
    Flavour flavour = Flavour.valueOf(required(env, FLAVOUR));
    Duration timeout = Duration.ofSeconds(Long.parseLong(required(env, SQL_TIMEOUT_SECONDS)));
    return new ReplicaCopy(SqlDialect.of(flavour), account, timeout)
        .copy(
            address(required(env, TARGET)),
            address(required(env, SOURCE)),
            doing -> System.out.println(doing));
  }

  /** {@code host:port}; the host may be a name or an address. */
  static Address address(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0 || colon == hostPort.length() - 1) {
      throw new IllegalArgumentException("not a host:port: " + hostPort);
    }
    return new Address(
        hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
  }

  private static String required(Map<String, String> env, String name) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("the copy Job sets no " + name);
    }
    return v;
  }

  private static String read(Path file) throws IOException {
    // Exactly as stored: a password may start or end with a space.
    return Files.readString(file, StandardCharsets.UTF_8);
  }
}
