package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** An access key as listed: never its secret. {@code createdBy} is the Human who made it; times are ISO 8601 UTC. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AccessKey(String accessKeyId, AccessKeyPrincipal principal, String createdAt, String createdBy) {
}
