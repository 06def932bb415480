package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * The answer to disableKey and enableKey: the key's state (unchanged by either), whether it is enabled,
 * and while it is not, since when and why (null when the caller gave no reason).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record KeyEnabled(String id, String state, boolean enabled, String disabledAt, String disabledReason) {
}
