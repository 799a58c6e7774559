package dev.bosun.common.backup;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * Where backups live: a directory (a PVC mounted into the operator's pod) or an S3-compatible
 * bucket. Keys are relative, slash-separated paths; a write is visible only once complete, so a
 * backup interrupted half-way never looks like a good one.
 */
public interface BackupStore {

  /**
   * Stores {@code content} under {@code key}, replacing what was there, and describes the result.
   */
  StoredObject write(String key, InputStream content) throws IOException;

  /** Opens the object stored under {@code key}; the caller closes the stream. */
  InputStream read(String key) throws IOException;

  /** The objects whose key starts with {@code prefix}, sorted by key. */
  List<StoredObject> list(String prefix) throws IOException;

  /** Removes the object under {@code key}; removing a missing object is not an error. */
  void delete(String key) throws IOException;

  /**
   * Where {@code key} is stored, as a user reads it in a status ({@code s3://…}, {@code file:…}).
   */
  String location(String key);
}
