/**
 * Moving a backup artifact to a Job in a tenant's namespace without giving it store credentials:
 * short-lived grants, the operator's HTTPS restore route and the fetch main the Job runs.
 */
package dev.bosun.common.transfer;
