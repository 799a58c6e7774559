package dev.bosun.mysql.backup;

import dev.bosun.common.backup.BackupStoreException;
import dev.bosun.common.status.HumanMessages;
import dev.bosun.mysql.execute.InstanceException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.List;

/**
 * Why a dump or a load failed, for a MySQLBackup's or a MySQLCluster's status and Events: the
 * operator's own sentence (a dump client's exit, an instance's SQL error code, a missing backup), a
 * backup store's answer, or the file or host that failed. Never an exception's class, stack or
 * library text: the log has those.
 */
public final class JobFailures {

  private JobFailures() {}

  /** One bounded sentence naming the cause of {@code failure}. */
  public static String describe(Throwable failure) {
    return HumanMessages.bounded(sentence(failure), HumanMessages.MAX_LENGTH);
  }

  private static String sentence(Throwable failure) {
    List<Throwable> chain = HumanMessages.causes(failure);
    for (Throwable t : chain) {
      if (t instanceof KubernetesClientException) {
        return HumanMessages.describe(t);
      }
      if (t instanceof InstanceException || t instanceof BackupStoreException) {
        // Written by this operator for people: no statement text, no secret.
        return t.getMessage();
      }
      if (t instanceof FileSystemException f) {
        return file(f);
      }
      if (t instanceof UnknownHostException) {
        return "the backup store's host name cannot be resolved";
      }
      if (t instanceof ConnectException || t instanceof HttpConnectTimeoutException) {
        return "the backup store could not be reached";
      }
      if (t instanceof HttpTimeoutException) {
        return "the backup store did not answer in time";
      }
    }
    for (Throwable t : chain) {
      if (t instanceof IOException && readsAsText(t.getMessage())) {
        // The S3 store's own sentences ("upload ... failed: HTTP 403 (AccessDenied: ...)") or
        // the system's ("Connection reset").
        return "reading or writing the backup failed: " + t.getMessage();
      }
    }
    if (chain.stream().anyMatch(IOException.class::isInstance)) {
      return "reading or writing the backup failed; the operator's log has the details";
    }
    // Not I/O: a bug or an unexpected state, which the shared wording points to the log for.
    return HumanMessages.describe(failure);
  }

  private static String file(FileSystemException f) {
    String what = f.getFile() == null ? "a backup file" : f.getFile();
    if (f.getReason() != null && !f.getReason().isBlank()) {
      return what + ": " + f.getReason();
    }
    if (f instanceof NoSuchFileException) {
      return what + " does not exist";
    }
    if (f instanceof AccessDeniedException) {
      return "the operator may not read or write " + what;
    }
    return what + " could not be read or written";
  }

  /** A message that is a sentence, not an object dump or another exception's toString. */
  private static boolean readsAsText(String m) {
    return m != null && !m.isBlank() && !m.contains("Exception") && !m.contains("@");
  }
}
