/** Part of bull4j's implementation, not public API: it may change in any release without notice. */
package io.bull4j.internal.script;
