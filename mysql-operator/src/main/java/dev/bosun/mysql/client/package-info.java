/**
 * The SQL each flavour speaks: statements, status columns and GTID arithmetic for MariaDB and MySQL
 * 8.4.
 */
package dev.bosun.mysql.client;
