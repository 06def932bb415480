package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * A new access key: its id, its secret (shown only in this answer; keep it secret), its principal and when it was
 * made. The pair goes where an AWS SDK reads credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NewAccessKey(String accessKeyId, String secretAccessKey, AccessKeyPrincipal principal, String createdAt) {
    @Override
    public String toString() {
        // The secret is a credential: never in logs by accident.
        return "NewAccessKey[accessKeyId=" + accessKeyId + ", principal=" + principal + ", createdAt=" + createdAt + "]";
    }
}
