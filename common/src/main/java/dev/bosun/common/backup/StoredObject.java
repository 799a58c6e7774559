package dev.bosun.common.backup;

import java.time.Instant;

/** One stored backup: its key, size in bytes, when it was written, and where it is. */
public record StoredObject(String key, long size, Instant lastModified, String location) {}
