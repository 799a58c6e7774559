/**
 * The backup API both stateful operators share: stores (a volume or S3) behind {@code BackupStore},
 * keys and retention, schedules and progress, and the conditions and reasons a backup resource
 * reports.
 */
package dev.bosun.common.backup;
