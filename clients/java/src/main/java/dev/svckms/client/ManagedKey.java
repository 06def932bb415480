package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** A key as the service describes it; accessors are named like the JSON fields. Times are ISO 8601 UTC. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ManagedKey(
        String id,
        KeySpec spec,
        String owner,
        String tenant,
        String state,
        int currentVersion,
        String createdAt,
        String activatedAt,
        String rotatedAt,
        String revokedAt,
        String compromisedAt,
        String destroyedAt,
        String reason,
        String rotationPolicy,
        /** When a scheduled destruction destroys the key; null when none is scheduled. */
        String destroyAt,
        /** The lowest version still held (versions below it were trimmed); null when none was. */
        Integer minVersion) {
}
