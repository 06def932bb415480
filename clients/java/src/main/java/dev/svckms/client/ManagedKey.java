package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Map;

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
        Integer minVersion,
        /** "generated" or "imported" (bring your own key). */
        String origin,
        /** False while the key is disabled (it keeps its state, serves nothing); null from an older service. */
        Boolean enabled,
        /** When the key was disabled, while it is. */
        String disabledAt,
        /** Why, when the caller that disabled it said. */
        String disabledReason,
        /** The key's tags now: tag key to value. */
        Map<String, String> tags,
        /** The aliases (alias/NAME) that name this key, by name. */
        List<String> aliases) {

    /** True only when the service says the key is disabled. */
    public boolean disabled() {
        return Boolean.FALSE.equals(enabled);
    }
}
