package dev.bosun.etcd.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** A throw-away CA and certificates made with the openssl command, for TLS tests on loopback. */
public final class TestCertificates {

  private final Path dir;

  private TestCertificates(Path dir) {
    this.dir = dir;
  }

  /** A new CA in a temporary directory. */
  public static TestCertificates newCa() throws Exception {
    Path dir = Files.createTempDirectory("test-ca");
    TestCertificates ca = new TestCertificates(dir);
    ca.openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=bosun-test-ca",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt");
    return ca;
  }

  /**
   * A certificate signed by the CA for server and client use, valid for the IP addresses; returns
   * its Secret data (tls.crt, tls.key, ca.crt).
   */
  public Map<String, String> issue(String name, List<String> ips) throws Exception {
    openssl(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=" + name,
        "-keyout",
        name + ".key",
        "-out",
        name + ".csr");
    String san =
        ips.isEmpty()
            ? ""
            : "subjectAltName="
                + ips.stream().map(ip -> "IP:" + ip).collect(Collectors.joining(","))
                + "\n";
    Files.writeString(dir.resolve(name + ".ext"), san + "extendedKeyUsage=serverAuth,clientAuth\n");
    openssl(
        "x509",
        "-req",
        "-in",
        name + ".csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        name + ".ext",
        "-out",
        name + ".crt");
    return Map.of(
        "tls.crt", Files.readString(dir.resolve(name + ".crt")),
        "tls.key", Files.readString(dir.resolve(name + ".key")),
        "ca.crt", Files.readString(dir.resolve("ca.crt")));
  }

  public Path file(String name) {
    return dir.resolve(name);
  }

  private void openssl(String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>();
    command.add("openssl");
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("openssl.log").toFile())
            .start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(
          "openssl "
              + String.join(" ", args)
              + " failed: "
              + Files.readString(dir.resolve("openssl.log")));
    }
  }
}
