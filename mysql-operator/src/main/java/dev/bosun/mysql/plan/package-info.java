/**
 * Pure planning of replication: from what every member reported, the one next step (attach, fence,
 * promote, fail over, switch over, rebuild), with the sentence that says why.
 */
package dev.bosun.mysql.plan;
