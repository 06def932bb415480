package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** A new AI agent identity: its id, its bearer token (shown once; keep it secret), the token id and expiry. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record IssuedAgent(String agentId, String jwt, String jti, String expiresAt) {
    @Override
    public String toString() {
        // The token is a credential: never in logs by accident.
        return "IssuedAgent[agentId=" + agentId + ", jti=" + jti + ", expiresAt=" + expiresAt + "]";
    }
}
