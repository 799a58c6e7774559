/**
 * A replica rebuild's copy, run as a Job in the cluster's namespace: the Job and its Secret, the
 * main it runs, and the runner that waits for it.
 */
package dev.bosun.mysql.rebuild;
