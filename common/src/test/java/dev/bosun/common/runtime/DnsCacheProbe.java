package dev.bosun.common.runtime;

import static org.awaitility.Awaitility.await;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Run in a JVM of its own whose names come from a hosts file ({@code -Djdk.net.hosts.file}):
 * resolves a name, moves it to another address, and prints how many milliseconds the JVM took to
 * see the move ({@code stale} when it did not within the bound). With {@code follow} as its second
 * argument it first calls {@link DnsCache#followPodChanges()}.
 */
final class DnsCacheProbe {

  static final String NAME = "db-0.db-headless.team-a.svc";

  private DnsCacheProbe() {}

  public static void main(String[] args) throws Exception {
    Path hosts = Path.of(args[0]);
    boolean follow = args.length > 1 && args[1].equals("follow");
    long boundMillis = Long.parseLong(args[2]);
    boolean logFirst = args.length > 3 && args[3].equals("log-first");
    if (logFirst) {
      // A logger made before the setting, as a static one in a main class would be.
      org.slf4j.LoggerFactory.getLogger(DnsCacheProbe.class).info("probe starting");
    }
    if (follow) {
      DnsCache.followPodChanges();
    }
    // An operator logs from its first lines on.
    org.slf4j.LoggerFactory.getLogger(DnsCacheProbe.class).info("probe running");
    Files.writeString(hosts, "10.244.0.7 " + NAME + "\n");
    String before = InetAddress.getByName(NAME).getHostAddress();
    Files.writeString(hosts, "10.244.0.9 " + NAME + "\n");
    long moved = System.nanoTime();
    try {
      await()
          .atMost(Duration.ofMillis(boundMillis))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> !resolve().equals(before));
      System.out.println((System.nanoTime() - moved) / 1_000_000);
    } catch (ConditionTimeoutException e) {
      System.out.println("stale");
    }
  }

  private static String resolve() throws UnknownHostException {
    return InetAddress.getByName(NAME).getHostAddress();
  }
}
