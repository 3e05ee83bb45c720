/**
 * Cron patterns read and stepped as cron-parser 5.10 (BullMQ 6.7.0's) does. Part of bull4j's implementation, not
 * public API: it may change in any release without notice.
 */
package io.bull4j.internal.cron;
