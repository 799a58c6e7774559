/** Cron schedules (through a kept cron library) for backups and other timed work. */
package dev.bosun.common.schedule;
