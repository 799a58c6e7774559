package dev.bosun.mysql.client;

/** Column names of the replica status result, which differ between flavours. */
public record ReplicaStatusColumns(
    String sourceHost,
    String sourcePort,
    String ioRunning,
    String sqlRunning,
    String lagSeconds,
    String lastIoErrno,
    String lastSqlErrno,
    String receivedGtid) {}
