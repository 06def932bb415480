package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * The answer to activate, revoke, compromise and destroy: the key's new state, when it changed
 * (the answer's activatedAt, revokedAt, compromisedAt or destroyedAt) and the reason given, if any.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record KeyStateChange(
        String id,
        String state,
        @JsonAlias({"activatedAt", "revokedAt", "compromisedAt", "destroyedAt"}) String changedAt,
        String reason) {
}
