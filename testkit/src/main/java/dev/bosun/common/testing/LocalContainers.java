package dev.bosun.common.testing;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A container of a Pod as a process on this machine: its command with this machine's binaries (this
 * JVM with the test classpath for {@code java}), every mount path replaced by the directory playing
 * that volume (a directory per PersistentVolumeClaim, one per Pod and volume for an emptyDir or a
 * Secret, whose keys are written as files), and its environment with Secret references resolved.
 * Shared by the test kits that run Pods as local processes.
 */
public final class LocalContainers {

  private final KubernetesClient client;
  private final Path root;
  private final Map<String, String> binaries;

  /**
   * @param client reads the Secrets that volumes and environment variables name
   * @param root where volumes ({@code volumes/<claim>}) and Pod directories ({@code pods/<uid>})
   *     are
   * @param binaries the local binary of each command name an image would run (java is always this
   *     JVM)
   */
  public LocalContainers(KubernetesClient client, Path root, Map<String, String> binaries) {
    this.client = client;
    this.root = root;
    this.binaries = Map.copyOf(binaries);
  }

  /** The directory playing the claim {@code claim}. */
  public Path claim(String claim) {
    return root.resolve("volumes").resolve(claim);
  }

  /** The container's command and arguments as a local command line. */
  public List<String> command(Pod pod, Container container) {
    Map<String, Path> mounts = mounts(pod, container);
    List<String> command = new ArrayList<>();
    List<String> original = new ArrayList<>(container.getCommand());
    original.addAll(container.getArgs() == null ? List.of() : container.getArgs());
    for (int i = 0; i < original.size(); i++) {
      String arg = original.get(i);
      if (i == 0) {
        command.add(binary(arg));
      } else if (original.get(i - 1).equals("-cp")) {
        command.add(System.getProperty("java.class.path"));
      } else {
        command.add(mapPaths(arg, mounts));
      }
    }
    return command;
  }

  private String binary(String name) {
    if (name.equals("java")) {
      return ProcessHandle.current().info().command().orElse("java");
    }
    String local = binaries.get(name);
    if (local == null) {
      throw new IllegalArgumentException("no local binary for " + name);
    }
    return local;
  }

  /** The container's environment: plain values (mount paths mapped) and Secret references. */
  public Map<String, String> environment(Pod pod, Container container) {
    Map<String, String> env = new HashMap<>();
    if (container.getEnv() == null) {
      return env;
    }
    for (EnvVar e : container.getEnv()) {
      if (e.getValue() != null) {
        env.put(e.getName(), mapPaths(e.getValue(), mounts(pod, container)));
      } else if (e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null) {
        var ref = e.getValueFrom().getSecretKeyRef();
        Secret secret =
            client
                .secrets()
                .inNamespace(pod.getMetadata().getNamespace())
                .withName(ref.getName())
                .get();
        env.put(
            e.getName(),
            new String(
                Base64.getDecoder().decode(secret.getData().get(ref.getKey())),
                StandardCharsets.UTF_8));
      }
    }
    return env;
  }

  /**
   * Runs the container to its end (at most {@code timeoutSeconds}), its output going to {@code
   * log}; its exit code, or -1 when it did not end in time.
   */
  public int run(Pod pod, Container container, Path log, long timeoutSeconds) {
    try {
      Files.createDirectories(log.getParent());
      ProcessBuilder builder =
          new ProcessBuilder(command(pod, container))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      builder.environment().putAll(environment(pod, container));
      Process p = builder.start();
      try {
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          return -1;
        }
      } catch (InterruptedException e) {
        // The Pod or the node goes away: so does the container, with every process it started.
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.onExit().join();
        Thread.currentThread().interrupt();
        return -1;
      }
      return p.exitValue();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The local directory of each mount: a claim's directory, or the Pod's own for an emptyDir. */
  public Map<String, Path> mounts(Pod pod, Container container) {
    Map<String, Path> mounts = new LinkedHashMap<>();
    for (VolumeMount m : container.getVolumeMounts()) {
      Volume v =
          pod.getSpec().getVolumes().stream()
              .filter(x -> x.getName().equals(m.getName()))
              .findFirst()
              .orElseThrow();
      Path dir;
      Path podDir = root.resolve("pods").resolve(pod.getMetadata().getUid());
      if (v.getPersistentVolumeClaim() != null) {
        dir = claim(v.getPersistentVolumeClaim().getClaimName());
      } else if (v.getEmptyDir() != null) {
        dir = podDir.resolve(v.getName());
      } else if (v.getSecret() != null) {
        dir = podDir.resolve(v.getName());
        writeSecret(pod.getMetadata().getNamespace(), v.getSecret().getSecretName(), dir);
      } else {
        continue;
      }
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      mounts.put(m.getMountPath(), dir);
    }
    return mounts;
  }

  /** A Secret volume: one file per key, as the kubelet projects it. */
  private void writeSecret(String namespace, String name, Path dir) {
    Secret secret = client.secrets().inNamespace(namespace).withName(name).get();
    try {
      Files.createDirectories(dir);
      for (Map.Entry<String, String> e : secret.getData().entrySet()) {
        Files.write(dir.resolve(e.getKey()), Base64.getDecoder().decode(e.getValue()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Maps mount paths where a path starts: at the start of the value or after {@code =} or {@code ,}
   * (flags such as {@code --data-dir=/var/lib/etcd/data}), and only whole path segments, so that a
   * URL whose path merely contains a mount path (for example {@code http://host/restore/v1}) is
   * left alone.
   */
  static String mapPaths(String value, Map<String, Path> mounts) {
    if (mounts.isEmpty()) {
      return value;
    }
    // One pass, longest mount path first: a mapped path (often under /tmp) is never mapped again
    // by a mount at /tmp.
    String alternatives =
        mounts.keySet().stream()
            .sorted(java.util.Comparator.comparingInt(String::length).reversed())
            .map(Pattern::quote)
            .collect(java.util.stream.Collectors.joining("|"));
    Matcher m = Pattern.compile("(^|[=,])(" + alternatives + ")(?=/|,|$)").matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(
          out, Matcher.quoteReplacement(m.group(1) + mounts.get(m.group(2)).toString()));
    }
    m.appendTail(out);
    return out.toString();
  }
}
