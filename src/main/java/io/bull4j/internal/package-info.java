/** bull4j's implementation. Nothing here is public API: it may change in any release without notice. */
package io.bull4j.internal;
